#pragma once
// Plain sentences stating what the head-count sweep measured, whichever way the numbers go.
#include <string>
#include <vector>

#include "app/gui/derived.h"

namespace hs::gui {

std::vector<std::string> width_summary(const Sweep& sweep);

}  // namespace hs::gui
