#include "app/gui/state/examples.h"

#include <sstream>

#include "app/gui/state/embedded.h"

namespace hs::gui {

std::vector<std::string> example_sentences() {
  std::vector<std::string> out;
  const char* text = embedded_file("examples.txt");
  std::istringstream in(text ? text : "");
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  if (out.empty()) out.push_back("the keys that Priya left on the table were not hers");
  return out;
}

}  // namespace hs::gui
