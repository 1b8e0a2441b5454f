#pragma once
// Font families for figure text, by name, as fontconfig knows them (the families cairo's font
// selection draws with). Fontconfig answers an unknown family with its default font without a
// word; a paper's figures must not change font silently, so a family is checked first.
#include <string>
#include <vector>

namespace hs {

// The installed families, sorted, each once ("DejaVu Sans", "DejaVu Serif", ...).
std::vector<std::string> installed_font_families();

// `family` as installed (fontconfig's own spelling, matched without regard to case), or
// InputError naming it and the installed families.
std::string check_font_family(const std::string& family);

}  // namespace hs
