#include "app/common/environment.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/model/attention_layer.h"
#include "core/model/shipped_models.h"
#include "core/util/kernels.h"
#include "core/util/memory_info.h"

#ifndef HEADSCOPE_INSTALL_DATADIR  // set by app/CMakeLists.txt, with the two below
#define HEADSCOPE_INSTALL_DATADIR ""
#define HEADSCOPE_BUILD_DIR ""
#define HEADSCOPE_SOURCE_ASSETS_DIR ""
#endif

namespace hs {

void apply_environment() {
  if (const char* env = std::getenv("HEADSCOPE_MAX_MAP_BYTES")) set_max_map_bytes(std::atoll(env));
  if (const char* env = std::getenv("HEADSCOPE_KERNELS")) cap_kernels(env);
  if (const char* env = std::getenv("HEADSCOPE_MEMORY_AVAILABLE")) set_memory_override(env, "HEADSCOPE_MEMORY_AVAILABLE");
  if (const char* env = std::getenv("HEADSCOPE_SHIPPED_MODELS")) set_shipped_models_dir(env);
  std::vector<std::string> dirs;
  std::error_code error;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    dirs.push_back((program.parent_path() / "models").string());
    dirs.push_back((program.parent_path().parent_path() / "share" / "headscope" / "models").string());
  }
  if (*HEADSCOPE_INSTALL_DATADIR) dirs.push_back(std::string(HEADSCOPE_INSTALL_DATADIR) + "/headscope/models");
  std::error_code build_error;
  const std::filesystem::path build = std::filesystem::weakly_canonical(HEADSCOPE_BUILD_DIR, build_error);
  if (!error && !build_error && *HEADSCOPE_BUILD_DIR && program.parent_path() == build)
    dirs.push_back(std::string(HEADSCOPE_SOURCE_ASSETS_DIR) + "/models");
  set_program_model_dirs(std::move(dirs));
}

}  // namespace hs
