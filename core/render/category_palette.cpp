#include "core/render/category_palette.h"

#include <array>
#include <cstdlib>

namespace hs {

Rgb8 category_colour(int k) {
  // Okabe-Ito: blue, vermillion, bluish green, orange, reddish purple, sky blue, black, yellow.
  static constexpr std::array<Rgb8, kCategoryColours> colours = {
      Rgb8{0, 114, 178},  Rgb8{213, 94, 0},   Rgb8{0, 158, 115}, Rgb8{230, 159, 0},
      Rgb8{204, 121, 167}, Rgb8{86, 180, 233}, Rgb8{0, 0, 0},     Rgb8{240, 228, 66}};
  return colours[size_t(std::abs(k) % kCategoryColours)];
}

CategoryLine category_line(int k) { return CategoryLine((std::abs(k) / kCategoryColours) % 3); }

}  // namespace hs
