#include "app/common/environment.h"

#include <cstdlib>

#include "core/model/attention_layer.h"

namespace hs {

void apply_environment() {
  if (const char* env = std::getenv("HEADSCOPE_MAX_MAP_BYTES")) set_max_map_bytes(std::atoll(env));
}

}  // namespace hs
