// `headscope-cli export`: figures and data files (see ../shared/CLI_CONTRACT.md).
#include <memory>

#include "app/cli/commands.h"
#include "app/common/model_flags.h"
#include "core/util/errors.h"

namespace hs::cli {

Command add_export_command(CLI::App& app) {
  auto flags = std::make_shared<ModelFlags>();
  auto out = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("export", "Write a figure (.png .svg .pdf) or data (.npy .csv .json)");
  add_model_flags(*sub, *flags);
  sub->add_option("--out", *out, "Output file; the extension picks the format");
  return [] () -> int { throw InputError("export is not implemented yet"); };
}

}  // namespace hs::cli
