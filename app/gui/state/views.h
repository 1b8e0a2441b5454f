#pragma once
// The app's views: one table for the tabs, the --view flag, session files' "panel" and export,
// so a view is named in one place.
#include <string>
#include <vector>

#include "core/export/export.h"
#include "core/session/lesson_file.h"

namespace hs::gui {

enum class View { heads, head, query, difference, width, average, roles, ablation, contrast };

struct ViewInfo {
  View view;
  const char* name;      // --view and messages: "heads"
  const char* tab;       // the tab's label: "Heads"
  const char* session;   // session files' "panel" (core/session/session_file.h): "grid"
  ExportView export_view;
  bool export_selected_head;  // export the selected head (else every head of the layer)
  LessonControl unlock;       // what a lesson step unlocks to let the user choose this tab
};

// Every view, in tab order.
const std::vector<ViewInfo>& all_views();

// The views that show singular values of the score matrices (Head width's chart and table, the
// single head's facts): the app computes them, and the head-count sweep, only while one of these
// is on screen.
bool shows_singular_values(View view);
const ViewInfo& view_info(View view);

// By --view name ("heads", ...); null when unknown.
const ViewInfo* find_view(const std::string& name);
// The --view names, in tab order (for the flag's check and its help).
std::vector<std::string> view_names();

// Session "panel" <-> view. The heads view with the layers x heads overview on is "layers".
std::string session_panel(View view, bool all_layers);
View view_from_session_panel(const std::string& panel);

}  // namespace hs::gui
