// `headscope-cli heads`: what each head does. Runs the model as `maps` does and prints one row per
// head with its role scores (core/analysis/head_roles.h) and its label, ranked by a role; --json
// writes the "head_roles" object instead.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/cli/heads_corpus.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/head_clustering.h"
#include "core/analysis/run_analysis.h"
#include "core/export/maps_json.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs::cli {
namespace {

struct HeadsOptions {
  ModelFlags model;
  std::string sort;   // a role name; "" = layer, head order
  std::string role;   // only heads labelled with this role
  std::string json;
  int top = 0;        // 0: every head
  int threads = 0;
  int local_window = 3;
  float threshold = 0.4f;
  float chance_margin = RoleOptions{}.chance_margin;
  int probe_seeds = kRoleProbeSeeds;
  uint64_t probe_seed = RoleOptions{}.probe_seed;
  int null_models = 0;        // --null N: role scores of N random-weight models
  uint64_t null_seed = 1000;  // their first seed
  std::string order = "model";  // "cluster": each layer's heads in head_clustering's order
  std::string corpus;
  std::string shard;
  std::vector<std::string> merge;
  bool quiet = false;
  CLI::Option* json_option = nullptr;
  CLI::Option* sort_option = nullptr;
  CLI::Option* role_option = nullptr;
  CLI::Option* top_option = nullptr;
  CLI::Option* order_option = nullptr;
  CLI::Option* shard_option = nullptr;
  CLI::Option* merge_option = nullptr;
};

// --corpus and --merge write JSON lines, not the table: refuse what only the table reads, and
// (for --merge) any input, which the shard files already fix.
void check_corpus_flags(const HeadsOptions& o) {
  const bool corpus = !o.corpus.empty(), merge = o.merge_option->count() > 0;
  if (corpus && merge) throw InputError("give either --corpus FILE (score a corpus) or --merge FILES (join shard outputs), not both");
  if (o.shard_option->count() > 0 && !corpus) throw InputError("--shard I/N is for --corpus FILE");
  const char* mode = corpus ? "--corpus" : "--merge";
  for (const CLI::Option* table : {o.sort_option, o.role_option, o.top_option, o.order_option})
    if (table->count() > 0)
      throw InputError(table->get_name() + " is for the table; " + mode + " writes JSON lines (docs/head-roles-corpus.md)");
  const ModelRequest& r = o.model.request;
  if (corpus && (o.model.sentence_option->count() > 0 || o.model.input_ids_option->count() > 0 || !r.input_npy.empty() ||
                 o.model.sentence_b_option->count() > 0)) {
    throw InputError("--corpus takes its sentences from the file, one a line; leave out --sentence, --sentence-b, --input-ids and --input");
  }
  if (corpus && o.model.attention_option->count() > 0) {
    throw InputError("--corpus runs a model on every line; --attention maps come from a file and have no model to run");
  }
  if (corpus && r.generate > 0) throw InputError("--generate is not for --corpus: each line is scored as it is");
  if (merge && (o.model.sentence_option->count() > 0 || !r.model_path.empty() || !r.weights.empty() ||
                o.model.attention_option->count() > 0 || !r.input_npy.empty())) {
    throw InputError("--merge reads the shard files only; leave out the input and model flags");
  }
}

struct Row {
  int layer, head;
  const HeadRoleScores* s;
  const std::string* label;
};

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string cell(float v) {
  if (std::isnan(v)) return std::string(6 - std::string(kNotMeasuredMark).size(), ' ') + kNotMeasuredMark;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%6.3f", double(v));
  return buf;
}

// The table's null rows (--null N): each role's mean and standard deviation over every head of the
// random-weight models.
void print_null_rows(const NullRoleScores& null) {
  if (null.models == 0) return;
  const auto row = [](const char* name, const HeadRoleScores& s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-18s", name);
    std::cout << buf;
    for (int r = 0; r < kHeadRoleCount; ++r) std::cout << "    " << cell(s.score[r]);
    std::cout << "\n";
  };
  row("null mean", null.mean);
  row("null sd", null.sd);
}

int run_heads(const HeadsOptions& o) {
  if (o.json_option->count() > 0 && o.json.empty()) throw InputError("--json needs a file name, or '-' for standard output");
  if (o.top < 0) throw InputError("--top (" + std::to_string(o.top) + ") must be 0 (every head) or more");
  if (o.local_window < 1 || o.local_window > 65536) {
    throw InputError("--local-window (" + std::to_string(o.local_window) + ") must be from 1 to 65536 keys");
  }
  if (!(o.threshold >= 0 && o.threshold <= 1)) {
    throw InputError("--threshold (" + std::to_string(o.threshold) + ") must be from 0 to 1");
  }
  if (o.shard_option->count() > 0 && o.corpus.empty()) throw InputError("--shard I/N is for --corpus FILE");
  if (!o.corpus.empty() || o.merge_option->count() > 0) {
    check_corpus_flags(o);
    if (o.null_models > 0) throw InputError("--null scores random-weight models on one input; leave it out with --corpus and --merge");
    HeadsCorpusArgs c;
    c.request = model_request(o.model);
    c.corpus = o.corpus;
    if (!o.shard.empty()) c.shard = o.shard;
    c.merge = o.merge;
    if (!o.json.empty()) c.out = o.json;
    c.role_options.local_window = o.local_window;
    c.role_options.threshold = o.threshold;
    c.role_options.chance_margin = o.chance_margin;
    c.threads = o.threads;
    c.quiet = o.quiet;
    return o.corpus.empty() ? run_heads_merge(c) : run_heads_corpus(c);
  }
  if (o.order == "cluster" && !o.sort.empty()) throw InputError("give either --sort ROLE or --order cluster, not both");
  int sort_role = -1;
  if (!o.sort.empty()) sort_role = int(parse_head_role(o.sort));
  if (!o.role.empty() && o.role != "local" && o.role != "broad") parse_head_role(o.role);  // a known name
  AnalysisOptions options;
  options.threads = o.threads;
  options.spectrum = false;
  options.role_options.local_window = o.local_window;
  options.role_options.threshold = o.threshold;
  options.role_options.chance_margin = o.chance_margin;
  options.role_options.probe_seeds = o.probe_seeds;
  options.role_options.probe_seed = o.probe_seed;
  const ModelRequest request = model_request(o.model);
  require_input(request);
  const std::shared_ptr<const RunAnalysis> a = analyse(request, options);
  HeadRoles roles = a->roles;
  if (o.null_models > 0) roles.null = null_head_roles(request, a->run, o.null_models, o.null_seed, options);
  if (!o.json.empty()) {
    const auto write = [&](std::ostream& out) {
      write_head_roles_json(out, roles);
      out << '\n';
    };
    write_output(o.json, write);
    return 0;
  }
  // Highest score first (unmeasured last); without --sort, layer and head order.
  std::vector<HeadIndex> ranked = rank_heads(roles, sort_role >= 0 ? sort_role : kSortByLayer, sort_role >= 0, o.role);
  if (o.order == "cluster") {
    // Layer by layer, each layer's heads in their clustering's leaf order (similar heads together).
    std::vector<HeadIndex> clustered;
    for (int l = 0; l < roles.n_layers(); ++l)
      for (int h : cluster_heads(a->distance[size_t(l)]).order)
        for (const HeadIndex& i : ranked)
          if (i.layer == l && i.head == h) clustered.push_back(i);
    ranked = clustered;
  }
  std::vector<Row> rows;
  for (const HeadIndex& i : ranked)
    rows.push_back({i.layer, i.head, &roles.scores[size_t(i.layer)][size_t(i.head)], &roles.label[size_t(i.layer)][size_t(i.head)]});
  if (o.top > 0 && int(rows.size()) > o.top) rows.resize(size_t(o.top));
  const AttentionRun& run = a->run;
  std::cout << run.info.name << ": " << run.n_tokens() << " tokens, " << roles.n_layers()
            << (roles.n_layers() == 1 ? " layer x " : " layers x ") << roles.n_heads() << " heads";
  if (roles.induction_measured) {
    std::cout << "; induction: the mean over " << roles.probe_seeds << (roles.probe_seeds == 1 ? " probe" : " probes")
              << " of 2 x " << roles.options.probe_length << " random tokens";
    float widest = 0;
    for (const auto& layer : roles.induction_ci95)
      for (float w : layer) widest = std::max(widest, w);
    if (!roles.induction_ci95.empty()) std::cout << " (95% intervals +/- " << format("%.3f", double(widest)) << " at most)";
  }
  else std::cout << "; no induction probe (this model runs only its own input)";
  if (run.compact()) std::cout << "; scores over " << roles.query_rows << " sampled query rows";
  std::cout << "\n";
  if (sort_role >= 0) std::cout << "ranked by " << head_role_name(HeadRole(sort_role)) << "\n";
  if (o.order == "cluster") std::cout << "each layer's heads in cluster order (average linkage on the head distance)\n";
  std::cout << "\n rank  layer  head";
  for (int r = 0; r < kHeadRoleCount; ++r) {
    char buf[16];
    std::snprintf(buf, sizeof buf, " %9s", head_role_name(HeadRole(r)));
    std::cout << buf;
  }
  std::cout << "  role\n";
  // Chance: what uniform attention over the visible keys scores (one row per distinct mask).
  for (int l = 0; l < int(roles.chance.size()); ++l) {
    bool first_of_its_kind = true;
    for (int k = 0; k < l; ++k) first_of_its_kind = first_of_its_kind && !same_role_scores(roles.chance[size_t(k)], roles.chance[size_t(l)]);
    if (!first_of_its_kind) continue;
    std::string name = "chance";
    if (!roles.chance_same_everywhere()) {
      std::vector<int> layers;
      for (int k = l; k < int(roles.chance.size()); ++k)
        if (same_role_scores(roles.chance[size_t(k)], roles.chance[size_t(l)])) layers.push_back(k);
      name += layers.size() <= 3 ? " L" + join_ints(layers) : " " + std::to_string(layers.size()) + " layers";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%-18s", name.c_str());
    std::cout << buf;
    for (int r = 0; r < kHeadRoleCount; ++r) std::cout << "    " << cell(roles.chance[size_t(l)].score[r]);
    std::cout << "\n";
  }
  print_null_rows(roles.null);
  int rank = 0;
  for (const Row& row : rows) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%5d  %5d  %4d", ++rank, row.layer, row.head);
    std::cout << buf;
    for (int r = 0; r < kHeadRoleCount; ++r) std::cout << "    " << cell(row.s->score[r]);
    std::cout << "  " << head_label_text(*row.label) << "\n";
  }
  if (rows.empty()) std::cout << "(no head labelled " << o.role << ")\n";
  std::cout << "\nrole: " << roles.label_rule() << "\n";
  std::cout << "chance: what uniform attention over the keys each query may see scores on the same tokens and mask\n";
  if (roles.null.models > 0) {
    std::cout << "null mean, null sd: every head of " << roles.null.models << " random-weight "
              << (roles.null.models == 1 ? "model" : "models") << " of this shape on the same tokens and probes ("
              << roles.null.initialisation << ")\n";
  }
  for (int r = 0; r < kHeadRoleCount; ++r) std::cout << "  " << head_role_definition(HeadRole(r)) << "\n";
  return 0;
}

}  // namespace

Command add_heads_command(CLI::App& app) {
  auto options = std::make_shared<HeadsOptions>();
  CLI::App* sub = app.add_subcommand("heads", "Score what each head does (previous-token, sink, induction, ...) and rank the heads");
  add_model_flags(*sub, options->model);
  // The roles as the table's legend and the app's Head roles view define them.
  std::string roles = "Roles (each a mean over query rows, 0 to 1):\n";
  for (int r = 0; r < kHeadRoleCount; ++r) roles += std::string("  ") + head_role_definition(HeadRole(r)) + "\n";
  sub->footer(roles + "Labels: " + head_label_rule(RoleOptions{}.threshold, RoleOptions{}.chance_margin) +
              " (--threshold changes 0.40, --chance-margin 0.10). Chance: the score of uniform attention over the keys "
              "each query may see, on the same tokens (the table's chance row; docs/analysis.md).");
  options->sort_option = sub->add_option("--sort", options->sort, "Rank the heads by this role's score, highest first (default: layer, head order)");
  options->role_option = sub->add_option("--role", options->role, flag_help("role", "Only heads labelled with it (or 'broad')"));
  options->top_option = sub->add_option("--top", options->top, flag_help("top", "Default: every head"));
  sub->add_option("--local-window", options->local_window, "Keys fewer than this many positions away count as local")
      ->capture_default_str();
  sub->add_option("--threshold", options->threshold, "A head is labelled with its strongest role at or above this score")
      ->check(float_between("threshold", 0, 1))
      ->capture_default_str();
  sub->add_option("--probe-seeds", options->probe_seeds,
                  "Induction: the mean over this many probes (seeds --probe-seed, +1, ...), with a 95% interval in --json")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--probe-seed", options->probe_seed, "Induction: the first probe's seed")->capture_default_str();
  sub->add_option("--chance-margin", options->chance_margin,
                  "A role labels a head only when its score is at least its chance level plus this")
      ->check(float_between("chance margin", 0, 1))
      ->capture_default_str();
  sub->add_option("--null", options->null_models,
                  "Also score N random-weight models of this shape on the same tokens (null_mean, null_sd; docs/analysis.md)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--null-seed", options->null_seed, "--null: the first random-weight model's seed (the next +1, ...)")
      ->capture_default_str();
  options->json_option = sub->add_option("--json", options->json, flag_help("json", "The head_roles object"));
  add_threads_flag(*sub, options->threads);
  options->order_option = add_order_flag(*sub, options->order, "The table's rows");
  sub->add_option("--corpus", options->corpus,
                  "Score every line of this text file (one sentence a line) and write each head's mean, std, min and max "
                  "as JSON lines to --json (default: standard output); docs/head-roles-corpus.md");
  options->shard_option = sub->add_option("--shard", options->shard,
                                          "With --corpus: only the lines whose 0-based index i has i % N == I (I/N, e.g. 0/4)");
  options->merge_option = sub->add_option("--merge", options->merge,
                                          "Join the JSON lines of --corpus shards into one result (as one unsharded run)")
                              ->expected(1, -1);
  sub->add_flag("--quiet", options->quiet, flag_help("quiet", "With --corpus"));
  return [options] { return run_heads(*options); };
}

}  // namespace hs::cli
