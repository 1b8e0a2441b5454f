// Issue 20: figures for papers. SVG and PDF draw each heatmap as one embedded image (small files:
// 8 heads x 42^2 under 300 KB, a 12 x 12 overview at T = 256 under 5 MB); masked cells (causal,
// window) have a colour of their own; a page size reflows the layout with fixed point-size text
// (one column: 2 x 2 heads filling the width, text >= 6 pt; a wide page: one row); title, labels
// and colour bar label follow the style.
#include <cairo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <regex>
#include <set>

#include "core/analysis/run_analysis.h"
#include "core/export/export.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

std::string words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " w" : "w") + std::to_string(i);
  return s;
}

std::shared_ptr<const RunAnalysis> synthetic(int T, int heads, bool causal, int window = -1) {
  ModelRequest r;
  r.sentence = words(T);
  r.attention.d_model = 2 * heads;
  r.attention.n_heads = heads;
  r.attention.causal = causal;
  r.attention.window = window;
  return analyse(r);
}

// L x H heads of causal softmax rows over scores shaped like a trained model's heads (a
// previous-token, first-token or local peak per head, plus noise).
std::shared_ptr<const RunAnalysis> random_run(int L, int H, int T) {
  AttentionRun run;
  for (int t = 0; t < T; ++t) run.tokens.push_back("t" + std::to_string(t));
  run.info.kind = run.info.name = "random";
  run.info.n_layers = L;
  run.info.n_heads = run.info.n_kv_heads = H;
  run.info.causal = true;
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.7f);
  for (int l = 0; l < L; ++l) {
    run.attention.emplace_back();
    for (int h = 0; h < H; ++h) {
      Map a = Map::Zero(T, T);  // [T, T], row i: softmax over keys 0..i
      for (int i = 0; i < T; ++i) {
        float sum = 0;
        for (int j = 0; j <= i; ++j) {
          const int kind = (l + h) % 3;  // previous token, first token, local
          const float s = kind == 0 ? (j == i - 1 ? 6.0f : 0.0f) : kind == 1 ? (j == 0 ? 5.0f : 0.0f) : -0.3f * float(i - j);
          sum += a(i, j) = std::exp(s + noise(rng));
        }
        for (int j = 0; j <= i; ++j) a(i, j) /= sum;
      }
      run.attention.back().push_back(std::move(a));
    }
  }
  return analyse_run(run);
}

struct Png {
  explicit Png(const std::string& bytes) {
    struct Reader {
      const std::string* s;
      size_t at = 0;
    } reader{&bytes};
    s = cairo_image_surface_create_from_png_stream(
        [](void* closure, unsigned char* data, unsigned int length) {
          auto* r = static_cast<Reader*>(closure);
          if (r->at + length > r->s->size()) return CAIRO_STATUS_READ_ERROR;
          std::copy(r->s->data() + r->at, r->s->data() + r->at + length, data);
          r->at += length;
          return CAIRO_STATUS_SUCCESS;
        },
        &reader);
  }
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

bool same(Rgb8 a, Rgb8 b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string bytes_of(const RunAnalysis& a, ExportSpec spec, const std::string& name) {
  spec.path = name;
  return export_bytes(a, nullptr, spec);
}

TEST(ExportLayout, EightHeadsOf42TokensMakeSmallVectorFiles) {
  const auto a = synthetic(42, 8, true);
  ASSERT_EQ(a->run.n_tokens(), 42);
  ExportSpec spec;
  const std::string svg = bytes_of(*a, spec, "grid.svg");
  const std::string pdf = bytes_of(*a, spec, "grid.pdf");
  EXPECT_LT(svg.size(), 300u * 1024) << "SVG of 8 heads x 42^2";
  EXPECT_LT(pdf.size(), 300u * 1024) << "PDF of 8 heads x 42^2";
  // One image per head and one for the colour bar; no rectangle per cell; labels stay text.
  EXPECT_EQ(count(svg, "<image "), 9u);
  EXPECT_EQ(count(svg, "image-rendering=\"optimizeSpeed\""), 9u) << "nearest-neighbour scaling";
  EXPECT_LT(count(svg, "<path"), 200u);
  EXPECT_NE(svg.find(">w0</text>"), std::string::npos) << "labels stay text";
  EXPECT_NE(pdf.find("/Interpolate false"), std::string::npos) << "PDF images are not smoothed";
}

TEST(ExportLayout, TwelveByTwelveOverviewAtT256StaysUnderFiveMegabytes) {
  const auto a = random_run(12, 12, 256);
  ExportSpec spec;
  spec.view = View::overview;
  const Figure fig = overview_figure(*a, spec.colours);
  ASSERT_EQ(fig.cells.size(), 144u);
  EXPECT_EQ(fig.cells[0].y, fig.cells[11].y) << "a layer is a row";
  EXPECT_EQ(fig.cells[0].x, fig.cells[12].x) << "a head is a column";
  for (const char* name : {"overview.svg", "overview.pdf"}) {
    const std::string bytes = bytes_of(*a, spec, name);
    EXPECT_LT(bytes.size(), 5u * 1024 * 1024) << name << ": " << bytes.size() << " bytes";
    EXPECT_GT(bytes.size(), 10u * 1024) << name;
  }
}

// Every cell of the figure's first map in the PNG: the masked colour where (causal, window) hides
// it, a colormap entry elsewhere. Returns the masked cells counted.
int expect_masked_cells(const RunAnalysis& a, const ExportSpec& spec, const Figure& fig, const std::string& name,
                        bool causal, int window) {
  const FigurePlacement p = figure_placement(fig, FigureFormat::png, {});
  const Png png(bytes_of(a, spec, name));
  EXPECT_TRUE(png.ok());
  if (!png.ok()) return 0;
  const CellBlock& b = fig.cells.at(0);
  const Colormap cm = spec.colours.colormap;
  const auto& table = colormap_table(cm);
  int masked = 0;
  for (int i = 0; i < b.rows; ++i)
    for (int j = 0; j < b.cols; ++j) {
      const bool hidden = (causal && j > i) || (window >= 0 && std::abs(i - j) > window);
      const Rgb8 got = png.at(int(p.ox + p.k * (b.x + (j + 0.5) * b.width / b.cols)),
                              int(p.oy + p.k * (b.y + (i + 0.5) * b.height / b.rows)));
      bool in_table = false;
      for (const Rgb8& c : table) in_table = in_table || same(c, got);
      if (hidden) {
        EXPECT_TRUE(same(got, masked_colour(cm))) << name << ": cell (" << i << ", " << j << ") is masked";
        ++masked;
      } else {
        EXPECT_TRUE(in_table) << name << ": cell (" << i << ", " << j << ") has a weight";
      }
    }
  return masked;
}

TEST(ExportLayout, MaskedCellsHaveAColourNoWeightHas) {
  for (Colormap cm : all_colormaps()) {
    for (const Rgb8& c : colormap_table(cm)) EXPECT_FALSE(same(c, masked_colour(cm))) << colormap_name(cm);
  }
  struct Case {
    bool causal;
    int window;
  };
  for (const Case& k : {Case{true, -1}, Case{false, 2}, Case{true, 3}}) {
    SCOPED_TRACE(std::string(k.causal ? "causal" : "bidirectional") + " window " + std::to_string(k.window));
    const auto a = synthetic(12, 2, k.causal, k.window);
    ExportSpec spec;
    spec.head = 1;
    spec.colours.colormap = Colormap::magma;
    const Figure fig = heatmap_figure(*a, 0, 1, spec.colours);
    const int masked = expect_masked_cells(*a, spec, fig, "head.png", k.causal, k.window);
    EXPECT_GT(masked, 0);
    spec.path = "head.svg";
    EXPECT_NE(export_bytes(*a, nullptr, spec).find(">masked</text>"), std::string::npos) << "a legend entry";
  }
  // No mask, no legend.
  const auto open = synthetic(12, 2, false);
  ExportSpec spec;
  EXPECT_EQ(bytes_of(*open, spec, "grid.svg").find(">masked</text>"), std::string::npos);
}

// The layer's head average and the rollout carry their mask as a head's map does (issue 36): the
// average of a windowed causal layer is grey where the layer's mask hides a key. (One map's figure:
// its cells lie where one head's do.)
TEST(ExportLayout, AverageAndRolloutDrawTheirMask) {
  const auto a = synthetic(12, 2, true, 3);
  ExportSpec spec;
  spec.colours.colormap = Colormap::magma;
  const Figure one = heatmap_figure(*a, 0, 0, spec.colours);
  spec.view = View::average;
  EXPECT_GT(expect_masked_cells(*a, spec, one, "average.png", true, 3), 0);
  spec.path = "average.svg";
  EXPECT_NE(export_bytes(*a, nullptr, spec).find(">masked</text>"), std::string::npos) << "a legend entry";
  spec.view = View::rollout;
  EXPECT_GT(expect_masked_cells(*a, spec, one, "rollout.png", true, 3), 0);
}

// The smallest font-size of the SVG's text, and its width and height attributes.
struct SvgFacts {
  double smallest = 1e9;
  std::string width, height;
};
SvgFacts svg_facts(const std::string& svg) {
  SvgFacts f;
  const std::regex size("font-size=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), size); it != std::sregex_iterator(); ++it)
    f.smallest = std::min(f.smallest, std::stod((*it)[1]));
  std::smatch m;
  if (std::regex_search(svg, m, std::regex("<svg[^>]* width=\"([^\"]+)\" height=\"([^\"]+)\""))) f.width = m[1], f.height = m[2];
  return f;
}

TEST(ExportLayout, OneColumnPageReflowsFourHeadsWithReadableText) {
  const auto a = synthetic(20, 4, true);
  ExportSpec spec;
  spec.style.page_width = spec.style.page_height = 3.25 * 72;
  const Figure fig = heatmap_figure(*a, 0, -1, spec.colours, spec.style);
  EXPECT_DOUBLE_EQ(fig.width, 234);
  EXPECT_DOUBLE_EQ(fig.height, 234);
  ASSERT_EQ(fig.cells.size(), 4u);
  std::set<double> rows;
  for (const CellBlock& b : fig.cells) rows.insert(b.y);
  EXPECT_EQ(rows.size(), 2u) << "a square page: 2 x 2 heads";

  const SvgFacts svg = svg_facts(bytes_of(*a, spec, "col.svg"));
  EXPECT_EQ(svg.width, "234pt");
  EXPECT_EQ(svg.height, "234pt");
  EXPECT_GE(svg.smallest, 6.0 - 1e-9) << "no text below 6 pt";
  EXPECT_LE(svg.smallest, 8.0 + 1e-9);

  // The drawing fills the width: ink within a few points of both edges.
  const Png png(bytes_of(*a, spec, "col.png"));
  ASSERT_TRUE(png.ok());
  EXPECT_EQ(png.width(), 468);  // 234 pt at 144 dpi
  int first = png.width(), last = -1;
  for (int x = 0; x < png.width(); ++x)
    for (int y = 0; y < png.height(); ++y)
      if (!same(png.at(x, y), {255, 255, 255})) {
        first = std::min(first, x), last = std::max(last, x);
        break;
      }
  EXPECT_LT(first, int(0.04 * png.width())) << "left edge";
  EXPECT_GT(last, int(0.96 * png.width())) << "right edge";

  // 12 pt text on the same page: larger text, smaller maps, still the page's size.
  spec.style.font_size = 12;
  const SvgFacts big = svg_facts(bytes_of(*a, spec, "col12.svg"));
  EXPECT_EQ(big.width, "234pt");
  EXPECT_GE(big.smallest, 6.0 - 1e-9);
  const Figure fig12 = heatmap_figure(*a, 0, -1, spec.colours, spec.style);
  EXPECT_LT(fig12.cells[0].width, fig.cells[0].width);
}

TEST(ExportLayout, WidePagePutsTheHeadsInOneRow) {
  const auto a = synthetic(20, 4, true);
  FigureStyle style;
  style.page_width = 7 * 72;
  style.page_height = 2 * 72;
  const Figure fig = heatmap_figure(*a, 0, -1, ColourScale{}, style);
  ASSERT_EQ(fig.cells.size(), 4u);
  for (const CellBlock& b : fig.cells) EXPECT_DOUBLE_EQ(b.y, fig.cells[0].y);
  EXPECT_DOUBLE_EQ(fig.width, 504);
  // A page too small for any map is refused with the size.
  style.page_width = style.page_height = 40;
  style.font_size = 20;
  try {
    heatmap_figure(*a, 0, -1, ColourScale{}, style);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("40 x 40 pt is too small"), std::string::npos) << e.what();
  }
}

TEST(ExportLayout, TitleLabelsAndColourBarLabelFollowTheStyle) {
  const auto a = synthetic(10, 2, false);
  ExportSpec spec;
  spec.style.title = "Figure 3: two heads";
  spec.style.colorbar_label = "weight";
  std::string svg = bytes_of(*a, spec, "t.svg");
  EXPECT_NE(svg.find(">Figure 3: two heads</text>"), std::string::npos);
  EXPECT_NE(svg.find(">weight</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">attention weight</text>"), std::string::npos);
  EXPECT_NE(svg.find(">w9</text>"), std::string::npos);

  spec.style.show_title = false;
  spec.style.labels = LabelMode::none;
  svg = bytes_of(*a, spec, "n.svg");
  EXPECT_EQ(svg.find(">Figure 3: two heads</text>"), std::string::npos) << "--no-title";
  EXPECT_EQ(svg.find(">w9</text>"), std::string::npos) << "--labels none";
  EXPECT_EQ(svg.find(">w0</text>"), std::string::npos);

  spec.style.labels = LabelMode::every;
  spec.style.label_every = 3;
  svg = bytes_of(*a, spec, "e.svg");
  EXPECT_NE(svg.find(">w3</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">w4</text>"), std::string::npos) << "every 3rd label";
}

TEST(ExportLayout, LabelModesLengthsAndStyleFilesParseStrictly) {
  FigureStyle s;
  parse_label_mode("every 5", s);
  EXPECT_EQ(s.labels, LabelMode::every);
  EXPECT_EQ(s.label_every, 5);
  parse_label_mode("none", s);
  EXPECT_EQ(s.labels, LabelMode::none);
  EXPECT_THROW(parse_label_mode("every 0", s), InputError);
  EXPECT_THROW(parse_label_mode("some", s), InputError);
  EXPECT_DOUBLE_EQ(parse_length("3.25in", 2), 234);
  EXPECT_DOUBLE_EQ(parse_length("2.54cm", 2), 72);
  EXPECT_DOUBLE_EQ(parse_length("100px", 2), 50);
  EXPECT_DOUBLE_EQ(parse_length("10pt", 2), 10);
  EXPECT_THROW(parse_length("3.25", 2), InputError);
  EXPECT_THROW(parse_length("3furlong", 2), InputError);
  EXPECT_THROW(parse_length("-1in", 2), InputError);

  std::optional<Colormap> cm;
  FigureStyle style;
  apply_style_json(R"({"font_size": 7, "labels": "every 2", "colormap": "magma", "gap": 4, "show_title": false,
                       "width": "3.25in", "colorbar_label": ""})",
                   "paper.json", style, cm);
  EXPECT_EQ(style.font_size, 7);
  EXPECT_EQ(style.label_every, 2);
  EXPECT_EQ(style.gap, 4);
  EXPECT_FALSE(style.show_title);
  EXPECT_DOUBLE_EQ(style.page_width, 234);
  ASSERT_TRUE(style.colorbar_label.has_value());
  EXPECT_EQ(*style.colorbar_label, "");
  ASSERT_TRUE(cm.has_value());
  EXPECT_EQ(*cm, Colormap::magma);
  auto error = [](const std::string& json) -> std::string {
    FigureStyle st;
    std::optional<Colormap> c;
    try {
      apply_style_json(json, "paper.json", st, c);
    } catch (const FormatError& e) {
      return e.what();
    }
    return "no FormatError";
  };
  EXPECT_NE(error(R"({"fontsize": 8})").find("paper.json: \"fontsize\" is not a style key (did you mean font_size?)"), std::string::npos);
  EXPECT_NE(error(R"({"font_size": "8"})").find("\"font_size\" must be a number"), std::string::npos);
  EXPECT_NE(error(R"({"font_size": 100})").find("from 4 to 72"), std::string::npos);
  EXPECT_NE(error(R"({"colormap": "jet"})").find("\"colormap\": unknown colormap 'jet'"), std::string::npos);
  EXPECT_NE(error(R"({"font_size": 8,})").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error(R"([8])").find("JSON object"), std::string::npos);
}

}  // namespace
}  // namespace hs
