#pragma once
// Plain sentences stating what the head-count sweep measured, whichever way the numbers go
// (the app's Head width view prints them).
#include <string>
#include <vector>

#include "core/analysis/sweep_analysis.h"

namespace hs {

std::vector<std::string> sweep_summary(const Sweep& sweep);

}  // namespace hs
