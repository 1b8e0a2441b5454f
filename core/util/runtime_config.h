#pragma once
// The process-wide settings core reads, in one explicit configuration: core reads no environment;
// the programs fill it at start from HEADSCOPE_* and their own folders (app/common/environment.h),
// tests set what they test. Read and replaced whole under one lock; set it before other threads
// run (a change meanwhile reaches the next reader, never half a configuration).
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

struct RuntimeConfig {
  // Bytes allowed for T x T maps (core/model/attention_layer.h max_map_bytes); 0: the default.
  int64_t max_map_bytes = 0;
  // The kernels' instruction set, at most (core/util/kernels.h): "portable", "avx2"; "" the CPU's.
  std::string kernels;
  // The memory a new model may take instead of what the system says (core/util/memory_info.h):
  // bytes or a number with a unit K, M, G ("512M", "1.5G"); "" the system's. Its source names it
  // in messages ("HEADSCOPE_MEMORY_AVAILABLE").
  std::string memory_available;
  std::string memory_available_source;
  // The memory two models compared together may take (core/analysis/model_pair_memory.h): the
  // same units; "" none. Its source names it in messages ("HEADSCOPE_MEMORY_BUDGET").
  std::string memory_budget;
  std::string memory_budget_source;
  // Folders holding the shipped models' folders (stories260K/, core/model/shipped_models.h), in the
  // order searched. By default the source tree's assets/models this build was made from.
  std::vector<std::string> model_dirs;
};

// The configuration in force (a copy).
RuntimeConfig runtime_config();
// Replaces it whole (and caps the kernels as it says).
void set_runtime_config(RuntimeConfig config);
// What a process starts with: no limits set, the source tree's assets/models.
RuntimeConfig default_runtime_config();

}  // namespace hs
