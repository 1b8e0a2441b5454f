#include "core/render/colormap.h"

#include <cmath>

#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {
namespace detail {
extern const unsigned char k_viridis[256][3];
extern const unsigned char k_magma[256][3];
extern const unsigned char k_gray[256][3];
extern const unsigned char k_cividis[256][3];
extern const unsigned char k_rdbu[256][3];
}  // namespace detail

namespace {

std::array<Rgb8, 256> make_table(const unsigned char (&src)[256][3]) {
  std::array<Rgb8, 256> t{};
  for (int i = 0; i < 256; ++i) t[size_t(i)] = {src[i][0], src[i][1], src[i][2]};
  return t;
}

}  // namespace

const std::vector<Colormap>& all_colormaps() {
  static const std::vector<Colormap> all = {Colormap::viridis, Colormap::magma, Colormap::gray, Colormap::cividis,
                                            Colormap::rdbu};
  return all;
}

const char* colormap_name(Colormap c) {
  switch (c) {
    case Colormap::viridis: return "viridis";
    case Colormap::magma: return "magma";
    case Colormap::gray: return "gray";
    case Colormap::cividis: return "cividis";
    case Colormap::rdbu: return "rdbu";
  }
  return "?";
}

Colormap parse_colormap(const std::string& name) {
  std::vector<std::string> known;
  for (Colormap c : all_colormaps()) {
    if (name == colormap_name(c)) return c;
    known.emplace_back(colormap_name(c));
  }
  throw InputError("unknown colormap '" + excerpt(name) + "'" + did_you_mean(name, known) + "; expected " + or_list(known));
}

bool colormap_is_diverging(Colormap c) { return c == Colormap::rdbu; }

const std::array<Rgb8, 256>& colormap_table(Colormap c) {
  static const std::array<Rgb8, 256> viridis = make_table(detail::k_viridis), magma = make_table(detail::k_magma),
                                     gray = make_table(detail::k_gray), cividis = make_table(detail::k_cividis),
                                     rdbu = make_table(detail::k_rdbu);
  switch (c) {
    case Colormap::magma: return magma;
    case Colormap::gray: return gray;
    case Colormap::cividis: return cividis;
    case Colormap::rdbu: return rdbu;
    default: return viridis;
  }
}

Rgb8 colormap_lookup(Colormap c, float t) {
  if (!(t > 0.0f)) t = 0.0f;  // also NaN
  if (t > 1.0f) t = 1.0f;
  return colormap_table(c)[size_t(std::floor(t * 255.0f + 0.5f))];
}

}  // namespace hs

namespace hs {

Rgb8 masked_colour(Colormap c) {
  switch (c) {
    case Colormap::gray: return {250, 214, 170};
    case Colormap::rdbu: return {150, 150, 150};
    default: return {212, 212, 212};
  }
}

Rgb8 cell_lookup(Colormap c, float t) { return t < 0.0f ? masked_colour(c) : colormap_lookup(c, t); }

}  // namespace hs
