#include "app/common/flag_vocabulary.h"

#include <CLI/CLI.hpp>

#include <cassert>
#include <iostream>

#include "app/common/friendly_errors.h"
#include "app/common/model_flags.h"
#include "core/export/view_registry.h"
#include "core/render/colormap.h"
#include "core/session/session_file.h"
#include "core/util/suggest.h"

namespace hs {

const std::vector<FlagWord>& flag_vocabulary() {
  static const std::vector<FlagWord> words = {
      // Input
      {"sentence", "Input", "The text, read by the model's tokenizer"},
      {"sentence-b", "Input", ""}, {"input", "Input", ""}, {"input-ids", "Input", ""}, {"token-type-ids", "Input", ""},
      {"attention", "Input", ""}, {"generate", "Input", ""}, {"fit-context", "Input", ""}, {"corpus", "Input", ""},
      {"shard", "Input", ""}, {"merge", "Input", ""}, {"probe-seed", "Input", ""},
      {"contrast", "Input", "Sentence B of a minimal pair, compared with --sentence token by token"},
      {"target", "Input", "A continuation (\" are\"), read by the model's tokenizer after the sentence"},
      {"versus", "Input", "The continuation --target is compared with (\" is\")"},
      {"target-position", "Input", ""}, {"reference", "Input", ""},
      {"patch", "Input", "Activation patching: each head's share of the logit-difference gap (needs --target, --versus)"},
      // Model
      {"model", "Model",
       "A checkpoint (llama2.c .bin, GGUF file, Hugging Face folder) or a model that comes with headscope: "
       "teaching (hand-wired heads), stories260K (trained, shipped)"},
      {"tokenizer", "Model", "The tokenizer file of a llama2.c checkpoint (tokenizer.bin)"},
      {"model-b", "Model", "The model compared with --model on the same input (a file, a folder or a shipped model)"},
      {"tokenizer-b", "Model", "Model B's tokenizer file when it is a llama2.c checkpoint (default: --tokenizer when B is a .bin)"},
      {"memory-budget", "Model", "The memory a run may take: two models together (checked before either is read) and, in the app, a long text's opened exact map; MiB (8192) or a size (8G; K, M, G are powers of 1024)"},
      {"threads", "Model", "The threads the engine may use (default: every core)"},
      {"d-model", "Model", ""}, {"heads", "Model", ""}, {"kv-heads", "Model", ""}, {"d-head", "Model", ""},
      {"seed", "Model", ""}, {"causal", "Model", ""}, {"scrambled-reshape", "Model", ""}, {"window", "Model", ""},
      {"temperature", "Model", ""}, {"weights", "Model", ""},
      // View
      {"view", "View", "The view, by its name in the app's tabs (a part of a tab opens that tab showing it)"},
      {"layer", "View", "The layer, from 0"},
      {"head", "View", "The head, from 0"},
      {"all-layers", "View", "Every layer: the layers x heads overview"},
      {"query", "View", "The query token, by index from 0 (default: the last token)"},
      {"rollout", "View", "The attention rollout through every layer instead of the layer's average"},
      {"role", "View", "A head role (previous, first, bos, self, local, duplicate, induction, broadness)"},
      {"order", "View", "Head order: model (layer, head) or cluster (each layer's heads by average-linkage clustering of "
                        "the head distance, similar heads together)"},
      {"colormap", "View", "The maps' colours"},
      {"color-scale", "View", "The heatmaps' colour scale: linear, log (three decades below the largest weight) or row "
                              "(each row's share of its largest weight)"},
      {"ignore-first-key", "View", "Leave key 0 out of the colour range (the first token often takes most of the weight)"},
      {"ablation", "View", "How a head is knocked out: zero (its output 0) or mean (its output's mean over the sentence)"},
      {"top", "View", "How many rows the report lists"},
      {"knock-out", "View", ""},
      {"whole-maps", "View", "Keep whole T x T maps even past the long-input rule (2048 tokens or 1 GiB of maps)"},
      {"long-input", "View", "Long-input mode whatever the length: block maxima and exact per-head numbers, no whole maps"},
      {"per-head-range", "View", ""}, {"layer-range", "View", ""}, {"sort", "View", ""}, {"threshold", "View", ""}, {"chance-margin", "View", ""}, {"probe-seeds", "View", ""},
      {"local-window", "View", ""}, {"display-size", "View", ""}, {"clustered", "View", ""}, {"zoom", "View", ""},
      {"present", "View", ""}, {"theme", "View", ""}, {"pattern", "View", ""}, {"fit-widths", "View", ""},
      // Older names (add_alias), in their flag's group.
      {"scale", "View", ""}, {"ablate", "View", ""}, {"mean", "View", ""}, {"ablation-mode", "View", ""},
      // Output and export
      {"out", "Output and export", "The output file; its extension picks the format"},
      {"json", "Output and export", "Write JSON to FILE ('-' for standard output)"},
      {"size", "Output and export", "The figure's page size with a unit (in, cm, mm, pt, px): 3.25x3.25in, 8x6cm"},
      {"out-dir", "Output and export", ""}, {"format", "Output and export", ""}, {"csv-layout", "Output and export", ""},
      {"figure-scale", "Output and export", ""}, {"dpi", "Output and export", ""}, {"font-size", "Output and export", ""},
      {"title", "Output and export", ""}, {"no-title", "Output and export", ""}, {"no-caption", "Output and export", ""}, {"labels", "Output and export", ""},
      {"space-mark", "Output and export", ""}, {"colorbar-label", "Output and export", ""}, {"style", "Output and export", ""},
      {"repeat", "Output and export", ""}, {"csv", "Output and export", ""},
      {"what", "Output and export", ""}, {"preset", "Output and export", ""},
      {"quiet", "Output and export", "No progress or notes on standard error"},
      {"progress", "Output and export", ""}, {"measure-only", "View", ""},
  };
  return words;
}

std::string flag_help(const std::string& name, const std::string& detail) {
  for (const FlagWord& w : flag_vocabulary()) {
    if (name != w.name || !*w.meaning) continue;
    return detail.empty() ? std::string(w.meaning) : std::string(w.meaning) + ". " + detail;
  }
  assert(!detail.empty() && "a flag without a shared meaning needs its own help");
  return detail;
}

namespace {

std::vector<std::string> colormap_names() {
  std::vector<std::string> names;
  for (Colormap c : all_colormaps()) names.emplace_back(colormap_name(c));
  return names;
}

}  // namespace

CLI::Option* add_color_scale_flag(CLI::App& app, std::string& value, const std::string& detail) {
  return app.add_option("--color-scale", value, flag_help("color-scale", detail))
      ->check(one_of("colour scale", session_color_scales()))
      ->capture_default_str();
}

CLI::Option* add_colormap_flag(CLI::App& app, std::string& value, const std::string& detail) {
  return app.add_option("--colormap", value,
                        flag_help("colormap", detail + (detail.empty() ? "" : ". ") + "One of " + or_list(colormap_names())))
      ->check(one_of("colormap", colormap_names()))
      ->capture_default_str();
}

CLI::Option* add_ablation_flag(CLI::App& app, std::string& value, const std::string& detail) {
  return app.add_option("--ablation", value, flag_help("ablation", detail))
      ->check(one_of("ablation", {"zero", "mean"}))
      ->capture_default_str();
}

CLI::Option* add_threads_flag(CLI::App& app, int& value) {
  return app.add_option("--threads", value, flag_help("threads"))->check(whole_number("threads", 1, 4096));
}

CLI::Option* add_order_flag(CLI::App& app, std::string& value, const std::string& detail) {
  return app.add_option("--order", value, flag_help("order", detail))->check(one_of("order", {"model", "cluster"}))->capture_default_str();
}

CLI::Option* add_view_flag(CLI::App& app, std::string& value, const std::string& detail) {
  return app.add_option("--view", value, flag_help("view", detail + (detail.empty() ? "" : "\n") + view_help()))
      ->check(one_of("view", view_names()))
      ->capture_default_str();
}

CLI::Option* add_alias(CLI::App& app, const std::string& old_name, CLI::Option* target, std::string& value,
                       const std::string& fixed) {
  const std::string new_name = target->get_name();
  const std::string help = "Older name of " + new_name + (fixed.empty() ? "" : " " + fixed) + " (prints a note)";
  if (!fixed.empty()) {
    return app.add_flag_callback(
        old_name, [&value, old_name, new_name, fixed] {
          value = fixed;
          std::cerr << "note: " << old_name << " is " << new_name << " " << fixed << "; use " << new_name << " " << fixed << "\n";
        },
        help);
  }
  CLI::Option* alias = app.add_option_function<std::string>(
      old_name,
      [&value, old_name, new_name](const std::string& v) {
        value = v;
        std::cerr << "note: " << old_name << " is " << new_name << "; use " << new_name << " " << v << "\n";
      },
      help);
  alias->check(*target->get_validator(0));  // the same values as the flag (every target has a check)
  alias->excludes(target);
  return alias;
}

}  // namespace hs
