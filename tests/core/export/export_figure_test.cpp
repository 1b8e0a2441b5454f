// Figures through export_view: PNGs decode (with cairo) at the expected size with the
// colormap's colours at known cells; SVG keeps labels as text; PDF is a PDF; bad requests
// fail with a clear message and leave no file behind.
#include <cairo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/analysis/run_analysis.h"
#include "core/model/synthetic_model.h"
#include "core/render/colour_scale.h"
#include "core/render/difference_figure.h"
#include "core/export/export.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "core/analysis/head_stats.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
const char* const kSentence = "the keys that Priya left on the table were not hers";

// The analysis every export reads (core/analysis/run_analysis.h), as the CLI makes it.
std::shared_ptr<const RunAnalysis> default_analysis() {
  ModelRequest r;
  r.sentence = kSentence;
  r.attention.d_model = 8;
  r.attention.n_heads = 4;
  return analyse(r);
}

ColourScale linear(Colormap cm) {
  ColourScale c;
  c.colormap = cm;
  return c;
}

class ExportFigure : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hs_export_figure_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    analysis_ = default_analysis();
    run_ = analysis_->run;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    return out;
  }

  fs::path dir_;
  std::shared_ptr<const RunAnalysis> analysis_;
  AttentionRun run_;  // analysis_->run
};

struct Png {
  explicit Png(const std::string& path) : s(cairo_image_surface_create_from_png(path.c_str())) {}
  ~Png() { cairo_surface_destroy(s); }
  bool ok() const { return cairo_surface_status(s) == CAIRO_STATUS_SUCCESS; }
  int width() const { return cairo_image_surface_get_width(s); }
  int height() const { return cairo_image_surface_get_height(s); }
  Rgb8 at(int x, int y) const {
    const unsigned char* row = cairo_image_surface_get_data(s) + size_t(y) * size_t(cairo_image_surface_get_stride(s));
    const uint32_t p = reinterpret_cast<const uint32_t*>(row)[x];
    return {uint8_t(p >> 16), uint8_t(p >> 8), uint8_t(p)};
  }
  cairo_surface_t* s;
};

// Every cell centre of `block` in the PNG has the colour the shared rule gives its value.
void expect_cells(const Png& png, const FigurePlacement& p, const CellBlock& block, const Map& values, Colormap cm,
                  float scale_max) {
  const double cw = block.width / block.cols, ch = block.height / block.rows;
  int mismatches = 0;
  for (int i = 0; i < block.rows; ++i) {
    for (int j = 0; j < block.cols; ++j) {
      const int x = int(std::floor(p.ox + p.k * (block.x + (j + 0.5) * cw)));
      const int y = int(std::floor(p.oy + p.k * (block.y + (i + 0.5) * ch)));
      const Rgb8 want = cell_colour(cm, values(i, j), scale_max), got = png.at(x, y);
      if (want.r != got.r || want.g != got.g || want.b != got.b) {
        if (++mismatches <= 3) {
          ADD_FAILURE() << "cell (" << i << ", " << j << ") at pixel (" << x << ", " << y << "): got rgb(" << int(got.r)
                        << "," << int(got.g) << "," << int(got.b) << "), want rgb(" << int(want.r) << ","
                        << int(want.g) << "," << int(want.b) << ") for value " << values(i, j);
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(ExportFigure, SingleHeadPngHasTheColormapColoursAtEveryCell) {
  for (Colormap cm : {Colormap::viridis, Colormap::magma, Colormap::gray}) {
    ExportSpec spec;
    spec.path = path(std::string("head2_") + colormap_name(cm) + ".png");
    spec.head = 2;
    spec.colours.colormap = cm;
    export_view(*analysis_, nullptr, spec);
    const Figure fig = heatmap_figure(*analysis_, 0, 2, linear(cm));
    const FigurePlacement p = figure_placement(fig, FigureFormat::png, {});
    Png png(spec.path);
    ASSERT_TRUE(png.ok());
    EXPECT_EQ(png.width(), int(std::ceil(fig.width * kPngPixelsPerPoint)));
    EXPECT_EQ(png.height(), int(std::ceil(fig.height * kPngPixelsPerPoint)));
    ASSERT_EQ(fig.cells.size(), 1u);
    const Map& a = run_.attention[0][2];
    expect_cells(png, p, fig.cells[0], a, cm, colour_scale_max({&a}));
  }
}

// Issue 14: a PNG with fewer pixels per panel than cells keeps every peak (each pixel shows the
// largest cell it covers). Eight isolated weight-1.0 peaks per head, T = 300, 1500 and 3000: the
// grid of 4 heads and one head alone; each peak's pixel neighbourhood holds the top colour.
TEST_F(ExportFigure, PngKeepsEveryPeakWhenCellsOutnumberPixels) {
  for (int T : {300, 1500, 3000}) {
    AttentionRun run;
    for (int t = 0; t < T; ++t) run.tokens.push_back("t" + std::to_string(t));
    run.info.kind = run.info.name = "peaks";
    run.info.n_layers = 1;
    run.info.n_heads = run.info.n_kv_heads = 4;
    std::vector<std::pair<int, int>> peaks;
    for (int i = 0; i < 8; ++i) peaks.push_back({(i * 389 + 17) % T, (i * 613 + 101) % T});
    run.attention.assign(1, LayerMaps());
    for (int h = 0; h < 4; ++h) {
      Map a = Map::Constant(T, T, 1.0f / float(T));  // [T, T]
      for (const auto& [q, k] : peaks) a(q, k) = 1.0f;
      run.attention[0].push_back(a);
    }
    const std::shared_ptr<const RunAnalysis> analysis = analyse_run(run);
    for (int head : {-1, 2}) {
      SCOPED_TRACE("T " + std::to_string(T) + (head < 0 ? ", grid" : ", one head"));
      ExportSpec spec;
      spec.path = path("peaks_" + std::to_string(T) + "_" + std::to_string(head) + ".png");
      spec.head = head;
      export_view(*analysis, nullptr, spec);
      const Figure fig = heatmap_figure(*analysis, 0, head, linear(Colormap::viridis));
      const FigurePlacement p = figure_placement(fig, FigureFormat::png, {});
      Png png(spec.path);
      ASSERT_TRUE(png.ok());
      const Rgb8 top = colormap_table(Colormap::viridis)[255];
      for (const CellBlock& block : fig.cells) {
        ASSERT_GT(block.rows * block.width * p.k, 0);
        int found = 0;
        for (const auto& [q, k] : peaks) {
          const double x = p.ox + p.k * (block.x + (k + 0.5) * block.width / T);
          const double y = p.oy + p.k * (block.y + (q + 0.5) * block.height / T);
          bool seen = false;
          for (int dy = -2; dy <= 2 && !seen; ++dy)
            for (int dx = -2; dx <= 2 && !seen; ++dx) {
              const Rgb8 c = png.at(int(x) + dx, int(y) + dy);
              seen = c.r == top.r && c.g == top.g && c.b == top.b;
            }
          found += seen;
        }
        EXPECT_EQ(found, 8) << "peaks visible in a panel of " << block.width * p.k << " pixels for " << T << " cells";
      }
    }
  }
}

TEST_F(ExportFigure, LongSequencesDrawnAsAnImageKeepCellColours) {
  std::string sentence;
  for (int i = 0; i < 210; ++i) sentence += "w" + std::to_string(i) + " ";
  SyntheticSpec synth;
  synth.attention.d_model = 8;
  synth.attention.n_heads = 2;
  const AttentionRun run = run_synthetic(sentence, synth);
  ASSERT_EQ(run.n_tokens(), 210);  // 44100 cells: above the rectangle limit, drawn as one image
  ExportSpec spec;
  spec.path = path("long.png");
  spec.head = 1;
  const std::shared_ptr<const RunAnalysis> analysis = analyse_run(run);
  export_view(*analysis, nullptr, spec);
  const Figure fig = heatmap_figure(*analysis, 0, 1, linear(Colormap::viridis));
  Png png(spec.path);
  ASSERT_TRUE(png.ok());
  const Map& a = run.attention[0][1];
  expect_cells(png, figure_placement(fig, FigureFormat::png, {}), fig.cells.at(0), a, Colormap::viridis,
               colour_scale_max({&a}));
}

TEST_F(ExportFigure, GridSharesOneScaleAcrossHeads) {
  ExportSpec spec;
  spec.path = path("grid.png");
  export_view(*analysis_, nullptr, spec);
  const Figure fig = heatmap_figure(*analysis_, 0, -1, linear(Colormap::viridis));
  ASSERT_EQ(fig.cells.size(), 4u);
  std::vector<const Map*> maps;
  for (const Map& m : run_.attention[0]) maps.push_back(&m);
  const float scale_max = colour_scale_max(maps);
  Png png(spec.path);
  ASSERT_TRUE(png.ok());
  const FigurePlacement p = figure_placement(fig, FigureFormat::png, {});
  for (int h = 0; h < 4; ++h) expect_cells(png, p, fig.cells[size_t(h)], run_.attention[0][size_t(h)], Colormap::viridis, scale_max);
}

TEST_F(ExportFigure, DifferenceTableColoursFollowTheTable) {
  ExportSpec spec;
  spec.path = path("difference.png");
  spec.view = View::difference;
  export_view(*analysis_, nullptr, spec);
  const Figure fig = difference_figure(*analysis_, 0, Colormap::viridis);
  const Map diff = head_difference(run_.attention[0]);
  Png png(spec.path);
  ASSERT_TRUE(png.ok());
  // Numbers are written in the cells, so sample a corner of each cell instead of its centre.
  const CellBlock& b = fig.cells.at(0);
  const FigurePlacement p = figure_placement(fig, FigureFormat::png, {});
  const double cw = b.width / b.cols;
  // The colour range runs over the off-diagonal cells; the diagonal (0) is blank grey.
  float lo = 1, hi = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) lo = std::min(lo, diff(i, j)), hi = std::max(hi, diff(i, j));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const Rgb8 want = i == j ? Rgb8{200, 200, 200} : cell_colour(Colormap::viridis, diff(i, j) - lo, hi - lo);
      const Rgb8 got = png.at(int(p.ox + p.k * (b.x + (j + 0.1) * cw)), int(p.oy + p.k * (b.y + (i + 0.1) * cw)));
      EXPECT_EQ(int(want.r) * 65536 + int(want.g) * 256 + want.b, int(got.r) * 65536 + int(got.g) * 256 + got.b)
          << "cell (" << i << ", " << j << ")";
    }
  }
}

TEST_F(ExportFigure, ScaleAndSizeSetThePixels) {
  const Figure fig = heatmap_figure(*analysis_, 0, 1, linear(Colormap::viridis));
  ExportSpec spec;
  spec.head = 1;
  spec.path = path("x2.png");
  spec.scale = 2;
  export_view(*analysis_, nullptr, spec);
  Png twice(spec.path);
  EXPECT_EQ(twice.width(), int(std::ceil(fig.width * kPngPixelsPerPoint * 2)));
  spec.scale = 1;
  spec.path = path("sized.png");
  spec.width = 800;
  spec.height = 600;
  export_view(*analysis_, nullptr, spec);
  Png sized(spec.path);
  EXPECT_EQ(sized.width(), 800);
  EXPECT_EQ(sized.height(), 600);
  spec.height = 0;
  spec.path = path("width_only.png");
  export_view(*analysis_, nullptr, spec);
  Png width_only(spec.path);
  EXPECT_EQ(width_only.width(), 800);
  EXPECT_NEAR(width_only.height(), 800 * fig.height / fig.width, 1.0);
}

TEST_F(ExportFigure, SvgKeepsTokenLabelsAsText) {
  ExportSpec spec;
  spec.path = path("grid.svg");
  export_view(*analysis_, nullptr, spec);
  const std::string svg = read_file(spec.path);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  for (const char* label : {">Priya</text>", ">table</text>", ">hers</text>", ">head 3</text>", ">attention weight</text>"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_NE(svg.find("<title>synthetic d_model 8 \u00b7 layer 0 \u00b7 heads 0\u20133</title>"), std::string::npos);
}

TEST_F(ExportFigure, PdfIsAPdfWithItsTextEmbedded) {
  for (View view : {View::heatmap, View::difference, View::sweep}) {
    ExportSpec spec;
    spec.path = path(std::string(view_name(view)) + ".pdf");
    spec.view = view;
    export_view(*analysis_, nullptr, spec);
    const std::string pdf = read_file(spec.path);
    EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u) << spec.path;
    EXPECT_NE(pdf.find("%%EOF"), std::string::npos) << spec.path;
    EXPECT_NE(pdf.find("/FontFile"), std::string::npos) << "fonts are embedded: " << spec.path;
  }
}

TEST_F(ExportFigure, SweepNeedsTheSyntheticModel) {
  ModelRequest weights = analysis_->request;
  weights.weights = "mha.safetensors";  // a layer whose head count the file fixes
  const std::shared_ptr<const RunAnalysis> other = analyse_run(run_, weights);
  ExportSpec spec;
  spec.path = path("sweep.png");
  spec.view = View::sweep;
  try {
    export_view(*other, nullptr, spec);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("synthetic"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(files().empty());
  export_view(*analysis_, nullptr, spec);
  Png png(spec.path);
  EXPECT_TRUE(png.ok());
}

TEST_F(ExportFigure, BadRequestsSayWhatIsValidAndLeaveNoFile) {
  auto message = [&](ExportSpec spec) -> std::string {
    try {
      export_view(*analysis_, nullptr, spec);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  ExportSpec spec;
  spec.path = path("a.bmp");
  EXPECT_NE(message(spec).find(".png, .svg, .pdf, .npy, .csv, .json or .html"), std::string::npos) << message(spec);
  spec.path = path("a.png");
  spec.layer = 1;
  EXPECT_NE(message(spec).find("layer 1 is out of range: the model has 1 layer (valid: 0 to 0)"), std::string::npos)
      << message(spec);
  spec.layer = 0;
  spec.head = 4;
  EXPECT_NE(message(spec).find("head 4 is out of range: layer 0 has 4 heads (valid: 0 to 3"), std::string::npos)
      << message(spec);
  spec.head = 0;
  spec.scale = 0;
  EXPECT_NE(message(spec).find("scale"), std::string::npos);
  spec.scale = 1;
  spec.width = 100000;
  spec.height = 100000;
  EXPECT_NE(message(spec).find("32767"), std::string::npos) << message(spec);
  EXPECT_TRUE(files().empty());

  spec.width = spec.height = 0;
  spec.path = path("missing/folder/a.png");
  EXPECT_THROW(export_view(*analysis_, nullptr, spec), IoError);
  EXPECT_TRUE(files().empty());
}

TEST_F(ExportFigure, ExportAllNamesFilesByLayerAndHead) {
  ExportSpec base;
  const std::string out = path("batch");
  const std::vector<std::string> written = export_all(*analysis_, nullptr, out, base, "png");
  ASSERT_EQ(written.size(), 4u);
  for (int h = 0; h < 4; ++h) {
    const std::string want = (fs::path(out) / ("layer0_head" + std::to_string(h) + ".png")).string();
    EXPECT_EQ(written[size_t(h)], want);
    Png png(want);
    EXPECT_TRUE(png.ok()) << want;
  }
  EXPECT_THROW(export_all(*analysis_, nullptr, out, base, "gif"), InputError);
}

}  // namespace
}  // namespace hs
