#pragma once
// PNG bytes (as render_figure writes them) back to pixels: the app's export preview uploads the
// export's own PNG as a texture, and tests compare pixels. Drawn by cairo, as the figures are.
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

struct RgbaPixels {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // [height, width, 4] row-major, straight (not premultiplied) alpha
};

// Throws FormatError when `png` is not a PNG cairo can read.
RgbaPixels decode_png(const std::string& png);

}  // namespace hs
