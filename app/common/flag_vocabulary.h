#pragma once
// One vocabulary for the flags of headscope-cli's commands and of headscope: a flag that more than
// one of them takes means the same there and takes the same values. Its help starts with the one
// meaning below (flag_help), then what it does in that command; flags with choices are added here
// (their checks and choices in one place); an older name stays as an alias that does the same and
// says on standard error which flag to use. tests/cli/shared_flags.py reads every command's --help
// and checks that each flag shared by two commands has one meaning and one set of choices.
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace hs {

// A flag of the vocabulary: its --help group, and for a flag several commands take, its meaning
// (the first sentence of its help everywhere).
struct FlagWord {
  const char* name;     // without the dashes: "layer"
  const char* group;    // --help's group: Input, Model, View, Output and export
  const char* meaning;  // "" for a flag of one command
};
const std::vector<FlagWord>& flag_vocabulary();

// "<meaning>. <detail>" for the flag `name` (without dashes); the detail alone for a flag with no
// shared meaning.
std::string flag_help(const std::string& name, const std::string& detail = "");

// --color-scale linear|log|row: the colour scale of heatmaps.
CLI::Option* add_color_scale_flag(CLI::App& app, std::string& value, const std::string& detail = "");
// --colormap NAME (every colormap of core/render/colormap.h).
CLI::Option* add_colormap_flag(CLI::App& app, std::string& value, const std::string& detail = "");
// --ablation zero|mean: how a head is knocked out.
CLI::Option* add_ablation_flag(CLI::App& app, std::string& value, const std::string& detail = "");
// --threads N: the engine's threads (0 or absent: every core).
CLI::Option* add_threads_flag(CLI::App& app, int& value);
// --order model|cluster: heads in model order or by their clustering.
CLI::Option* add_order_flag(CLI::App& app, std::string& value, const std::string& detail = "");
// --view NAME: a view of core/export/view_registry.h, by name or alias.
CLI::Option* add_view_flag(CLI::App& app, std::string& value, const std::string& detail = "");

// An older name of `target` (added above): takes the same values, sets the same variable, and
// prints "note: --OLD is --NEW; use --NEW VALUE" on standard error. `fixed` non-empty: the alias
// takes no value and stands for `--NEW fixed` (`--mean` for `--ablation mean`).
CLI::Option* add_alias(CLI::App& app, const std::string& old_name, CLI::Option* target, std::string& value,
                       const std::string& fixed = "");

}  // namespace hs
