#pragma once
// Milliseconds between two steady-clock times, for the timings a program reports.
#include <chrono>

namespace hs {

inline double ms_between(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace hs
