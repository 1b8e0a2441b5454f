// Which instruction set the kernels run with: the CPU's best, capped by cap_kernels.
#include <algorithm>
#include <atomic>
#include <string>

#include "core/util/kernel_isa.h"
#include "core/util/kernels.h"

namespace hs {
namespace kernel_detail {
namespace {

Isa detect_isa() {
  Isa best = Isa::portable;
#if HS_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::avx2;
  if (best == Isa::avx2 && __builtin_cpu_supports("avx512f")) best = Isa::avx512;
#endif
  return best;
}

// The cap set by cap_kernels (the programs pass HEADSCOPE_KERNELS): avx512 caps nothing.
std::atomic<Isa> g_cap{Isa::avx512};

}  // namespace

Isa isa() {
  static const Isa detected = detect_isa();
  return std::min(detected, g_cap.load(std::memory_order_relaxed));
}

}  // namespace kernel_detail

using kernel_detail::Isa;
using kernel_detail::isa;
using kernel_detail::g_cap;

void cap_kernels(const std::string& name) {
  if (name == "portable") g_cap = Isa::portable;
  else if (name == "avx2") g_cap = Isa::avx2;
  else g_cap = Isa::avx512;
}

const char* kernel_isa() {
  switch (isa()) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    default: return "portable";
  }
}
}  // namespace hs
