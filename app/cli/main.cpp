// headscope-cli: the engine from a terminal or a script (docs/cli-contract.md).
// Exit codes: 0 success, 1 bad input or file (hs::Error), 2 bad command line.
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <new>
#include <string>

#include "app/cli/commands.h"
#include "app/common/environment.h"
#include "app/common/friendly_errors.h"
#include "app/common/memory_tuning.h"
#include "app/common/model_flags.h"
#include "core/formats/mapped_guard.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/suggest.h"

namespace {

// Messages go out as one line (file contents quoted in a message may hold newlines).
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that goes away (`headscope-cli maps --json - | head`) is a write error reported
  // on stderr with exit 1, not death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  // Ctrl+C, kill or a file-size limit in the middle of writing an output file leaves no
  // temporary file behind (core/util/atomic_file.h).
  hs::install_temp_file_cleanup();
  // A model file truncated while mapped is an error naming it, not death by SIGBUS (core/formats/mapped_guard.h).
  hs::install_mapped_file_guard();
  hs::keep_freed_memory_for_reuse();
  hs::apply_environment();  // core's limits from HEADSCOPE_* (app/common/environment.h)
  CLI::App app{"headscope-cli: every attention head's map, from the command line"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("headscope ") + HEADSCOPE_VERSION);
  std::map<const CLI::App*, hs::cli::Command> commands;
  try {
    hs::cli::Command maps = hs::cli::add_maps_command(app);
    hs::cli::Command exporter = hs::cli::add_export_command(app);
    commands[app.get_subcommand("maps")] = maps;
    hs::cli::Command heads = hs::cli::add_heads_command(app);
    commands[app.get_subcommand("export")] = exporter;
    commands[app.get_subcommand("heads")] = heads;
    hs::cli::Command ablate = hs::cli::add_ablate_command(app);
    commands[app.get_subcommand("ablate")] = ablate;
    hs::cli::Command tokens = hs::cli::add_tokens_command(app);
    commands[app.get_subcommand("tokens")] = tokens;
    hs::cli::Command compare = hs::cli::add_compare_command(app);
    commands[app.get_subcommand("compare")] = compare;
    hs::group_flags(app);  // --help in groups: input, model, view, output and export
    const std::vector<std::string> names = {"maps", "export", "heads", "ablate", "tokens", "compare"};
    bool known = false;
    for (const auto& entry : commands) known = known || (argc > 1 && entry.first->check_name(argv[1]));
    if (argc > 1 && argv[1][0] != '-' && !known) {
      std::cerr << "error: unknown command '" << one_line(argv[1]) << "'" << hs::did_you_mean(argv[1], names)
                << " (expected maps, export, heads, ablate, tokens or compare; run 'headscope-cli --help')\n";
      return 2;
    }
    hs::parse_arguments(app, argc, argv);  // "--sentence=" is an empty sentence, not the next flag
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    // One line: what was wrong, then where to look.
    std::cerr << "error: " << one_line(e.what()) << " (run 'headscope-cli --help' or 'headscope-cli <command> --help' for usage)\n";
    return 2;
  }
  try {
    for (const CLI::App* sub : app.get_subcommands()) return commands.at(sub)();
    return 2;
  } catch (const hs::Error& e) {
    std::cerr << "error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // Loaders name what they could not allocate (a checkpoint's weights); this is the rest: the
    // maps, the figure or the output text of a run.
    std::cerr << "error: out of memory while running: the input or the model is too large for the memory available "
                 "(try a shorter sentence or fewer heads)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << one_line(e.what()) << "\n";
    return 1;
  }
}
