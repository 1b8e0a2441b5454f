#pragma once
// Example sentences for the menu, from assets/examples.txt (embedded at build time):
// one sentence per line; lines starting with '#' are comments.
#include <string>
#include <vector>

namespace hs::gui {

std::vector<std::string> example_sentences();

}  // namespace hs::gui
