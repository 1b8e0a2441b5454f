#pragma once
// How much memory a new model may take: what the kernel says is available without swapping, or
// what the user says it is (RuntimeConfig::memory_available, core/util/runtime_config.h; tests use
// it to see a refusal without exhausting memory).
#include <cstdint>
#include <string>

namespace hs {

struct AvailableMemory {
  int64_t bytes = -1;  // -1: unknown (no /proc/meminfo); no check is made then
  std::string source;  // "MemAvailable in /proc/meminfo", "HEADSCOPE_MEMORY_AVAILABLE", ...
};

// The configuration's memory_available when set (bytes, or a number with a unit K, M, G; KiB,
// MiB, GiB too; powers of 1024: "512M", "1.5G"), named by its source; else MemAvailable from
// /proc/meminfo. An override that is not such a number is an InputError naming it.
AvailableMemory available_memory();

// A byte count for messages: "812 MiB", "1.4 GiB", "5.0 KiB", "37 bytes".
std::string format_bytes(int64_t bytes);

}  // namespace hs
