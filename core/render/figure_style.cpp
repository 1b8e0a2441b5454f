#include "core/render/figure_style.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/formats/json_strict.h"
#include "core/render/font_family.h"
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {

void parse_label_mode(const std::string& text, FigureStyle& style) {
  if (text == "auto") style.labels = LabelMode::automatic;
  else if (text == "all") style.labels = LabelMode::all;
  else if (text == "none") style.labels = LabelMode::none;
  else if (text.rfind("every", 0) == 0 && text.size() > 6 && (text[5] == ' ' || text[5] == ':')) {
    const std::string n = text.substr(6);
    char* end = nullptr;
    const long v = std::strtol(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || v < 1 || v > 100000) {
      throw InputError("labels '" + excerpt(text) + "': N must be a whole number from 1 to 100000 (e.g. \"every 5\")");
    }
    style.labels = LabelMode::every;
    style.label_every = int(v);
  } else {
    throw InputError("labels '" + excerpt(text) + "' is not one of auto, all, none or \"every N\"");
  }
}

FigurePreset parse_figure_preset(const std::string& text) {
  if (text == "slide") return FigurePreset::slide;
  if (text == "none" || text.empty()) return FigurePreset::none;
  throw InputError("preset '" + excerpt(text) + "' is not one of slide or none");
}

void apply_figure_preset(FigurePreset preset, FigureStyle& style) {
  if (preset != FigurePreset::slide) return;
  style.page_width = kSlideWidth, style.page_height = kSlideHeight;
  style.font_size = kSlideFontSize;
  style.fill_page = true;
}

std::string format_pt(double points) { return std::to_string(int(std::lround(points))); }

double parse_length(const std::string& text, double px_per_point) {
  struct Unit {
    const char* name;
    double points;
  };
  const Unit units[] = {{"in", 72.0}, {"cm", 72.0 / 2.54}, {"mm", 72.0 / 25.4}, {"pt", 1.0}, {"px", 1.0 / px_per_point}};
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const std::string unit = end ? std::string(end) : std::string();
  if (end == text.c_str()) throw InputError("length '" + excerpt(text) + "' is not a number with a unit (in, cm, mm, pt or px)");
  for (const Unit& u : units) {
    if (unit != u.name) continue;
    if (!std::isfinite(v) || v < 0 || v * u.points > 14400) {
      throw InputError("length '" + excerpt(text) + "' must be from 0 to 200in (14400pt)");
    }
    return v * u.points;
  }
  throw InputError("length '" + excerpt(text) + "' has no unit: give in, cm, mm, pt or px (e.g. 3.25in)");
}

namespace {

bool has_unit(const std::string& side) { return !side.empty() && std::isalpha(static_cast<unsigned char>(side.back())); }

}  // namespace

// "3.25x3.25in", "8cmx6cm", "1600x1200px": a page the figure is laid out for (a unit on either
// side applies to a bare number on the other; 0 leaves that side free). False when no side has
// a unit (then the old WxH: output units, figure fitted).
bool parse_page_size(const std::string& text, double px_per_point, FigureStyle& style) {
  size_t x = std::string::npos;
  for (size_t i = 1; i + 1 < text.size(); ++i)
    if ((text[i] == 'x' || text[i] == 'X') && (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '.')) {
      x = i;
      break;
    }
  if (x == std::string::npos) {
    if (has_unit(text)) throw InputError("page size '" + excerpt(text) + "' is not WIDTHxHEIGHT with a unit (e.g. 3.25x3.25in, 8x6cm, 0x2in)");
    return false;
  }
  std::string w = text.substr(0, x), h = text.substr(x + 1);
  if (!has_unit(w) && !has_unit(h)) return false;
  auto unit_of = [](const std::string& side) {
    size_t k = side.size();
    while (k > 0 && std::isalpha(static_cast<unsigned char>(side[k - 1]))) --k;
    return side.substr(k);
  };
  if (!has_unit(w)) w += unit_of(h);
  if (!has_unit(h)) h += unit_of(w);
  style.page_width = parse_length(w, px_per_point);
  style.page_height = parse_length(h, px_per_point);
  if (style.page_width < 36 && style.page_width != 0) throw InputError("page size '" + excerpt(text) + "': the width must be at least 0.5in (36pt)");
  if (style.page_height < 36 && style.page_height != 0) throw InputError("page size '" + excerpt(text) + "': the height must be at least 0.5in (36pt)");
  if (style.page_width == 0 && style.page_height == 0) throw InputError("page size '" + excerpt(text) + "': give at least one side");
  return true;
}

void apply_style_json(const std::string& json_text, const std::string& file_name, FigureStyle& style,
                      std::optional<Colormap>& colormap) {
  const nlohmann::json j = parse_json_strict(json_text, file_name);
  if (!j.is_object()) throw FormatError(file_name + ": a style is a JSON object ({\"font_size\": 8, ...})");
  auto where = [&](const std::string& key) { return file_name + ": \"" + excerpt(key) + "\""; };
  auto number = [&](const std::string& key, const nlohmann::json& v, double lo, double hi) {
    if (!v.is_number()) throw FormatError(where(key) + " must be a number, not " + json_excerpt(v));
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) {
      throw FormatError(where(key) + " (" + v.dump() + ") must be from " + std::to_string(int(lo)) + " to " +
                        std::to_string(int(hi)));
    }
    return x;
  };
  auto string = [&](const std::string& key, const nlohmann::json& v) {
    if (!v.is_string()) throw FormatError(where(key) + " must be a string, not " + json_excerpt(v));
    return v.get<std::string>();
  };
  for (const auto& [key, v] : j.items()) {
    try {
      if (key == "font_size") style.font_size = number(key, v, 4, 72);
      else if (key == "gap") style.gap = number(key, v, 0, 100);
      else if (key == "title") style.title = string(key, v);
      else if (key == "colorbar_label") style.colorbar_label = string(key, v);
      else if (key == "labels") parse_label_mode(string(key, v), style);
      else if (key == "colormap") colormap = parse_colormap(string(key, v));
      else if (key == "width") style.page_width = parse_length(string(key, v), 2.0);
      else if (key == "height") style.page_height = parse_length(string(key, v), 2.0);
      else if (key == "font") style.font = check_font_family(string(key, v));
      else if (key == "space_mark") style.space_mark = parse_space_mark(string(key, v));
      else if (key == "show_title" || key == "show_caption") {
        if (!v.is_boolean()) throw FormatError(where(key) + " must be true or false, not " + json_excerpt(v));
        (key == "show_title" ? style.show_title : style.show_caption) = v.get<bool>();
      } else {
        const std::vector<std::string> known = {"font_size", "title",  "show_title", "show_caption", "labels", "colorbar_label",
                                                "gap",       "colormap", "width",    "height",     "space_mark", "font"};
        throw FormatError(where(key) + " is not a style key" + did_you_mean(key, known) + "; expected " + or_list(known));
      }
    } catch (const InputError& e) {
      throw FormatError(where(key) + ": " + e.what());
    }
  }
}

int label_every(const FigureStyle& style) {
  switch (style.labels) {
    case LabelMode::automatic: return 0;
    case LabelMode::all: return 1;
    case LabelMode::none: return -1;
    case LabelMode::every: return std::max(1, style.label_every);
  }
  return 0;
}

}  // namespace hs
