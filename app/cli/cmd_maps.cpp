// `headscope-cli maps`: run the engine, write every head's map as JSON (--json), or print a
// human-readable report (tokens, where one query looks head by head, the difference table).
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/text_report.h"
#include "app/common/model_flags.h"
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
  int query = 0;
  int layer = 0;
  int display_size = 0;
  CLI::Option* json_option = nullptr;
  CLI::Option* repeat_option = nullptr;
  CLI::Option* threads_option = nullptr;
};

constexpr int kMaxRepeat = 100000;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int run_maps(const MapsOptions& o) {
  if (o.json_option->count() > 0 && o.json.empty()) throw InputError("--json needs a file name, or '-' for standard output");
  if (o.repeat_option->count() > 0 && o.repeat < 1) throw InputError("--repeat (" + std::to_string(o.repeat) + ") must be 1 or more");
  if (o.repeat > kMaxRepeat) throw InputError("--repeat (" + std::to_string(o.repeat) + ") exceeds the limit of " + std::to_string(kMaxRepeat));
  if (o.threads_option->count() > 0 && o.threads < 1) {
    throw InputError("--threads (" + std::to_string(o.threads) + ") must be 1 or more (omit it to use all cores)");
  }
  if (o.display_size < 0) throw InputError("--display-size (" + std::to_string(o.display_size) + ") must be 1 or more");
  if (o.display_size > 0 && !o.json.empty()) {
    throw InputError("--json writes whole [T, T] maps; it does not combine with --display-size (long-input mode)");
  }
  const ModelRequest request = model_request(o.model);
  const std::unique_ptr<Prepared> prepared = prepare(request);
  RunOptions run_options;
  run_options.threads = o.threads;
  run_options.display_size = o.display_size;

  AttentionRun run;
  MapsJsonExtras extras;
  if (o.repeat > 0) {
    std::vector<double> ms;
    for (int i = 0; i < o.repeat; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      run = prepared->run(run_options);
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    extras.compute_ms_median = median(ms);
    extras.repeat = o.repeat;
    extras.threads = o.threads;
  } else {
    run = prepared->run(run_options);
  }

  if (o.json.empty()) {
    if (run.compact()) print_compact_report(std::cout, run, o.layer, o.query);
    else print_text_report(std::cout, run, o.layer, o.query);
    if (extras.compute_ms_median) std::cout << "\ncompute time (median of " << o.repeat << "): " << *extras.compute_ms_median << " ms\n";
    return 0;
  }
  if (o.json == "-") {
    write_maps_json(std::cout, run, extras);
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write the JSON to standard output");
  } else {
    write_file_atomic(o.json, [&](std::ostream& out) { write_maps_json(out, run, extras); });
  }
  return 0;
}

}  // namespace

Command add_maps_command(CLI::App& app) {
  auto options = std::make_shared<MapsOptions>();
  CLI::App* sub = app.add_subcommand("maps", "Run the engine and write every head's attention map as JSON");
  add_model_flags(*sub, options->model);
  options->json_option = sub->add_option("--json", options->json, "Write the maps as JSON to FILE ('-' for standard output)");
  options->repeat_option = sub->add_option("--repeat", options->repeat, "Run the computation N times and report the median engine time");
  options->threads_option = sub->add_option("--threads", options->threads, "Cap the engine's threads (default: all cores)");
  sub->add_option("--query", options->query, "Text report: the query token whose row to show per head")->capture_default_str();
  sub->add_option("--layer", options->layer, "Text report: the layer to show")->capture_default_str();
  sub->add_option("--display-size", options->display_size,
                  "Long inputs: keep no T x T map, only N x N block maxima per head, exact head numbers and exact "
                  "rows (the report then lists each head's strongest keys for --query)");
  return [options] { return run_maps(*options); };
}

}  // namespace hs::cli
