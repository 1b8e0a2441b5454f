#include "app/gui/widgets/layout_rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace hs::gui {
namespace {

std::string layout_where(const DrawnText& t) {
  char b[200];
  std::snprintf(b, sizeof b, " [%.0f,%.0f-%.0f,%.0f %.1fpx in %s]", t.min.x, t.min.y, t.max.x, t.max.y, t.px,
                t.window.c_str());
  return b;
}

bool in_lesson_panel(const DrawnText& t) { return t.window.rfind("##lesson", 0) == 0; }

void text_problems(const std::vector<DrawnText>& texts, const LayoutRules& rules, std::vector<std::string>& out) {
  for (const DrawnText& t : texts) {
    if (t.clipped) out.push_back("clipped: \"" + t.text + "\"" + layout_where(t));
    // A real ellipsis is a shortened text; "..." ends ImGui's menu items ("Export...") and
    // progress notes ("measuring..."), which are whole.
    if (t.text.find("\xE2\x80\xA6") != std::string::npos) out.push_back("shortened: \"" + t.text + "\"" + layout_where(t));
    const float floor = in_lesson_panel(t) ? rules.lesson_px : rules.other_px;
    if (t.px < floor - 0.05f) {
      char b[64];
      std::snprintf(b, sizeof b, " (under %.0f px)", double(floor));
      out.push_back("small: \"" + t.text + "\"" + layout_where(t) + b);
    }
    if (is_input_hint(t.text)) out.push_back("hint: \"" + t.text + "\"" + layout_where(t));
  }
  for (size_t i = 0; i < texts.size(); ++i)
    for (size_t j = i + 1; j < texts.size(); ++j)
      if (texts_overlap(texts[i], texts[j]))
        out.push_back("overlap: \"" + texts[i].text + "\"" + layout_where(texts[i]) + " and \"" + texts[j].text + "\"" +
                      layout_where(texts[j]));
}

// Every colour bar reads as a scale: at least two numbers beside it (under a bar drawn across,
// right of an upright one). One tick ("0.000" alone) says nothing about the colours' size.
void bar_problems(const FrameReport& report, const std::vector<DrawnText>& texts, std::vector<std::string>& out) {
  for (const DrawnBar& bar : report.bars) {
    const bool across = bar.max.x - bar.min.x > bar.max.y - bar.min.y;
    int labels = 0;
    for (const DrawnText& t : texts) {
      char* end = nullptr;
      std::strtod(t.text.c_str(), &end);
      if (t.text.empty() || end != t.text.c_str() + t.text.size()) continue;  // not a number
      const ImVec2 mid((t.min.x + t.max.x) * 0.5f, (t.min.y + t.max.y) * 0.5f);
      labels += across ? mid.x >= bar.min.x - 2 && mid.x <= bar.max.x + 2 && t.min.y >= bar.max.y - 1 && t.min.y <= bar.max.y + t.px * 1.5f
                       : mid.y >= bar.min.y - t.px && mid.y <= bar.max.y + t.px && t.min.x >= bar.max.x - 1 && t.min.x <= bar.max.x + t.px * 2;
    }
    if (labels < 2) {
      char b[160];
      std::snprintf(b, sizeof b, "scale: a colour bar at [%.0f,%.0f-%.0f,%.0f] (%.3g to %.3g) has %d labelled ticks", bar.min.x,
                    bar.min.y, bar.max.x, bar.max.y, double(bar.range.lo), double(bar.range.hi), labels);
      out.push_back(b);
    }
  }
}

void map_and_caption_problems(const FrameReport& report, const std::vector<DrawnText>& texts, const LayoutRules& rules,
                              std::vector<std::string>& out) {
  if (rules.map_floor > 0) {
    double area = 0;
    for (const DrawnHeatmap& m : report.heatmaps) area += double(m.max.x - m.min.x) * double(m.max.y - m.min.y);
    const double share = area / (double(rules.display.x) * double(rules.display.y));
    if (share < rules.map_floor) {
      char b[96];
      std::snprintf(b, sizeof b, "maps: %.1f%% of the window (%zu maps), floor %.0f%%", share * 100, report.heatmaps.size(),
                    double(rules.map_floor) * 100);
      out.push_back(b);
    }
  }
  for (const DrawnPanel& p : report.panels) {
    if (p.name != "caption text") continue;
    // Drawn across the window, its lines are counted as drawn; in a column, as it would wrap across.
    const bool across = p.max.x - p.min.x >= rules.display.x * 0.6f;
    const int lines = across ? text_lines_in(texts, "##lesson", p.min, p.max) : rules.caption_lines_across;
    if (lines > rules.caption_lines)
      out.push_back("caption: " + std::to_string(lines) + " lines, at most " + std::to_string(rules.caption_lines) +
                    " (move the rest to the step's \"notes\")");
  }
}

// Maps that share a row band (the same top, bottom and rows) share the row labels left of the
// leftmost; maps that share a column band share the column labels under the lowest (presenting
// draws one set per grid). A label belongs to row r when its middle is in the row's band and its
// right edge just left of the leftmost map; to column k when its middle is in the column's band
// and its top just under the lowest map (upright labels too).
bool label_near_equal(float a, float b) { return std::abs(a - b) < 1.5f; }

std::vector<int> unlabelled_rows(const DrawnHeatmap& m, const std::vector<DrawnText>& texts) {
  std::vector<int> missing;
  const float ch = (m.max.y - m.min.y) / float(m.rows);
  for (int r = 0; r < m.rows; ++r) {
    const float top = m.min.y + ch * float(r), bottom = top + ch;
    const bool found = std::any_of(texts.begin(), texts.end(), [&](const DrawnText& t) {
      const float mid = (t.min.y + t.max.y) * 0.5f;
      return mid >= top - 0.5f && mid <= bottom + 0.5f && t.max.x <= m.min.x + 1 && t.max.x >= m.min.x - 40;
    });
    if (!found) missing.push_back(r);
  }
  return missing;
}

// The column labels under a map: the read-back joins the labels of one line into one text
// ("keys that Priya left"), so they are counted as words (a token's label has no space: spaces
// are drawn as marks) over the texts whose middle is under the map.
int column_labels_under(const DrawnHeatmap& m, const std::vector<DrawnText>& texts) {
  int n = 0;
  for (const DrawnText& t : texts) {
    const float mid = (t.min.x + t.max.x) * 0.5f;
    if (mid >= m.min.x && mid <= m.max.x && t.min.y >= m.max.y - 1 && t.min.y <= m.max.y + 40) n += count_words(t.text);
  }
  return n;
}

std::string label_list(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (v.size() > 8) s += ", ...";
  return s;
}

// The rows a lesson step names (DrawnHeatmap::named) have their labels, on a map of any size:
// checked once per band, from its leftmost map that draws row labels.
void named_row_problems(const FrameReport& report, const std::vector<DrawnText>& texts, std::vector<std::string>& out) {
  for (const DrawnHeatmap& m : report.heatmaps) {
    if (m.hidden || m.named.empty() || !m.row_labels || m.tokens <= 0 || m.rows != m.tokens) continue;
    bool leftmost = true;
    for (const DrawnHeatmap& o : report.heatmaps)
      if (&o != &m && o.row_labels && label_near_equal(o.min.y, m.min.y) && label_near_equal(o.max.y, m.max.y) && o.rows == m.rows)
        leftmost &= o.min.x >= m.min.x;
    if (!leftmost) continue;
    const std::vector<int> missing = unlabelled_rows(m, texts);
    std::vector<int> named_missing;
    for (const int r : m.named)
      if (std::find(missing.begin(), missing.end(), r) != missing.end()) named_missing.push_back(r);
    if (named_missing.empty()) continue;
    char where[120];
    std::snprintf(where, sizeof where, " of the %dx%d map at [%.0f,%.0f-%.0f,%.0f] (%s)", m.rows, m.cols, m.min.x, m.min.y, m.max.x,
                  m.max.y, m.key.c_str());
    out.push_back("unlabelled: rows " + label_list(named_missing) + where + " have no label, and the step names them");
  }
}

void label_problems(const FrameReport& report, const std::vector<DrawnText>& texts, std::vector<std::string>& out) {
  named_row_problems(report, texts, out);
  // Maps of tokens (not a layers x heads table of scores). A map labelled with the step's named
  // tokens alone (an overview too small for every label) is held to named_row_problems instead.
  std::vector<const DrawnHeatmap*> maps;
  for (const DrawnHeatmap& m : report.heatmaps)
    if (!m.hidden && !m.named_only && m.tokens > 0 && m.rows == m.tokens && m.cols == m.tokens && m.tokens <= kLabelEveryTokenUpTo)
      maps.push_back(&m);
  for (const DrawnHeatmap* m : maps) {
    // Checked once per band (column of maps), from its leftmost (lowest) map: labels shared on a
    // grid's edges count for every map of the grid.
    bool leftmost = true, lowest = true, row_labelled = m->row_labels, col_labelled = m->col_labels, named_grid = false;
    // The band and column include maps labelled with the named tokens alone (an overview's
    // labelled edge), which hold their band to named_row_problems.
    for (const DrawnHeatmap& other : report.heatmaps) {
      const DrawnHeatmap* o = &other;
      if (o == m || o->hidden) continue;
      if (label_near_equal(o->min.y, m->min.y) && label_near_equal(o->max.y, m->max.y) && o->rows == m->rows) {
        leftmost &= o->min.x >= m->min.x;
        row_labelled |= o->row_labels;
        named_grid |= o->named_only;
      }
      if (label_near_equal(o->min.x, m->min.x) && label_near_equal(o->max.x, m->max.x) && o->cols == m->cols) {
        lowest &= o->max.y <= m->max.y;
        col_labelled |= o->col_labels;
        named_grid |= o->named_only;
      }
    }
    if (named_grid) continue;  // a grid labelled with the step's named tokens: named_row_problems
    // A thumbnail: no label in its band or column, beside a map of the same tokens labelled on
    // both edges. Any other map is held to both edges, whatever it draws: a grid of small maps
    // drawn without labels, or a map with column labels only, is unlabelled (the Head width view's
    // tiles, lesson 1 steps 5 and 7).
    bool labelled_sibling = false;
    for (const DrawnHeatmap& o : report.heatmaps)
      labelled_sibling |= &o != m && !o.hidden && o.tokens == m->tokens && o.row_labels && o.col_labels;
    if (!row_labelled && !col_labelled && labelled_sibling) continue;
    char where[120];
    std::snprintf(where, sizeof where, " of the %dx%d map at [%.0f,%.0f-%.0f,%.0f] (%s)", m->rows, m->cols, m->min.x, m->min.y,
                  m->max.x, m->max.y, m->key.c_str());
    const std::string tail = " have no label (a map of up to " + std::to_string(kLabelEveryTokenUpTo) + " tokens labels every one)";
    if (leftmost)
      if (const std::vector<int> rows = unlabelled_rows(*m, texts); !rows.empty())
        out.push_back("unlabelled: rows " + label_list(rows) + where + tail);
    if (lowest)
      if (const int labelled = column_labels_under(*m, texts); labelled < m->cols)
        out.push_back("unlabelled: columns (" + std::to_string(labelled) + " labels for " + std::to_string(m->cols) + ")" + where + tail);
  }
}

// A map's title (a head's name over its tile) is at least the size of the row labels of its band
// of maps: titles smaller than the tokens beside them read as footnotes (issue 46, 1920x1080). A
// title is a text whose bottom is within half its size over the map's top, starting over the map.
void title_problems(const FrameReport& report, const std::vector<DrawnText>& texts, std::vector<std::string>& out) {
  for (const DrawnHeatmap& m : report.heatmaps) {
    if (m.hidden || m.tokens <= 0 || m.rows != m.tokens || m.cols != m.tokens) continue;
    float label_px = 0;  // the row labels left of the band's leftmost map
    for (const DrawnHeatmap& o : report.heatmaps) {
      if (o.hidden || !label_near_equal(o.min.y, m.min.y) || !label_near_equal(o.max.y, m.max.y) || o.rows != m.rows) continue;
      for (const DrawnText& t : texts) {
        const float mid = (t.min.y + t.max.y) * 0.5f;
        if (mid >= o.min.y && mid <= o.max.y && t.max.x <= o.min.x + 1 && t.max.x >= o.min.x - 40) label_px = std::max(label_px, t.px);
      }
    }
    for (const DrawnText& t : texts) {
      const bool title = t.max.y <= m.min.y + 1 && t.max.y >= m.min.y - t.px * 0.5f && t.min.x >= m.min.x - 2 && t.min.x < m.max.x;
      if (title && label_px > 0 && t.px < label_px - 0.05f) {
        char b[96];
        std::snprintf(b, sizeof b, " smaller than its row labels (%.1f px)", double(label_px));
        out.push_back("title: \"" + t.text + "\"" + layout_where(t) + b);
      }
    }
  }
}

}  // namespace

std::vector<std::string> layout_problems(const FrameReport& report, const std::vector<DrawnText>& texts,
                                         const std::vector<std::string>& scrolling, const LayoutRules& rules) {
  std::vector<std::string> out;
  text_problems(texts, rules, out);
  for (const std::string& w : scrolling) out.push_back("scrolls: " + w);
  bar_problems(report, texts, out);
  map_and_caption_problems(report, texts, rules, out);
  label_problems(report, texts, out);
  title_problems(report, texts, out);
  return out;
}

bool is_input_hint(const std::string& text) {
  if (text.find(' ') == std::string::npos) return false;  // one token or one word
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const char* cue : {"click", "ctrl+", "wheel", "hover", "drag", "press ", "(esc)", "page down", "shortcut"})
    if (lower.find(cue) != std::string::npos) return true;
  return false;
}

int count_words(const std::string& text) {
  std::istringstream in(text);
  int n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

int text_lines_in(const std::vector<DrawnText>& texts, const std::string& window, ImVec2 box_min, ImVec2 box_max) {
  std::vector<DrawnText> inside;
  for (const DrawnText& t : texts) {
    const ImVec2 mid((t.min.x + t.max.x) * 0.5f, (t.min.y + t.max.y) * 0.5f);
    if (t.window.rfind(window, 0) == 0 && mid.x >= box_min.x && mid.x <= box_max.x && mid.y >= box_min.y && mid.y <= box_max.y)
      inside.push_back(t);
  }
  std::sort(inside.begin(), inside.end(), [](const DrawnText& a, const DrawnText& b) { return a.min.y < b.min.y; });
  int lines = 0;
  float top = -1e9f;
  for (const DrawnText& t : inside)
    if (t.min.y > top + t.px * 0.5f) ++lines, top = t.min.y;
  return lines;
}

}  // namespace hs::gui
