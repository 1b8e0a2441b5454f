#pragma once
// How much memory a new model may take: what the kernel says is available without swapping, or
// what the user says it is (RuntimeConfig::memory_available, core/util/runtime_config.h; tests use
// it to see a refusal without exhausting memory).
#include <cstdint>
#include <string>

namespace hs {

struct AvailableMemory {
  int64_t bytes = -1;  // -1: unknown (no /proc/meminfo); no check is made then
  std::string source;  // "MemAvailable in /proc/meminfo", "HEADSCOPE_MEMORY_AVAILABLE", "cgroup v2 ..."
  // Whether pages mapped from a file count against `bytes`: yes for MemAvailable and an override;
  // no under a cgroup limit, which reclaims clean file pages instead of killing the process, so
  // only working memory (copies, activations) counts there.
  bool counts_mapped = true;
  // The address-space limit (RLIMIT_AS, `ulimit -v`, `prlimit --as`): a mapping counts in full.
  // -1: none. address_space_used: the process's VmSize when it was read.
  int64_t address_space_limit = -1;
  int64_t address_space_used = 0;
  int64_t address_space_left() const { return address_space_limit < 0 ? -1 : address_space_limit - address_space_used; }
};

// The configuration's memory_available when set (bytes, or a number with a unit K, M, G; KiB,
// MiB, GiB too; powers of 1024: "512M", "1.5G"), named by its source; else the least of
// MemAvailable from /proc/meminfo and what the process's memory cgroup (v2 memory.max, v1
// memory.limit_in_bytes, the tightest of its ancestors) leaves: limit - usage + inactive file
// pages. The address-space limit is read in every case. An override that is not such a number is
// an InputError naming it.
AvailableMemory available_memory();

// What a memory cgroup leaves, from the text of /proc/self/cgroup and the cgroup file systems
// mounted under `root` (normally /sys/fs/cgroup; tests give a folder of their own): bytes -1 when
// no limit applies, else the headroom and its source naming the file and the numbers.
AvailableMemory cgroup_memory(const std::string& proc_self_cgroup, const std::string& root);

// InputError when mapping a file of `file_bytes` would not fit in what the address-space limit
// leaves, saying the file's size, the limit and what is in use: checked before mapping a model.
void check_address_space_for_mapping(const std::string& path, int64_t file_bytes);

// "512M" -> 512 MiB (K, M, G; KiB, MiB, GiB: powers of 1024; a bare number: bytes); -1 when the
// text is not a non-negative number with such a unit.
int64_t parse_byte_size(const std::string& text);

// A byte count for messages: "812 MiB", "1.4 GiB", "5.0 KiB", "37 bytes".
std::string format_bytes(int64_t bytes);

}  // namespace hs
