#include "core/util/suggest.h"

#include <algorithm>
#include <cctype>

namespace hs {
namespace {

char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

size_t shared_start(const std::string& a, const std::string& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && lower(a[n]) == lower(b[n])) ++n;
  return n;
}

}  // namespace

// Optimal string alignment distance: d[i][j] = edits from a[0..i) to b[0..j).
size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::vector<std::string> closest_choices(const std::string& given, const std::vector<std::string>& choices, size_t count) {
  if (given.empty() || given.size() > 200) return {};  // a pasted paragraph is not a typo
  struct Scored {
    size_t score;
    std::string name;
  };
  std::vector<Scored> near;
  const size_t limit = std::max<size_t>(2, given.size() / 3);
  for (const std::string& c : choices) {
    const size_t d = edit_distance(given, c);
    if (d > 0 && d <= limit) near.push_back({d, c});
  }
  if (near.empty()) {  // "heatmaps" for "heads": no near spelling, but the same start
    for (const std::string& c : choices) {
      const size_t s = shared_start(given, c);
      if (s >= 3 && c != given) near.push_back({1000 - s, c});
    }
  }
  std::stable_sort(near.begin(), near.end(), [](const Scored& x, const Scored& y) { return x.score < y.score; });
  std::vector<std::string> out;
  for (const Scored& s : near)
    if (out.size() < count && std::find(out.begin(), out.end(), s.name) == out.end()) out.push_back(s.name);
  return out;
}

std::string or_list(const std::vector<std::string>& items, const std::string& prefix) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + prefix + items[i];
  return out;
}

std::string did_you_mean(const std::string& given, const std::vector<std::string>& choices, const std::string& prefix) {
  const std::vector<std::string> near = closest_choices(given, choices);
  return near.empty() ? "" : " (did you mean " + or_list(near, prefix) + "?)";
}

}  // namespace hs
