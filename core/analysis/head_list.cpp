#include "core/analysis/head_list.h"

#include <cctype>

#include "core/util/errors.h"

namespace hs {
namespace {

const char* const kHeadListForm = "expected LAYER.HEAD items (whole numbers from 0) separated by commas, e.g. 1.3,2.5";

// A whole number from 0 of at most 6 digits, or -1.
int head_list_number(const std::string& s) {
  if (s.empty() || s.size() > 6) return -1;
  for (const char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(s);
}

std::string head_text(const HeadRef& h) { return std::to_string(h.layer) + "." + std::to_string(h.head); }

}  // namespace

std::vector<HeadRef> parse_head_list(const std::string& text) {
  const auto refuse = [&](const std::string& what) { throw InputError("heads '" + text + "': " + what + "; " + kHeadListForm); };
  if (text.empty()) refuse("no head given");
  std::vector<HeadRef> out;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const size_t dot = item.find('.');
    if (item.empty()) refuse("an empty item");
    if (dot == std::string::npos) refuse("'" + item + "' has no '.' between layer and head");
    const int layer = head_list_number(item.substr(0, dot)), head = head_list_number(item.substr(dot + 1));
    if (layer < 0) refuse("'" + item + "' has layer '" + item.substr(0, dot) + "', not a whole number");
    if (head < 0) refuse("'" + item + "' has head '" + item.substr(dot + 1) + "', not a whole number");
    const HeadRef h{layer, head};
    for (const HeadRef& seen : out)
      if (seen == h) refuse("head " + head_text(h) + " is listed twice");
    out.push_back(h);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

void check_head_list(const std::vector<HeadRef>& heads, int n_layers, int n_heads) {
  for (const HeadRef& h : heads) {
    if (h.layer < 0 || h.layer >= n_layers) {
      throw InputError("head " + head_text(h) + ": layer " + std::to_string(h.layer) + " is not in the model; expected a layer from 0 to " +
                       std::to_string(n_layers - 1));
    }
    if (h.head < 0 || h.head >= n_heads) {
      throw InputError("head " + head_text(h) + ": head " + std::to_string(h.head) + " is not in the model; expected a head from 0 to " +
                       std::to_string(n_heads - 1));
    }
  }
}

std::string head_list_text(const std::vector<HeadRef>& heads) {
  std::string out;
  for (const HeadRef& h : heads) out += (out.empty() ? "" : ",") + head_text(h);
  return out;
}

}  // namespace hs
