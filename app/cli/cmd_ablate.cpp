// `headscope-cli ablate`: which heads matter for this sentence (core/analysis/head_ablation.h).
// Knocks out one head at a time (--ablation zero or mean) and prints the heads ranked by how much the
// mean next-token loss rises without them, with the tokens whose prediction changed most; --json
// writes every number.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/common/flag_vocabulary.h"
#include "app/common/model_flags.h"
#include "core/analysis/head_ablation.h"
#include "core/formats/json_text.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs::cli {
namespace {

struct AblateOptions {
  ModelFlags model;
  std::string ablation = "zero";
  std::string json;
  int top = 10;
  int threads = 0;
  CLI::Option* json_option = nullptr;
};

void write_json(std::ostream& out, const HeadAblation& a) {
  out << "{\"mode\":" << json_string(ablation_mode_name(a.mode)) << ",\"token_ids\":[";
  for (size_t i = 0; i < a.ids.size(); ++i) out << (i ? "," : "") << a.ids[i];
  out << "],\"tokens\":[";
  for (size_t i = 0; i < a.tokens.size(); ++i) out << (i ? "," : "") << json_string(a.tokens[i]);
  out << "],\"base_loss\":";
  write_json_float(out, float(a.base_loss));
  out << ",\"base_logprob\":";
  write_json_vector(out, a.base_logprob);
  out << ",\"delta_loss\":";
  write_json_matrix(out, a.delta_loss);
  out << ",\"delta_logprob\":[";
  for (int l = 0; l < a.n_layers(); ++l) {
    out << (l ? "," : "") << '[';
    for (int h = 0; h < a.n_heads(); ++h) {
      if (h) out << ',';
      write_json_vector(out, a.delta_logprob[size_t(l)][size_t(h)]);
    }
    out << ']';
  }
  out << "],\"compute_ms\":";
  write_json_float(out, float(a.compute_ms));
  out << "}\n";
}

int run_ablate(const AblateOptions& o) {
  if (o.json_option->count() > 0 && o.json.empty()) throw InputError("--json needs a file name, or '-' for standard output");
  if (o.top < 0) throw InputError("--top (" + std::to_string(o.top) + ") must be 0 (every head) or more");
  AblationOptions options;
  options.mode = o.ablation == "mean" ? AblationMode::mean : AblationMode::zero;
  options.threads = o.threads;
  const ModelRequest request = model_request(o.model);
  require_input(request);
  const HeadAblation a = ablate_heads(request, options);
  if (!o.json.empty()) {
    write_output(o.json, [&](std::ostream& out) { write_json(out, a); });
    return 0;
  }
  const int L = a.n_layers(), H = a.n_heads(), n = int(a.base_logprob.size());
  std::printf("%d tokens; mean next-token loss %.4f nats; each head knocked out (%s ablation), %d forward passes\n",
              int(a.ids.size()), a.base_loss, ablation_mode_name(a.mode), L * H + 1);
  std::vector<std::pair<int, int>> heads;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) heads.push_back({l, h});
  std::stable_sort(heads.begin(), heads.end(), [&](const auto& x, const auto& y) {
    return a.delta_loss(x.first, x.second) > a.delta_loss(y.first, y.second);
  });
  if (o.top > 0 && int(heads.size()) > o.top) heads.resize(size_t(o.top));
  std::printf("\n rank  layer  head  loss change  tokens whose log-prob fell most (next token: change)\n");
  int rank = 0;
  for (const auto& [l, h] : heads) {
    const Vec& d = a.delta_logprob[size_t(l)][size_t(h)];
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) { return d(x) < d(y); });
    std::string worst;
    for (size_t i = 0; i < std::min<size_t>(3, order.size()); ++i) {
      const int t = order[i];
      const std::string tok = a.tokens.empty() ? std::to_string(a.ids[size_t(t + 1)]) : a.tokens[size_t(t + 1)];
      worst += (i ? ", " : "") + tok + ": " + format_change(double(d(t)), 3);
    }
    std::printf("%5d  %5d  %4d  %11s  %s\n", ++rank, l, h, format_change(double(a.delta_loss(l, h)), 4).c_str(), worst.c_str());
  }
  std::printf("\nloss change: mean next-token loss without the head minus with it (positive: the head helps)\n");
  return 0;
}

}  // namespace

Command add_ablate_command(CLI::App& app) {
  auto options = std::make_shared<AblateOptions>();
  CLI::App* sub = app.add_subcommand("ablate", "Knock out one head at a time and rank the heads by how much the next-token loss rises");
  add_model_flags(*sub, options->model);
  CLI::Option* ablation = add_ablation_flag(*sub, options->ablation);
  add_alias(*sub, "--mean", ablation, options->ablation, "mean");
  sub->add_option("--top", options->top, flag_help("top", "0: every head"))->capture_default_str();
  options->json_option = sub->add_option("--json", options->json, flag_help("json", "Every number"));
  add_threads_flag(*sub, options->threads);
  return [options] { return run_ablate(*options); };
}

}  // namespace hs::cli
