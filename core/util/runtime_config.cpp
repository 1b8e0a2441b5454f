#include "core/util/runtime_config.h"

#include <mutex>

#include "core/util/kernels.h"

#ifndef HEADSCOPE_ASSETS_DIR  // set by core/CMakeLists.txt for this file
#define HEADSCOPE_ASSETS_DIR ""
#endif

namespace hs {
namespace {

struct Store {
  std::mutex lock;
  RuntimeConfig config = default_runtime_config();
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

RuntimeConfig default_runtime_config() {
  RuntimeConfig c;
  if (*HEADSCOPE_ASSETS_DIR) c.model_dirs.push_back(std::string(HEADSCOPE_ASSETS_DIR) + "/models");
  return c;
}

RuntimeConfig runtime_config() {
  Store& s = store();
  std::lock_guard<std::mutex> hold(s.lock);
  return s.config;
}

void set_runtime_config(RuntimeConfig config) {
  cap_kernels(config.kernels.empty() ? "avx512" : config.kernels);
  Store& s = store();
  std::lock_guard<std::mutex> hold(s.lock);
  s.config = std::move(config);
}

}  // namespace hs
