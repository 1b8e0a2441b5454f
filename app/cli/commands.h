#pragma once
// headscope-cli's subcommands. Each registers its flags on the parent app and returns the
// function to run after parsing; errors propagate as hs::Error to main's single catch.
#include <CLI/CLI.hpp>
#include <functional>

namespace hs::cli {

using Command = std::function<int()>;

Command add_maps_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_heads_command(CLI::App& app);
Command add_ablate_command(CLI::App& app);
Command add_tokens_command(CLI::App& app);
Command add_compare_command(CLI::App& app);

}  // namespace hs::cli
