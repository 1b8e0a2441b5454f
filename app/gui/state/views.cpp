#include "app/gui/state/views.h"

namespace hs::gui {

const std::vector<ViewInfo>& all_views() {
  static const std::vector<ViewInfo> views = {
      {View::heads, "heads", "Heads", "grid", ExportView::heads, false, LessonControl::tab_heads},
      {View::head, "head", "Single head", "head", ExportView::head, true, LessonControl::tab_head},
      {View::query, "query", "Query", "query", ExportView::query, false, LessonControl::tab_query},
      {View::difference, "difference", "Head difference", "difference", ExportView::difference, false,
       LessonControl::tab_difference},
      {View::average, "average", "Average", "average", ExportView::average, false, LessonControl::tab_average},
      {View::width, "width", "Head width", "width", ExportView::width, false, LessonControl::tab_width},
      {View::roles, "roles", "Head roles", "roles", ExportView::roles, false, LessonControl::tab_roles},
      {View::ablation, "ablation", "Ablation", "ablation", ExportView::ablation, false, LessonControl::tab_ablation},
      // Exported by its own path (core/export/contrast_export.h): two runs, not one.
      {View::contrast, "contrast", "Contrast", "contrast", ExportView::heads, false, LessonControl::tab_contrast},
  };
  return views;
}

bool shows_singular_values(View view) { return view == View::width || view == View::head; }

const ViewInfo& view_info(View view) {
  for (const ViewInfo& v : all_views())
    if (v.view == view) return v;
  return all_views().front();
}

const ViewInfo* find_view(const std::string& name) {
  for (const ViewInfo& v : all_views())
    if (name == v.name) return &v;
  return nullptr;
}

std::vector<std::string> view_names() {
  std::vector<std::string> names;
  for (const ViewInfo& v : all_views()) names.emplace_back(v.name);
  return names;
}

std::string session_panel(View view, bool all_layers) {
  return view == View::heads && all_layers ? "layers" : view_info(view).session;
}

View view_from_session_panel(const std::string& panel) {
  if (panel == "layers") return View::heads;
  for (const ViewInfo& v : all_views())
    if (panel == v.session) return v.view;
  return View::heads;
}

}  // namespace hs::gui
