#pragma once
// How much memory a new model may take: what the kernel says is available without swapping, or
// what the user says it is (set_memory_override; tests use it to see a refusal without exhausting
// memory).
#include <cstdint>
#include <string>

namespace hs {

struct AvailableMemory {
  int64_t bytes = -1;  // -1: unknown (no /proc/meminfo); no check is made then
  std::string source;  // "MemAvailable in /proc/meminfo", "HEADSCOPE_MEMORY_AVAILABLE", ...
};

// From now on available_memory() answers `text` (not empty): bytes, or a number with a unit K, M,
// G (KiB, MiB, GiB too; powers of 1024), e.g. "512M", "1.5G". `source` names where it came from in
// AvailableMemory::source and in errors (the programs pass HEADSCOPE_MEMORY_AVAILABLE,
// app/common/environment.h). An empty `text` removes the override. Set it before other threads run.
void set_memory_override(const std::string& text, const std::string& source);

// The override when set, else MemAvailable from /proc/meminfo. An override that is not such a
// number is an InputError naming it.
AvailableMemory available_memory();

// A byte count for messages: "812 MiB", "1.4 GiB", "5.0 KiB", "37 bytes".
std::string format_bytes(int64_t bytes);

}  // namespace hs
