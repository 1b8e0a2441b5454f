#include "app/gui/actions/settings.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "app/gui/actions/open_model.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/window_rules.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {
namespace {

void* read_open(ImGuiContext*, ImGuiSettingsHandler* handler, const char* name) {
  return std::strcmp(name, "prefs") == 0 ? handler->UserData : nullptr;
}

void read_line(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
  AppState& s = *static_cast<AppState*>(entry);
  const std::string text(line);
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return;
  const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
  if (key == "sidebar_width") s.sidebar_width = std::strtof(value.c_str(), nullptr);
  if (key == "colormap")
    for (Colormap c : all_colormaps())
      if (value == colormap_name(c) && !colormap_is_diverging(c)) s.scale.colormap = c;
  if (key == "scale") {
    const int m = std::atoi(value.c_str());
    if (m >= 0 && m <= 2) s.scale.mode = ScaleMode(m);
  }
  if (key == "ui_scale") {
    const float v = std::strtof(value.c_str(), nullptr);
    if (v >= 0.6f && v <= 3.0f) s.ui_scale = v;  // kMinUiScale .. kMaxUiScale (app_keys.h)
  }
  if (key == "show_frame_time") s.show_frame_time = value == "1";
  if (key == "memory_budget_mib") {
    const long v = std::strtol(value.c_str(), nullptr, 10);
    if (v == 0 || (v >= kMinMemoryBudgetMib && v <= kMaxMemoryBudgetMib)) s.memory_budget_mib = int(v);  // 0: automatic
  }
  if (key == "space_mark") s.space_mark = value == "none" ? SpaceMark::none : SpaceMark::dot;
  if (key == "theme") parse_theme(value, s.theme);
  if (key == "ignore_first_column") s.scale.ignore_first_key = value == "1";
  if (key == "export_folder") s.exporter.folder = value;
  if (key == "session_folder") s.session.folder = value;
  if (key == "export_file" && !value.empty()) s.exporter.file_name = value;
  if (key == "export_font") s.exporter.font = value;  // checked when exporting (an unknown family says so)
  if (key == "recent_session" && !value.empty() && int(s.session.recent.size()) < kMaxRecentSessions) s.session.recent.push_back(value);
  // recent_model=PATH<TAB>TOKENIZER, newest first
  if (key == "recent_model" && !value.empty() && int(s.open_model.recent.size()) < kMaxRecentModels) {
    const size_t tab = value.find('\t');
    s.open_model.recent.push_back({value.substr(0, tab), tab == std::string::npos ? "" : value.substr(tab + 1)});
  }
}

void write_all(ImGuiContext*, ImGuiSettingsHandler* handler, ImGuiTextBuffer* out) {
  const AppState& s = *static_cast<const AppState*>(handler->UserData);
  out->appendf("[%s][prefs]\n", handler->TypeName);
  out->appendf("sidebar_width=%.0f\n", double(s.sidebar_width));
  out->appendf("colormap=%s\n", colormap_name(colormap_to_save(s)));  // not presenting's stand-in
  out->appendf("scale=%d\n", int(s.scale.mode));
  out->appendf("ui_scale=%.2f\n", double(s.ui_scale));
  out->appendf("show_frame_time=%d\n", s.show_frame_time ? 1 : 0);
  out->appendf("memory_budget_mib=%d\n", s.memory_budget_mib);
  out->appendf("space_mark=%s\n", space_mark_name(s.space_mark));
  out->appendf("theme=%s\n", theme_name(s.theme));
  out->appendf("ignore_first_column=%d\n", s.scale.ignore_first_key ? 1 : 0);
  out->appendf("export_folder=%s\n", s.exporter.folder.c_str());
  out->appendf("session_folder=%s\n", s.session.folder.c_str());
  out->appendf("export_file=%s\n", s.exporter.file_name.c_str());
  out->appendf("export_font=%s\n", s.exporter.font.c_str());
  for (const RecentModel& m : s.open_model.recent) out->appendf("recent_model=%s\t%s\n", m.path.c_str(), m.tokenizer.c_str());
  for (const std::string& p : s.session.recent) out->appendf("recent_session=%s\n", p.c_str());
  out->appendf("\n");
}

}  // namespace

void set_theme(AppState& state, Theme theme) {
  if (state.present.active && state.scale.colormap == present_colormap(state.theme)) state.scale.colormap = present_colormap(theme);
  state.theme = theme;
}

void register_settings(AppState* state) {
  ImGuiSettingsHandler h;
  h.TypeName = "headscope";
  h.TypeHash = ImHashStr("headscope");
  h.ReadOpenFn = read_open;
  h.ReadLineFn = read_line;
  h.WriteAllFn = write_all;
  h.UserData = state;
  ImGui::GetCurrentContext()->SettingsHandlers.push_back(h);
}

}  // namespace hs::gui
