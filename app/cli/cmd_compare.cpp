// `headscope-cli compare`: a minimal pair. Runs the model on --sentence (A) and --contrast (B),
// aligns their tokens and reports how much each head's attention changed (core/analysis/contrast.h);
// with --target/--versus the logit difference of two continuations after each sentence, and with
// --patch every head's share of it by activation patching (core/analysis/pair_target.h): a text
// report, --json (alignment, change per head, both runs' maps, the answer), --csv (one row per head),
// or --out FILE in any export format (the Contrast figure of --layer/--head, or with --patch the
// patching figure: PNG, SVG, PDF).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/contrast.h"
#include "core/analysis/model_contrast.h"
#include "core/analysis/model_pair_memory.h"
#include "core/analysis/model_pair_run.h"
#include "core/analysis/pair_target.h"
#include "core/analysis/run_analysis.h"
#include "core/model/checkpoint_cache.h"
#include "core/export/contrast_export.h"
#include "core/export/contrast_json.h"
#include "core/export/export.h"
#include "core/render/figure.h"
#include "core/render/colormap.h"
#include "core/render/figure_style.h"
#include "core/text/token_label.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::cli {
namespace {

struct CompareOptions {
  ModelFlags model;
  std::string contrast;
  std::string json;
  std::string csv;
  std::string out;
  std::string size;
  std::string colormap = "viridis";
  int layer = -1, head = -1;  // the figure's head; -1: the most changed head
  int top = 10;
  std::string target, versus;
  bool patch = false;
  bool no_caption = false;  // the figure without the lines saying what A and B are
  bool large_page = false;  // .html past the page size limit
  int threads = 0;
  std::string model_b;      // --model-b: two models on one input instead of two sentences
  std::string memory_budget;  // --memory-budget SIZE: both models together (model_pair_memory.h)
  std::string tokenizer_b;  // --tokenizer-b: model B's llama2.c tokenizer (default: --tokenizer when B is a .bin)
  CLI::Option* model_b_option = nullptr;
  CLI::Option* contrast_option = nullptr;
  CLI::Option* target_option = nullptr;
  CLI::Option* versus_option = nullptr;
};

// "The keys to the cabinet [are -> is]": every step, changed ones bracketed.
std::string alignment_line(const ContrastResult& c, const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::string line;
  for (const AlignStep& s : c.alignment.steps) {
    if (!line.empty()) line += ' ';
    switch (s.op) {
      case AlignOp::same: line += a[size_t(s.a)]; break;
      case AlignOp::replaced: line += "[" + a[size_t(s.a)] + " -> " + b[size_t(s.b)] + "]"; break;
      case AlignOp::deleted: line += "[-" + a[size_t(s.a)] + "]"; break;
      case AlignOp::inserted: line += "[+" + b[size_t(s.b)] + "]"; break;
    }
  }
  return line;
}

// "logit(▁are) - logit(▁is) after the last token: A 1.2340   B -0.5670", and the notes.
void print_logit_diff(std::ostream& out, const PairAnswer& p) {
  char buf[240];
  std::snprintf(buf, sizeof buf, "logit(%s) - logit(%s) after the last token: A %.4f   B %.4f\n",
                token_label({p.target_token}, 0).c_str(), token_label({p.versus_token}, 0).c_str(), p.logit_diff_a, p.logit_diff_b);
  out << buf;
  for (const std::string& note : p.notes) out << "  (" << note << ")\n";
}

// The heads by the share of the gap they restore, largest |share| first (null ones last).
void print_patching(std::ostream& out, const HeadPatching& h, int top) {
  std::vector<std::pair<int, int>> heads;
  for (int l = 0; l < h.n_layers(); ++l)
    for (int k = 0; k < h.n_heads(); ++k) heads.emplace_back(l, k);
  const auto key = [&](const std::pair<int, int>& x) {
    const float v = h.share(x.first, x.second);
    return std::isnan(v) ? -1.0f : std::abs(v);
  };
  std::stable_sort(heads.begin(), heads.end(), [&](const auto& x, const auto& y) { return key(x) > key(y); });
  out << "\nheads by activation patching (B's run with the head's output from A; share of the gap restored, "
         "(LD patched - LD B) / (LD A - LD B)):\n  layer head   share  patched LD\n";
  for (size_t i = 0; i < heads.size() && int(i) < top; ++i) {
    const auto [l, k] = heads[i];
    const float share = h.share(l, k);
    char cell[32] = "null", buf[160];
    if (!std::isnan(share)) std::snprintf(cell, sizeof cell, "%.4f", double(share));
    std::snprintf(buf, sizeof buf, "  %5d %4d  %6s  %10.4f\n", l, k, cell, double(h.logit_diff(l, k)));
    out << buf;
  }
  if (heads.size() > size_t(top)) out << "  (" << heads.size() - size_t(top) << " more heads; --top N shows more, --csv all)\n";
}

void print_report(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& c, const PairAnswer* answer,
                  int top) {
  const std::vector<std::string> la = token_labels(a.run.tokens), lb = token_labels(b.run.tokens);
  out << "alignment (" << c.alignment.changed() << " changed of " << c.alignment.steps.size()
      << " positions; [A -> B], [-only in A], [+only in B]):\n  " << alignment_line(c, la, lb) << "\n";
  if (!a.run.next_tokens.empty() && !b.run.next_tokens.empty()) {
    out << "next token after A: " << token_label(a.run.next_tokens, a.run.next_tokens.size() - 1)
        << "   after B: " << token_label(b.run.next_tokens, b.run.next_tokens.size() - 1) << "\n";
  }
  if (std::isfinite(a.run.last_token_log_prob) && std::isfinite(b.run.last_token_log_prob)) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "log p of the last token (nats): A %s %.3f   B %s %.3f\n",
                  la.back().c_str(), double(a.run.last_token_log_prob), lb.back().c_str(), double(b.run.last_token_log_prob));
    out << buf;
  }
  if (answer) print_logit_diff(out, *answer);
  struct Row { int layer, head; HeadChange change; };
  std::vector<Row> rows;
  for (size_t l = 0; l < c.heads.size(); ++l)
    for (size_t h = 0; h < c.heads[l].size(); ++h) rows.push_back({int(l), int(h), c.heads[l][h]});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.change.distance > y.change.distance; });
  out << "\nheads by change (mean over the " << c.query_rows << " query positions both sentences have"
      << (c.first_query_step > 0 ? " from the first change on" : "") << " of half the summed |A - B| of their rows, 0 to 1):\n"
      << "  layer head  change  max row (at)        on changed A  on changed B\n";
  for (size_t i = 0; i < rows.size() && int(i) < top; ++i) {
    const Row& r = rows[i];
    const std::string at = r.change.max_row_step >= 0 ? la[size_t(c.alignment.steps[size_t(r.change.max_row_step)].a)] : "-";
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %5d %4d  %6.4f  %6.4f (%-10.10s)  %12.4f  %12.4f\n", r.layer, r.head, r.change.distance,
                  r.change.max_row, at.c_str(), r.change.changed_a, r.change.changed_b);
    out << buf;
  }
  if (rows.size() > size_t(top)) out << "  (" << rows.size() - size_t(top) << " more heads; --top N shows more, --csv all)\n";
  if (answer && answer->patching) print_patching(out, *answer->patching, top);
}

// The most changed head (first in layer, head order among equals).
std::pair<int, int> most_changed(const ContrastResult& c) {
  std::pair<int, int> best{0, 0};
  for (size_t l = 0; l < c.heads.size(); ++l)
    for (size_t h = 0; h < c.heads[l].size(); ++h)
      if (c.heads[l][h].distance > c.heads[size_t(best.first)][size_t(best.second)].distance) best = {int(l), int(h)};
  return best;
}

ContrastExport figure_spec(const CompareOptions& o, const ContrastResult& c, const PairAnswer* answer) {
  ContrastExport spec;
  spec.path = o.out;
  spec.answer = answer;
  spec.patching = o.patch;
  const std::pair<int, int> best = most_changed(c);
  spec.layer = o.layer >= 0 ? o.layer : best.first;
  spec.head = o.head >= 0 ? o.head : o.layer >= 0 ? 0 : best.second;
  spec.colours.colormap = parse_colormap(o.colormap);
  if (!o.size.empty() && !parse_page_size(o.size, kPngPixelsPerPoint, spec.style))
    throw InputError("--size '" + o.size + "' is not a page size with a unit (e.g. 6.75x2.5in, 17x6cm)");
  spec.style.show_caption = !o.no_caption;
  spec.large_page = o.large_page;
  return spec;
}

// --target and --versus come together; --patch needs them; a patching figure has no head to pick.
void check_pair_flags(const CompareOptions& o) {
  if ((o.target_option->count() > 0) != (o.versus_option->count() > 0))
    throw InputError("give --target TEXT and --versus TEXT together (the two continuations compared, e.g. \" are\" and \" is\")");
  if (o.patch && o.target_option->count() == 0)
    throw InputError("--patch measures how much of the logit difference each head carries: give --target TEXT and --versus TEXT");
  const bool figure = !o.out.empty() && export_format_is_figure(export_format_of(o.out));
  if (o.patch && figure && (o.layer >= 0 || o.head >= 0))
    throw InputError("with --patch the figure shows every head's share; --layer and --head pick one head's maps (leave out --patch)");
}

// --- Two models on one input (--model-b) ---

// --model-b asks about two models; the sentence pair's flags ask about two sentences.
void check_models_flags(const CompareOptions& o, const ModelRequest& r) {
  if (o.contrast_option->count() > 0)
    throw InputError("--model-b compares two models on one input and --contrast two sentences on one model: give one of them");
  if (o.target_option->count() > 0 || o.versus_option->count() > 0 || o.patch)
    throw InputError("--target, --versus and --patch ask about two sentences; with --model-b leave them out");
  if (o.model_b.empty()) throw InputError("--model-b is empty: give the second model's file or folder");
  if (r.model_path.empty())
    throw InputError("--model-b '" + o.model_b + "' is compared with --model PATH: give the first model too");
  if (r.sentence.empty() && r.input_ids.empty())
    throw InputError("compare --model-b needs the input both models read: --sentence TEXT or --input-ids IDS");
  if (!r.sentence_b.empty()) throw InputError("compare takes one sentence a side: leave out --sentence-b");
}

std::string model_line(const char* which, const std::string& path, const ModelInfo& m) {
  return std::string(which) + ": " + path + " (" + m.name + (m.weight_types.empty() ? "" : ", " + m.weight_types) + "; " +
         std::to_string(m.n_layers) + " layers x " + std::to_string(m.n_heads) + " heads)\n";
}

void print_agreement(std::ostream& out, const NextTokenAgreement& n, const std::vector<std::string>& labels) {
  if (n.positions == 0) {
    out << "next token: not compared (the models predict no next token)\n";
    return;
  }
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "next token: the same top-1 prediction after %d of %d positions (%.3f); KL(A || B) of the "
                "next-token distributions: mean %.6g nats, largest %.6g after position %d (%s)\n",
                n.top1_matches, n.positions, n.match_rate, n.mean_kl, n.max_kl, n.max_kl_position,
                n.max_kl_position >= 0 ? labels[size_t(n.max_kl_position)].c_str() : "-");
  out << buf;
}

void print_models_report(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& c,
                         const ModelComparison& m, int top) {
  const std::vector<std::string> labels = token_labels(a.run.tokens);
  out << model_line("A", m.path_a, a.run.info) << model_line("B", m.path_b, b.run.info);
  out << "input: " << labels.size() << " tokens, the same ids for both models\n";
  for (const std::string& note : m.notes) out << "  (" << note << ")\n";
  print_agreement(out, m.next_token, labels);
  const std::vector<std::vector<int>> ranks = change_ranks(c);
  std::vector<std::pair<int, int>> order(size_t(m.shared_layers) * size_t(m.shared_heads));
  for (int l = 0; l < m.shared_layers; ++l)
    for (int h = 0; h < m.shared_heads; ++h) order[size_t(ranks[size_t(l)][size_t(h)] - 1)] = {l, h};
  out << "\nheads by change (mean over the " << c.query_rows
      << " query positions of half the summed |A - B| of their rows, 0 to 1):\n  rank layer head  change  max row (at)\n";
  for (size_t i = 0; i < order.size() && int(i) < top; ++i) {
    const auto [l, h] = order[i];
    const HeadChange& r = c.heads[size_t(l)][size_t(h)];
    const std::string at = r.max_row_step >= 0 ? labels[size_t(c.alignment.steps[size_t(r.max_row_step)].a)] : "-";
    char buf[160];
    std::snprintf(buf, sizeof buf, "  %4zu %5d %4d  %6.4f  %6.4f (%-10.10s)\n", i + 1, l, h, r.distance, r.max_row, at.c_str());
    out << buf;
  }
  if (order.size() > size_t(top)) out << "  (" << order.size() - size_t(top) << " more heads; --top N shows more, --csv all)\n";
}

int run_compare_models(const CompareOptions& o) {
  ModelRequest request_a = model_request(o.model);
  check_models_flags(o, request_a);
  const ModelRequest request_b = model_b_request(request_a, o.model_b, o.tokenizer_b);
  // The cache holds one checkpoint, so model A's memory is released before model B is read (two
  // mapped files, one at a time).
  CheckpointCache cache;
  ModelPairOptions options;
  options.threads = o.threads;
  options.checkpoints_a = options.checkpoints_b = &cache;
  if (!o.memory_budget.empty()) {
    options.memory_budget = parse_memory_budget(o.memory_budget);
    options.memory_budget_source = "--memory-budget";
    if (options.memory_budget < 0)
      throw InputError("--memory-budget is \"" + o.memory_budget + "\"; expected MiB (e.g. 8192) or a size with K, M or G (e.g. 8G)");
  }
  const ModelPairRun pair = run_model_pair(request_a, request_b, options);
  const ModelComparison& comparison = pair.comparison;
  const ContrastResult& contrast = pair.contrast;
  const RunAnalysis& ra = *pair.a;
  const RunAnalysis& rb = *pair.b;
  if (!o.json.empty()) write_output(o.json, [&](std::ostream& out) { write_contrast_json(out, ra, rb, contrast, nullptr, &comparison); });
  if (!o.csv.empty()) write_output(o.csv, [&](std::ostream& out) { write_contrast_csv(out, contrast); });
  if (!o.out.empty()) {
    ContrastExport spec = figure_spec(o, contrast, nullptr);
    spec.models = &comparison;
    export_contrast(ra, rb, contrast, spec);
  }
  if (o.json.empty() && o.csv.empty() && o.out.empty()) print_models_report(std::cout, ra, rb, contrast, comparison, o.top);
  return 0;
}

int run_compare(const CompareOptions& o) {
  if (o.model_b_option->count() > 0) return run_compare_models(o);
  if (!o.memory_budget.empty())
    throw InputError("--memory-budget is what two models may take together: use it with --model-b PATH");
  if (o.contrast_option->count() == 0)
    throw InputError("compare needs --contrast TEXT (the sentence to compare --sentence with) or --model-b PATH (the model to compare --model with)");
  if (o.contrast.empty()) throw InputError("the contrast sentence is empty");
  if (o.top < 1) throw InputError("--top (" + std::to_string(o.top) + ") must be 1 or more");
  check_pair_flags(o);
  ModelRequest request_a = model_request(o.model);
  if (request_a.sentence.empty()) throw InputError("compare needs --sentence TEXT (sentence A) beside --contrast TEXT (sentence B)");
  if (!request_a.sentence_b.empty()) throw InputError("compare takes one sentence a side: leave out --sentence-b");
  ModelRequest request_b = request_a;
  request_b.sentence = o.contrast;
  AnalysisOptions options;
  options.spectrum = false;
  options.roles = false;
  options.maps = MapMode::automatic;
  options.threads = o.threads;
  CheckpointCache cache;  // both runs share one open checkpoint
  options.checkpoints = &cache;
  const std::shared_ptr<const RunAnalysis> a = analyse(request_a, options);
  const std::shared_ptr<const RunAnalysis> b = analyse(request_b, options);
  const ContrastResult contrast = contrast_runs(a->run, b->run);
  std::optional<PairAnswer> answer;
  if (o.target_option->count() > 0) {
    PatchingOptions patching;
    patching.threads = o.threads;
    answer = answer_pair(*a, *b, contrast, PairQuestion{o.target, o.versus, o.patch}, patching, &cache);
  }
  const PairAnswer* p = answer ? &*answer : nullptr;
  const HeadPatching* patched = p ? p->patching.get() : nullptr;
  if (!o.json.empty()) write_output(o.json, [&](std::ostream& out) { write_contrast_json(out, *a, *b, contrast, p); });
  if (!o.csv.empty()) write_output(o.csv, [&](std::ostream& out) { write_contrast_csv(out, contrast, patched); });
  if (!o.out.empty()) export_contrast(*a, *b, contrast, figure_spec(o, contrast, p));
  if (o.json.empty() && o.csv.empty() && o.out.empty()) print_report(std::cout, *a, *b, contrast, p, o.top);
  return 0;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand("compare", "Compare two sentences head by head (a minimal pair: --sentence A --contrast B), "
                                                "or two models on one input (--model A --model-b B)");
  add_model_flags(*sub, options->model);
  options->contrast_option = sub->add_option("--contrast", options->contrast, flag_help("contrast"));
  options->model_b_option = sub->add_option("--model-b", options->model_b, flag_help("model-b"));
  sub->add_option("--tokenizer-b", options->tokenizer_b, flag_help("tokenizer-b"));
  sub->add_option("--memory-budget", options->memory_budget, flag_help("memory-budget", "With --model-b (default: HEADSCOPE_MEMORY_BUDGET, else none)"));
  sub->add_option("--json", options->json, flag_help("json", "The alignment, each head's change and both runs' maps"));
  sub->add_option("--csv", options->csv, "Write each head's change as CSV to FILE, one row per layer and head ('-': standard output)");
  sub->add_option("--out", options->out,
                  flag_help("out", ".png/.svg/.pdf the Contrast figure of --layer/--head (A, B on one scale, B - A), "
                                   ".json, .csv (a row per head), .npy (the change, [layers, heads]), "
                                   ".html (the interactive contrast page)"));
  sub->add_option("--layer", options->layer, flag_help("layer", "The figure's (default: the most changed head's)"))
      ->check(whole_number("--layer", 0, 1 << 20));
  sub->add_option("--head", options->head, flag_help("head", "The figure's (default: the most changed head, or 0 with --layer)"))
      ->check(whole_number("--head", 0, 1 << 20));
  add_colormap_flag(*sub, options->colormap, "The figure's A and B (B - A is always red-blue)");
  sub->add_option("--size", options->size, flag_help("size", "The figure's"));
  sub->add_flag("--large-page", options->large_page, "An .html page past 8 MB (the size a browser still decodes quickly) is written instead of refused");
  sub->add_flag("--no-caption", options->no_caption,
                "No explanatory text in the figure (a journal's caption says it). Leaves out the lines naming A and B "
                "(and the patching figure's definitions)");
  options->target_option = sub->add_option("--target", options->target,
                                           flag_help("target", "Its logit minus --versus's after each sentence's last token; a text of several pieces counts by its first"));
  options->versus_option = sub->add_option("--versus", options->versus, flag_help("versus"));
  sub->add_flag("--patch", options->patch,
                flag_help("patch", "For each head, B's run with that head's output replaced by A's at the aligned "
                                   "positions; --out figures and .npy then show the shares"));
  sub->add_option("--top", options->top, flag_help("top", "Text report: the most changed heads first"))
      ->capture_default_str()
      ->check(whole_number("--top", 1, 1 << 20));
  add_threads_flag(*sub, options->threads);
  return [options] { return run_compare(*options); };
}

}  // namespace hs::cli
