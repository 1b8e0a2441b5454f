#include "app/common/environment.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/util/runtime_config.h"

#ifndef HEADSCOPE_INSTALL_DATADIR  // set by app/CMakeLists.txt, with the two below
#define HEADSCOPE_INSTALL_DATADIR ""
#define HEADSCOPE_BUILD_DIR ""
#define HEADSCOPE_SOURCE_ASSETS_DIR ""
#endif

namespace hs {
namespace {

// The folders holding the shipped models, in the order searched (environment.h).
std::vector<std::string> model_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("HEADSCOPE_SHIPPED_MODELS"); env && *env) dirs.emplace_back(env);
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
  return dirs;
}

}  // namespace

void apply_environment() {
  RuntimeConfig config;
  if (const char* env = std::getenv("HEADSCOPE_MAX_MAP_BYTES")) config.max_map_bytes = std::atoll(env);
  if (const char* env = std::getenv("HEADSCOPE_KERNELS")) config.kernels = env;
  if (const char* env = std::getenv("HEADSCOPE_MEMORY_AVAILABLE")) {
    config.memory_available = env;
    config.memory_available_source = "HEADSCOPE_MEMORY_AVAILABLE";
  }
  if (const char* env = std::getenv("HEADSCOPE_MEMORY_BUDGET")) {
    config.memory_budget = env;
    config.memory_budget_source = "HEADSCOPE_MEMORY_BUDGET";
  }
  config.model_dirs = model_dirs();
  set_runtime_config(std::move(config));
}

}  // namespace hs
