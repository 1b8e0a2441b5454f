#include "core/export/html_page.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/export/export.h"
#include "core/export/provenance.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {

extern const char* const kHtmlPageStyle;   // html_page_script.cpp
extern const char* const kHtmlPageScript;

namespace {

using nlohmann::json;

std::string page_base64(const std::string& bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t b0 = uint8_t(bytes[i]), b1 = i + 1 < bytes.size() ? uint8_t(bytes[i + 1]) : 0,
                   b2 = i + 2 < bytes.size() ? uint8_t(bytes[i + 2]) : 0;
    const uint32_t v = b0 << 16 | b1 << 8 | b2;
    out += abc[v >> 18 & 63];
    out += abc[v >> 12 & 63];
    out += i + 1 < bytes.size() ? abc[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? abc[v & 63] : '=';
  }
  return out;
}

// The map's finite range [lo, hi] (both 0 when it has no finite cell).
std::pair<float, float> page_range(const Map& m) {
  float lo = INFINITY, hi = -INFINITY;
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    const float v = m.data()[k];
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  return lo <= hi ? std::make_pair(lo, hi) : std::make_pair(0.0f, 0.0f);
}

// q = round((v - lo) / (hi - lo) * 65535), uint16 little-endian, row-major; a cell that is not finite
// is stored as 0 and listed in the map's "nan" cells.
json page_map_json(const PageMap& m) {
  const auto [lo, hi] = page_range(m.cells);
  const double span = double(hi) - double(lo);
  std::string bytes;
  bytes.reserve(size_t(m.cells.size()) * 2);
  std::vector<int64_t> nan_cells;
  for (Eigen::Index k = 0; k < m.cells.size(); ++k) {
    const float v = m.cells.data()[k];
    if (!std::isfinite(v)) nan_cells.push_back(int64_t(k));
    const double u = std::isfinite(v) && span > 0 ? (double(v) - lo) / span : 0.0;
    const uint32_t q = uint32_t(std::lround(std::clamp(u, 0.0, 1.0) * 65535.0));
    bytes += char(q & 0xff);
    bytes += char(q >> 8);
  }
  json j = {{"name", m.name}, {"rows", m.cells.rows()}, {"cols", m.cells.cols()},
            {"lo", lo}, {"hi", hi}, {"data", page_base64(bytes)}};
  if (!nan_cells.empty()) j["nan"] = nan_cells;
  if (m.fixed_max > 0) j["fixed_max"] = m.fixed_max;
  if (m.colour_lo) j["colour_lo"] = *m.colour_lo;
  if (m.mask && m.mask->any()) {  // one bit per cell, row-major, least significant bit first
    std::string bits((size_t(m.cells.size()) + 7) / 8, '\0');
    for (int r = 0; r < m.cells.rows(); ++r)
      for (int c = 0; c < m.cells.cols(); ++c)
        if (m.mask->hides(r, c, m.tokens)) {
          const size_t k = size_t(r) * size_t(m.cells.cols()) + size_t(c);
          bits[k / 8] = char(uint8_t(bits[k / 8]) | (1u << (k % 8)));
        }
    j["mask"] = page_base64(bits);
  }
  return j;
}

json page_colormap_json(Colormap cm) {
  static const char* hex = "0123456789abcdef";
  std::string table;
  for (const Rgb8& c : colormap_table(cm))
    for (uint8_t v : {c.r, c.g, c.b}) table += hex[v >> 4], table += hex[v & 15];
  const Rgb8 m = masked_colour(cm);
  return {{"name", colormap_name(cm)}, {"table", table}, {"masked", {m.r, m.g, m.b}},
          {"diverging", colormap_is_diverging(cm)}};
}

std::vector<std::string> page_repaired_labels(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const std::string& s : labels) out.push_back(utf8_repair(s));
  return out;
}

json page_data_json(const ViewExport& in, const PageContent& c) {
  json groups = json::array();
  for (const PageGroup& g : c.groups) {
    json maps = json::array();
    for (const PageMap& m : g.maps) maps.push_back(page_map_json(m));
    groups.push_back({{"name", g.name}, {"note", g.note}, {"maps", maps}});
  }
  const ExportSpec& spec = in.spec;  // the view's name is the provenance's (two names of one page: one page)
  return {{"format", "headscope page 1"}, {"title", utf8_repair(c.title)}, {"about", c.about},
          {"tokens", page_repaired_labels(in.analysis.map_labels.empty() ? in.analysis.run.tokens : in.analysis.map_labels)},
          {"token_axes", c.token_axes}, {"row_labels", page_repaired_labels(c.row_labels)}, {"col_labels", page_repaired_labels(c.col_labels)},
          {"group_title", c.group_title}, {"map_title", c.map_title}, {"groups", groups},
          {"group", c.group}, {"map", c.map},
          {"hover", {{"row", c.row_title}, {"col", c.col_title}, {"value", c.value_title}}},
          {"query_mode", c.query_mode}, {"queries", c.queries},
          {"colormap", page_colormap_json(c.colormap.value_or(spec.colours.colormap))},
          {"scale", {{"mode", scale_mode_name(spec.colours.mode)}, {"ignore_first_key", spec.colours.ignore_first_key},
                     {"per_map", spec.colours.per_map}}},
          {"encoding", {{"bits", 16}, {"digits", kHtmlDigits}}},
          {"notes", page_repaired_labels(in.analysis.run.notes)},
          {"provenance", json::parse(provenance_json(in.analysis, spec))},
          {"contrast", c.contrast_json.empty() ? json() : json::parse(c.contrast_json)}};
}

std::string page_html_text(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '&') out += "&amp;";
    else if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else out += ch;
  }
  return out;
}

// JSON inside <script>: "</" would end the element; "<\/" is the same JSON string.
std::string page_script_safe(std::string s) {
  for (size_t at = s.find("</"); at != std::string::npos; at = s.find("</", at + 3)) s.replace(at, 2, "<\\/");
  return s;
}

}  // namespace

std::string page_map_json_text(const PageMap& m) { return page_map_json(m).dump(-1, ' ', false, json::error_handler_t::replace); }
std::string page_colormap_json_text(Colormap cm) { return page_colormap_json(cm).dump(); }

std::string html_page(const ViewExport& in, const PageContent& content) {
  const std::string data = page_data_json(in, content).dump(-1, ' ', false, json::error_handler_t::replace);
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"generator\" content=\"headscope " HEADSCOPE_VERSION "\">\n"
                     "<title>" + page_html_text(utf8_repair(content.title)) + "</title>\n<style>" + kHtmlPageStyle +
                     "</style>\n</head>\n<body>\n<noscript>This page draws its maps with JavaScript; the numbers are in "
                     "the hs-data element of its source.</noscript>\n"
                     "<script type=\"application/json\" id=\"hs-data\">" + page_script_safe(data) + "</script>\n<script>" +
                     kHtmlPageScript + "</script>\n</body>\n</html>\n";
  if (int64_t(page.size()) > kHtmlPageMaxBytes && !in.spec.large_page) {
    throw InputError("the page would be " + std::to_string((page.size() + (1 << 19)) >> 20) + " MB, more than the " +
                     std::to_string(kHtmlPageMaxBytes >> 20) + " MB a page may hold (a browser slows down decoding it); "
                     "give --layer L for one layer, a shorter input, or --large-page to write it anyway");
  }
  return page;
}

}  // namespace hs
