#include "app/common/environment.h"

#include <cstdlib>

#include "core/model/attention_layer.h"
#include "core/model/shipped_models.h"
#include "core/util/kernels.h"
#include "core/util/memory_info.h"

namespace hs {

void apply_environment() {
  if (const char* env = std::getenv("HEADSCOPE_MAX_MAP_BYTES")) set_max_map_bytes(std::atoll(env));
  if (const char* env = std::getenv("HEADSCOPE_KERNELS")) cap_kernels(env);
  if (const char* env = std::getenv("HEADSCOPE_MEMORY_AVAILABLE")) set_memory_override(env, "HEADSCOPE_MEMORY_AVAILABLE");
  if (const char* env = std::getenv("HEADSCOPE_SHIPPED_MODELS")) set_shipped_models_dir(env);
}

}  // namespace hs
