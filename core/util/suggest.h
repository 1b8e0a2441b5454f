#pragma once
// "Did you mean ...?" for names a user types: flags, views, colormaps, lessons, shipped models.
#include <string>
#include <vector>

namespace hs {

// Edits (insert, delete, substitute, swap two neighbours) between a and b, ignoring case.
size_t edit_distance(const std::string& a, const std::string& b);

// The choices nearest to `given`, best first, at most `count`: those within max(2, length / 3)
// edits; when none is that near, those sharing its first three or more characters (the longest
// shared start first). Empty when nothing is near.
std::vector<std::string> closest_choices(const std::string& given, const std::vector<std::string>& choices,
                                         size_t count = 3);

// " (did you mean X?)", " (did you mean X or Y?)", " (did you mean X, Y or Z?)", or "" when no
// choice is near. `prefix` goes before each choice shown ("--" for flags).
std::string did_you_mean(const std::string& given, const std::vector<std::string>& choices,
                         const std::string& prefix = "");

// "a, b or c".
std::string or_list(const std::vector<std::string>& items, const std::string& prefix = "");

}  // namespace hs
