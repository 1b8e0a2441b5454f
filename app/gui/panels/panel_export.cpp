// Export... (File > Export..., Ctrl+E, or the button): a dialog with the format, what to export,
// size, DPI, colours, title, the file's folder and name, a preview of the layout, and Copy data /
// Copy image. The panel only pushes commands (app/gui/state/commands.h); the frame loop writes
// the file and reports in the status line. An existing file is replaced only after "Replace".
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "app/gui/actions/export_action.h"
#include "app/gui/actions/export_preview.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/panels/panels.h"
#include "core/util/format.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

// The "what" combo: "this view as shown", then export_dialog_views() by their titles.
std::vector<const char*> what_labels() {
  std::vector<const char*> labels = {"this view as shown"};
  for (View v : export_dialog_views()) labels.push_back(view_descriptor(v).title);
  return labels;
}

// What is wrong with the folder and name, or "".
std::string path_problem(const ExportPanelState& e) {
  if (e.file_name.empty()) return "give a file name";
  if (e.file_name.find('/') != std::string::npos) return "the name holds a '/': put folders in the folder box";
  try {
    export_format_of(e.file_name);
  } catch (const Error& err) {
    return err.what();
  }
  std::error_code ec;
  if (!e.folder.empty() && !std::filesystem::is_directory(e.folder, ec)) return "no folder " + e.folder;
  return "";
}

// The folder box's neighbours: its parent and subfolders, one click each (ImGui has no file chooser).
void draw_folder_browser(ExportPanelState& e) {
  std::error_code ec;
  const std::filesystem::path here = e.folder.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(e.folder);
  if (ImGui::SmallButton("..") && here.has_parent_path()) e.folder = here.parent_path().string();
  int shown = 0;
  std::filesystem::directory_iterator it(here, std::filesystem::directory_options::skip_permission_denied, ec);
  for (; !ec && it != std::filesystem::directory_iterator() && shown < 24; it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec) || it->path().filename().string().rfind('.', 0) == 0) continue;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 6) ImGui::NewLine();
    const std::string label = it->path().filename().string() + "/";
    if (ImGui::SmallButton(label.c_str())) e.folder = it->path().string();
    ++shown;
  }
}

// The head roles: which role's layers x heads map, or every role at once (data files only).
void draw_role_choice(AppState& state, const UiContext& ui, const char* extension, float width) {
  ExportPanelState& e = state.exporter;
  int choice = e.role < 0 ? kHeadRoleCount : e.role;
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo("role", choice == kHeadRoleCount ? "all roles (NPY, CSV, JSON)" : head_role_name(HeadRole(choice)))) {
    for (int r = 0; r <= kHeadRoleCount; ++r) {
      const char* name = r == kHeadRoleCount ? "all roles (NPY, CSV, JSON)" : head_role_name(HeadRole(r));
      if (ImGui::Selectable(name, r == choice)) {
        e.role = r == kHeadRoleCount ? -1 : r;
        e.file_name = default_export_name(state, *ui.derived, extension);
      }
      if (r < kHeadRoleCount && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", head_role_definition(HeadRole(r)));
    }
    ImGui::EndCombo();
  }
}

// Long-input mode: what the export holds instead of whole maps.
void draw_long_input_note(const UiContext& ui) {
  const AttentionRun& run = ui.derived->run();
  if (!run.compact()) return;
  ImGui::TextDisabled("long-input mode: maps export as block maxima of %d x %d cells (labelled in the file)",
                      run.map_factor, run.map_factor);
}

// The preview: the export's own figure (export_preview.h: the PNG the export code renders at
// 72 dpi, re-rendered once the settings rest), drawn to fit a box with the page's ratio.
void draw_preview(AppState& state, const UiContext& ui) {
  // The box: 24 lines of text on the longest side, in framebuffer pixels (the texture is shown 1:1).
  const float fb_scale = std::max(ImGui::GetIO().DisplayFramebufferScale.x, 1.0f);
  const float box = ImGui::GetFontSize() * 24;
  update_export_preview(state, *ui.derived, ImGui::GetTime(), int(box * fb_scale), current_ablation(state, ui.ablation));
  const std::shared_ptr<const ExportPreview> p = state.exporter.preview;
  if (!p) return;
  if (!p->error.empty()) {
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "%s", p->error.c_str());
    return;
  }
  const ExportPanelState& e = state.exporter;
  ImGui::Text("%.0f x %.0f pt (%.2f x %.2f in), PNG %.0f x %.0f px at %.0f dpi", p->width_pt, p->height_pt,
              p->width_pt / 72, p->height_pt / 72, std::ceil(p->width_pt * e.dpi / 72), std::ceil(p->height_pt * e.dpi / 72),
              e.dpi);
  const ImVec2 size(float(p->pixels.width) / fb_scale, float(p->pixels.height) / fb_scale);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (ui.images) {
    if (const ImTextureID tex = ui.images->rgba_image("export preview", p->version, p->pixels)) {
      dl->AddImage(tex, at, ImVec2(at.x + size.x, at.y + size.y));
    }
  }
  dl->AddRect(at, ImVec2(at.x + size.x, at.y + size.y), IM_COL32(96, 96, 96, 255));
  if (ui.report) {
    DrawnPanel panel;
    panel.name = "export preview";
    panel.text = std::to_string(p->pixels.width) + "x" + std::to_string(p->pixels.height);
    panel.min = at;
    panel.max = ImVec2(at.x + size.x, at.y + size.y);
    ui.report->panels.push_back(panel);
  }
  ImGui::Dummy(size);
}

}  // namespace

void open_export_dialog(AppState& state, const UiContext& ui) {
  if (ui.derived) start_export_dialog(state, *ui.derived);
}

void draw_export(AppState& state, const UiContext& ui) {
  ImGui::BeginDisabled(ui.derived == nullptr);
  if (ImGui::Button("Export...")) open_export_dialog(state, ui);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+E: a figure (PDF, SVG, PNG) or the numbers (NPY, CSV, JSON)");
  ImGui::SameLine();
  // One button: the current map, or (a view of maps) a choice of the head or the whole layer.
  const bool maps = ui.derived && copies_maps(state, *ui.derived);
  if (ImGui::Button("Copy data")) {
    if (maps) ImGui::OpenPopup("copy data");
    else state.commands.push(CopyExportData{});
  }
  if (ImGui::IsItemHovered()) {
    const std::string tip = maps ? format("Copy head %d's map or every head of layer %d as CSV", state.head, state.layer)
                                 : std::string("Copy the view's numbers (e.g. the difference table) as CSV");
    ImGui::SetTooltip("%s", tip.c_str());
  }
  if (ImGui::BeginPopup("copy data")) {
    if (ImGui::MenuItem(format("head %d: its map, query x key", state.head).c_str())) state.commands.push(CopyExportData{});
    if (ImGui::MenuItem(format("layer %d: every head, a row per cell", state.layer).c_str())) state.commands.push(CopyExportData{true});
    ImGui::EndPopup();
  }
  ImGui::EndDisabled();
}

void draw_export_dialog(AppState& state, const UiContext& ui) {
  ExportPanelState& e = state.exporter;
  if (!e.dialog_open || !ui.derived) return;
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool open = true;
  if (ImGui::Begin("Export###export", &open,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    const float w = ImGui::GetFontSize() * 18;
    // Format: the file name's extension follows (the formats: core/export/export.h).
    const std::string ext = extension_of(e.file_name);
    const std::vector<ExportFormatInfo>& formats = export_formats();
    size_t format = 0;
    for (size_t i = 0; i < formats.size(); ++i)
      if (ext == formats[i].extension) format = i;
    ImGui::SetNextItemWidth(w);
    if (ImGui::BeginCombo("format", formats[format].extension)) {
      for (size_t i = 0; i < formats.size(); ++i) {
        if (!ImGui::Selectable(formats[i].extension, i == format)) continue;
        format = i;
        e.file_name = std::filesystem::path(e.file_name).replace_extension(formats[i].extension).string();
      }
      ImGui::EndCombo();
    }
    const std::vector<View>& views = export_dialog_views();
    int what = e.what ? int(std::find(views.begin(), views.end(), *e.what) - views.begin()) + 1 : 0;
    const std::vector<const char*> labels = what_labels();
    ImGui::SetNextItemWidth(w);
    if (ImGui::Combo("what", &what, labels.data(), int(labels.size()))) {
      e.what = what == 0 ? std::nullopt : std::optional<View>(views[size_t(what - 1)]);
      e.file_name = default_export_name(state, *ui.derived, formats[format].extension);
    }
    if (e.what == View::roles) draw_role_choice(state, ui, formats[format].extension, w);
    draw_long_input_note(ui);
    if (formats[format].figure) {
      ImGui::Checkbox("slide (16:9)", &e.slide);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A 10 x 5.625 in slide with 14 pt text that the maps fill (size and font size below, when given, win)");
      ImGui::SetNextItemWidth(w);
      ImGui::InputTextWithHint("size", "natural, or 3.25x3.25in, 8x6cm, 1600x1200px", &e.size);
      ImGui::SetNextItemWidth(w);
      ImGui::InputFloat("DPI (PNG)", &e.dpi, 0, 0, "%.0f");
      ImGui::SetNextItemWidth(w);
      ImGui::InputFloat("font size (pt, 0 auto)", &e.font_size, 0, 0, "%.1f");
      ImGui::Checkbox("title", &e.show_title);
      if (e.show_title) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w * 0.8f);
        ImGui::InputTextWithHint("##title", "the model, layer and heads", &e.title);
      }
      ImGui::Checkbox("colours as shown", &e.view_colours);
      if (!e.view_colours) {
        int cm = 0;
        const auto& maps = all_colormaps();
        for (int i = 0; i < int(maps.size()); ++i)
          if (maps[size_t(i)] == e.colormap) cm = i;
        ImGui::SetNextItemWidth(w * 0.5f);
        if (ImGui::BeginCombo("colormap", colormap_name(e.colormap))) {
          for (int i = 0; i < int(maps.size()); ++i)
            if (ImGui::Selectable(colormap_name(maps[size_t(i)]), i == cm)) e.colormap = maps[size_t(i)];
          ImGui::EndCombo();
        }
        ImGui::SameLine();
        int mode = int(e.scale_mode);
        const char* modes[] = {"linear", "log", "row"};
        ImGui::SetNextItemWidth(w * 0.4f);
        if (ImGui::Combo("scale", &mode, modes, 3)) e.scale_mode = ScaleMode(mode);
      }
      draw_preview(state, ui);
    }
    ImGui::Separator();
    ImGui::SetNextItemWidth(w * 1.4f);
    ImGui::InputTextWithHint("folder", "current folder", &e.folder);
    draw_folder_browser(e);
    ImGui::SetNextItemWidth(w * 1.4f);
    const bool enter = ImGui::InputText("file", &e.file_name, ImGuiInputTextFlags_EnterReturnsTrue);
    const std::string problem = path_problem(e);
    if (!problem.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.40f, 1.0f), "%s", problem.c_str());
    if (!e.confirm_path.empty() && e.confirm_path == export_path(e)) {
      ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%s exists.", e.confirm_path.c_str());
      if (ImGui::Button("Replace")) {
        e.overwrite_confirmed = true;
        state.commands.push(SaveExport{});
      }
      ImGui::SameLine();
      if (ImGui::Button("Keep it")) e.confirm_path.clear();
    } else {
      ImGui::BeginDisabled(!problem.empty());
      if (ImGui::Button("Save") || (enter && problem.empty())) state.commands.push(SaveExport{});
      ImGui::EndDisabled();
    }
    ImGui::SameLine();
    if (ImGui::Button("Copy image")) state.commands.push(CopyExportImage{});
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The view as a PNG on the clipboard (needs xclip)");
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) open = false;
  }
  ImGui::End();
  if (!open) {
    e.dialog_open = false;
    e.confirm_path.clear();
  }
}

}  // namespace hs::gui
