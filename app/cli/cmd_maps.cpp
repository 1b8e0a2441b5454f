// `headscope-cli maps`: run the engine, write every head's map as JSON (--json), or print a
// human-readable report (tokens, where one query looks head by head, the head distance table).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <cstdio>
#include <optional>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/cli/text_report.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/long_input.h"
#include "core/analysis/run_analysis.h"
#include "core/export/maps_json.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::cli {
namespace {

struct MapsOptions {
  ModelFlags model;
  std::string json;
  int repeat = 0;
  int threads = 0;
  int query = -1;  // -1: the last token (in a causal model token 0 sees only itself)
  int layer = 0;
  int head = -1;
  int display_size = 0;
  bool whole_maps = false;
  bool long_input = false;  // --long-input: long-input mode; with --json, its JSON (block maxima, exact numbers)
  CLI::Option* json_option = nullptr;
  CLI::Option* display_size_option = nullptr;
  CLI::Option* query_option = nullptr;
  CLI::Option* repeat_option = nullptr;
  CLI::Option* layer_option = nullptr;
  CLI::Option* head_option = nullptr;
};

constexpr int kMaxRepeat = 100000;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// --json needs whole maps: a run that the long-input rule would not keep whole is refused before
// the engine runs, saying why and which flag to use.
void refuse_long_json(const MapPlan& plan) {
  if (plan.display_size == 0 || plan.kept.layer >= 0) return;  // whole maps, or the asked-for layer kept whole
  // JSON spends about 11 bytes per weight ("0.123456789,").
  const double json_bytes = double(plan.tokens) * double(plan.tokens) * double(plan.maps) * 11.0;
  throw InputError("--json writes whole T x T maps, and this input is in long-input mode (" + plan.reason +
                   "): its JSON would take about " + gib(json_bytes) +
                   "; add --whole-maps to write whole maps anyway, --long-input to write the long-input result (block "
                   "maxima, exact per-head numbers), --layer L [--head H] to write it with that layer's (head's) whole "
                   "maps, or leave out --json for the long-input report");
}

// --json --layer L [--head H] on a long input: the layer and head must exist (the run keeps nothing otherwise).
void check_kept_in_range(const AttentionRun& run, int layer, int head) {
  if (layer >= run.n_layers()) {
    throw InputError("--layer " + std::to_string(layer) + " is out of range: the model has " +
                     std::to_string(run.n_layers()) + " layers (0 to " + std::to_string(run.n_layers() - 1) + ")");
  }
  if (head >= run.n_heads()) {
    throw InputError("--head " + std::to_string(head) + " is out of range: each layer has " + std::to_string(run.n_heads()) +
                     " heads (0 to " + std::to_string(run.n_heads() - 1) + ")");
  }
}

// --repeat: where the whole analysis went, part by part (ms; the engine summed over the runs).
void print_analysis_times(std::ostream& out, const RunAnalysis& a) {
  const AnalysisTimes& t = a.times;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "analysis time: %.1f ms (prepare %.1f, engine %.1f, pairs %.1f, average %.1f, per-head %.1f, rollout "
                "%.1f, roles %.1f)\n",
                a.compute_ms, t.prepare, t.engine, t.pairs, t.average, t.per_head, t.rollout, t.roles);
  out << buf;
}

int run_maps(const MapsOptions& o) {
  if (o.json_option->count() > 0 && o.json.empty()) throw InputError("--json needs a file name, or '-' for standard output");
  if (o.repeat_option->count() > 0 && o.repeat < 1) throw InputError("--repeat (" + std::to_string(o.repeat) + ") must be 1 or more");
  if (o.repeat > kMaxRepeat) throw InputError("--repeat (" + std::to_string(o.repeat) + ") exceeds the limit of " + std::to_string(kMaxRepeat));
  const bool display_given = o.display_size_option->count() > 0;
  if (display_given && (o.display_size < 1 || o.display_size > kMaxDisplaySize)) {
    throw InputError("--display-size (" + std::to_string(o.display_size) + ") must be from 1 to " +
                     std::to_string(kMaxDisplaySize) + " cells per side");
  }
  if (display_given && o.whole_maps) throw InputError("give either --display-size (long-input mode) or --whole-maps, not both");
  if (display_given && !o.json.empty() && !o.long_input) {
    throw InputError("--json writes whole [T, T] maps; it does not combine with --display-size (long-input mode); add "
                     "--long-input to write the long-input result as JSON");
  }
  if (o.long_input && o.whole_maps) throw InputError("give either --long-input or --whole-maps, not both");
  AnalysisOptions options;
  options.threads = o.threads;
  options.spectrum = false;  // neither the JSON nor the report shows singular values
  options.reach = o.repeat == 0;  // reachable keys keep the scores: a timing run (--repeat) times the engine alone
  options.repeat = std::max(1, o.repeat);
  options.maps = display_given || o.long_input ? MapMode::long_input : o.whole_maps ? MapMode::whole : MapMode::automatic;
  options.display_size = display_given ? o.display_size : 0;
  if (!o.json.empty() && !o.long_input) options.check_plan = refuse_long_json;
  // The JSON holds the head roles (with the induction probe) and the rollout; the text report shows neither.
  options.roles = options.rollout = !o.json.empty();
  // --json --layer L [--head H]: a long input keeps that layer's (head's) whole maps in the JSON.
  const bool head_given = o.head_option->count() > 0;
  if (head_given && o.json.empty()) throw InputError("--head is for --json: the head whose whole map a long input keeps");
  const bool keep_asked = !o.json.empty() && !o.whole_maps && (o.layer_option->count() > 0 || head_given);
  if (keep_asked && (o.layer < 0 || (head_given && o.head < 0))) {
    throw InputError((o.layer < 0 ? "--layer (" + std::to_string(o.layer) : "--head (" + std::to_string(o.head)) +
                     ") must be 0 or more");
  }
  if (keep_asked) options.keep = head_given ? MapSelection::of_head(o.layer, o.head) : MapSelection::of_layer(o.layer);
  const ModelRequest request = model_request(o.model);
  require_input(request);
  const std::shared_ptr<const RunAnalysis> analysis = analyse(request, options);
  const AttentionRun& run = analysis->run;
  if (keep_asked && run.compact()) check_kept_in_range(run, o.layer, head_given ? o.head : -1);

  MapsJsonExtras extras;
  if (o.repeat > 0) {
    extras.compute_ms_median = median(analysis->engine_ms);
    extras.repeat = o.repeat;
    extras.threads = o.threads;
  }
  if (o.json.empty()) {
    const int query = o.query_option->count() > 0 ? o.query : run.n_tokens() - 1;
    if (run.compact()) print_compact_report(std::cout, *analysis, o.layer, query, display_given ? o.display_size : 0);
    else print_text_report(std::cout, *analysis, o.layer, query);
    if (extras.compute_ms_median) {
      std::cout << "\ncompute time (median of " << o.repeat << "): " << *extras.compute_ms_median << " ms\n";
      print_analysis_times(std::cout, *analysis);
    }
    return 0;
  }
  for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";  // e.g. words read as <unk>
  if (run.compact() && display_given) {
    if (const std::string note = display_size_note(*analysis, o.display_size); !note.empty()) std::cerr << "note: " << note << "\n";
  }
  write_output(o.json, [&](std::ostream& out) { write_maps_json(out, *analysis, extras); });
  return 0;
}

}  // namespace

Command add_maps_command(CLI::App& app) {
  auto options = std::make_shared<MapsOptions>();
  CLI::App* sub = app.add_subcommand("maps", "Run the engine and write every head's attention map as JSON");
  add_model_flags(*sub, options->model);
  options->json_option = sub->add_option("--json", options->json, flag_help("json", "Every head's map"));
  options->repeat_option = sub->add_option("--repeat", options->repeat, "Run the computation N times and report the median engine time");
  add_threads_flag(*sub, options->threads);
  options->query_option = sub->add_option("--query", options->query, flag_help("query", "Text report: the row shown per head"));
  options->layer_option =
      sub->add_option("--layer", options->layer,
                      flag_help("layer", "Text report: the layer shown. With --json on a long input (long-input mode): "
                                         "that layer's whole maps are kept, in long_input.kept_maps"))
          ->capture_default_str();
  options->head_option = sub->add_option(
      "--head", options->head, flag_help("head", "With --json --layer L on a long input: keep only that head's whole map"));
  options->display_size_option = sub->add_option(
      "--display-size", options->display_size,
      "Long-input mode: keep no T x T map, only N x N block maxima per head, exact head numbers and exact rows (the "
      "report then lists each head's strongest keys for --query). Without it, inputs past 2048 tokens or 1 GiB of "
      "whole maps use long-input mode by themselves, as the app does");
  sub->add_flag("--long-input", options->long_input,
                flag_help("long-input", "At --display-size N, or 1024 cells per side (512 past 16 maps); with --json, "
                                        "write its result: block maxima, block size, exact per-head numbers"));
  sub->add_flag("--whole-maps", options->whole_maps, flag_help("whole-maps", "Still within the memory limit"));
  return [options] { return run_maps(*options); };
}

}  // namespace hs::cli
