// Figures past cairo's limits: an image surface side is at most 32767 pixels and may fail for
// want of memory; every surface's status is checked and the figure refused with an InputError
// naming the size and a way out, never drawn into a NULL buffer (issue 15: a 20,000-word
// sentence segfaulted in Canvas::cells).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/render/canvas.h"
#include "core/render/figure.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// A figure whose heatmap has rows x cols cells (drawn as one embedded image past 40000 cells).
Figure cells_figure(int rows, int cols) {
  Figure f;
  f.title = "cells";
  f.width = 200;
  f.height = 200;
  f.draw = [rows, cols](Canvas& c) {
    const std::vector<Rgb8> colours(size_t(rows) * size_t(cols), Rgb8{10, 20, 30});
    c.cells(10, 10, 180, 180, rows, cols, colours);
  };
  return f;
}

std::string error_of(const Figure& f, FigureFormat format, FigureSize size = {}) {
  try {
    render_figure(f, format, size);
  } catch (const InputError& e) {
    return e.what();
  } catch (const Error& e) {
    return std::string("not an InputError: ") + e.what();
  }
  return "no error";
}

TEST(FigureLimits, ACellImagePastCairosSideIsRefusedNamingTheSize) {
  for (const FigureFormat format : {FigureFormat::png, FigureFormat::svg, FigureFormat::pdf}) {
    const std::string tall = error_of(cells_figure(40001, 1), format);
    EXPECT_NE(tall.find("40001 x 1"), std::string::npos) << tall;
    EXPECT_NE(tall.find("32767"), std::string::npos) << tall;
    const std::string wide = error_of(cells_figure(2, 33000), format);
    EXPECT_NE(wide.find("2 x 33000"), std::string::npos) << wide;
  }
  // Just inside the limit still draws.
  EXPECT_FALSE(render_figure(cells_figure(32767, 2), FigureFormat::png, {}).empty());
}

TEST(FigureLimits, APngPastCairosSideOrMemoryNamesTheSizeAndTheWayOut) {
  Figure f = cells_figure(2, 2);
  FigureSize big;
  big.scale = 100;  // 200 pt x 2 px x 100 = 40000 px a side
  const std::string msg = error_of(f, FigureFormat::png, big);
  EXPECT_NE(msg.find("40000x40000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--figure-scale"), std::string::npos) << msg;
  FigureSize sized;
  sized.width = 32768;
  sized.height = 10;
  EXPECT_NE(error_of(f, FigureFormat::png, sized).find("--size"), std::string::npos);
}

}  // namespace
}  // namespace hs
