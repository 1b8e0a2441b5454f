#include "core/render/roles_figure.h"

#include <algorithm>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"

namespace hs {
namespace {

// Black on light cells, white on dark ones (relative luminance, Rec. 709 weights).
Rgb8 ink_on(Rgb8 c) {
  const double y = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
  return y > 0.5 ? Rgb8{0, 0, 0} : Rgb8{255, 255, 255};
}

constexpr Rgb8 kNoScore = {200, 200, 200};

// Words of `text` in lines no wider than `width` points (a longer word keeps a line of its own).
std::vector<std::string> wrap(MeasureCanvas& m, const std::string& text, const TextStyle& style, double width) {
  std::vector<std::string> lines;
  std::string line, word;
  const auto flush_word = [&] {
    if (word.empty()) return;
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && m.width(joined, style) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ') flush_word();
    else word += ch;
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

Figure roles_figure(const RunAnalysis& analysis, HeadRole role, Colormap colormap) {
  const HeadRoles& roles = analysis.roles;
  const int L = roles.n_layers(), H = roles.n_heads();
  // scores: [L, H], NaN where not measured
  Map scores(std::max(L, 1), std::max(H, 1));
  scores.setConstant(std::nanf(""));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) scores(l, h) = roles.scores[size_t(l)][size_t(h)][role];
  const int rows = int(scores.rows()), cols = int(scores.cols());
  double cell = std::clamp(420.0 / std::max(rows, cols), 12.0, 44.0);
  if (std::max(rows, cols) * cell > 900) cell = 900.0 / std::max(rows, cols);
  const double w = cols * cell, h = rows * cell;

  std::vector<std::string> layer_names, head_names;
  for (int l = 0; l < rows; ++l) layer_names.push_back("L" + std::to_string(l));
  for (int k = 0; k < cols; ++k) head_names.push_back("h" + std::to_string(k));
  MeasureCanvas m;
  const AxisLabels x_labels = layout_axis_labels(m, head_names, cell, true, 10);
  const AxisLabels y_labels = layout_axis_labels(m, layer_names, cell, false, 10);

  ColourBar bar;
  bar.colormap = colormap;
  bar.lo = 0;
  bar.hi = 1;
  bar.title = std::string(head_role_name(role)) + " score";
  const TextStyle number_style{std::min(10.0, cell / 3.2), false, {0, 0, 0}};
  const bool numbers = number_style.size >= 5.0;

  const std::string title = figure_model_name(analysis.run) + " \u00b7 " + head_role_name(role) + " score \u00b7 layers \u00d7 heads";
  const std::string caption = std::string(head_role_definition(role)) + (scores.hasNaN() ? ". Grey: not measured." : "");
  const TextStyle title_style{kTitleSize, true, {0, 0, 0}};
  const TextStyle axis_style{kAxisTitleSize, false, {0, 0, 0}};
  const TextStyle caption_style{kTickSize, false, {64, 64, 64}};
  const double axis_title_h = kAxisTitleSize * 1.5;
  const double left = kMargin + axis_title_h + 8 + y_labels.extent + 5;
  const double top = kMargin + kTitleSize * 1.4 + 10;
  const double bar_h = std::max(h, 120.0);
  const double bar_x = left + w + 16;
  const double title_w = m.width(title, title_style);
  const double fig_w = std::max(bar_x + colour_bar_width(m, bar, bar_h) + kMargin, title_w + 2 * kMargin);
  const std::vector<std::string> caption_lines = wrap(m, caption, caption_style, std::max(200.0, fig_w - left - kMargin));
  const double line_h = kTickSize * 1.35;
  const double below = top + std::max(h, bar_h);
  const double caption_y = std::max(top + h + 5 + x_labels.extent + 6 + axis_title_h, below) + 6;
  const double fig_h = caption_y + line_h * double(caption_lines.size()) + kMargin;

  Figure fig;
  fig.title = title;
  fig.width = fig_w;
  fig.height = fig_h;
  fig.cells.push_back({left, top, w, h, rows, cols});
  fig.draw = [=](Canvas& c) {
    const double centre = left + w / 2;
    c.text(std::clamp(centre, kMargin + title_w / 2, fig_w - kMargin - title_w / 2), kMargin, title, title_style,
           HAlign::center, VAlign::top);
    std::vector<Rgb8> colours(size_t(rows) * size_t(cols));
    for (int l = 0; l < rows; ++l)
      for (int k = 0; k < cols; ++k) {
        const float v = scores(l, k);
        colours[size_t(l) * size_t(cols) + size_t(k)] = std::isnan(v) ? kNoScore : cell_colour(colormap, v, 1.0f);
      }
    c.cells(left, top, w, h, rows, cols, colours);
    c.stroke_rect(left, top, w, h, kFrameColour, 0.6);
    if (numbers) {
      for (int l = 0; l < rows; ++l)
        for (int k = 0; k < cols; ++k) {
          const float v = scores(l, k);
          TextStyle s = number_style;
          s.colour = ink_on(colours[size_t(l) * size_t(cols) + size_t(k)]);
          c.text(left + (k + 0.5) * cell, top + (l + 0.5) * cell, std::isnan(v) ? "\u2013" : format_number(v, 2), s,
                 HAlign::center, VAlign::middle);
        }
    }
    draw_y_labels(c, y_labels, left - 5, top, cell);
    draw_x_labels(c, x_labels, left, top + h + 5, cell);
    draw_colour_bar(c, bar, bar_x, top, bar_h);
    c.text(kMargin + axis_title_h / 2, top + h / 2, "layer", axis_style, HAlign::center, VAlign::middle, true);
    c.text(centre, top + h + 5 + x_labels.extent + 6, "head", axis_style, HAlign::center, VAlign::top);
    for (size_t i = 0; i < caption_lines.size(); ++i)
      c.text(left, caption_y + line_h * double(i), caption_lines[i], caption_style, HAlign::left, VAlign::top);
  };
  return fig;
}

}  // namespace hs
