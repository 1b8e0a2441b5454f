#include "app/gui/actions/lesson_player.h"

#include <imgui.h>

#include <algorithm>

#include "app/gui/state/embedded.h"
#include "app/gui/actions/app_keys.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/actions/window_rules.h"
#include "app/gui/widgets/theme.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs::gui {
namespace {

// GLFW's letter keys are their ASCII codes (ImGui 1.86 indexes keys by the backend's codes).
constexpr int kKeyC = 'C', kKeyH = 'H', kKeyP = 'P', kKeySpace = ' ';
constexpr int kKeyF5 = 294;  // GLFW_KEY_F5

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); }

}  // namespace

std::vector<std::string> shipped_lessons() {
  std::vector<std::string> out;
  for (int i = 0; const char* name = embedded_name(i); ++i)
    if (ends_with(name, ".json")) out.push_back(name);
  return out;
}

std::shared_ptr<const Lesson> find_lesson(const std::string& name_or_path) {
  for (const std::string& name : shipped_lessons())
    if (name == name_or_path || name == name_or_path + ".json")
      return std::make_shared<const Lesson>(parse_lesson(embedded_file(name.c_str()), name));
  // A bare name that is no file: a misspelt shipped lesson, not a missing file.
  if (name_or_path.find('/') == std::string::npos && !ends_with(name_or_path, ".json") && !path_exists(name_or_path)) {
    std::vector<std::string> names;
    for (const std::string& name : shipped_lessons()) names.push_back(name.substr(0, name.size() - 5));
    throw InputError("--lesson '" + excerpt(name_or_path) + "': no such lesson" + did_you_mean(name_or_path, names) +
                     "; give a shipped lesson (" + or_list(names) + ") or a lesson file (.json)");
  }
  return std::make_shared<const Lesson>(load_lesson(name_or_path));
}

void start_lesson(AppState& state, std::shared_ptr<const Lesson> lesson, int step) {
  state.lesson.lesson = std::move(lesson);
  state.lesson.step = -1;
  go_to_step(state, step);
}

void stop_lesson(AppState& state) {
  state.lesson.lesson.reset();
  state.lesson.step = 0;
  state.grid.opened = -1;
}

void go_to_step(AppState& state, int step) {
  const Lesson* lesson = state.lesson.lesson.get();
  if (!lesson || lesson->steps.empty()) return;
  step = std::clamp(step, 0, int(lesson->steps.size()) - 1);
  state.lesson.step = step;
  const LessonStep& s = lesson->steps[size_t(step)];
  const ModelRequest before = state.request;
  apply_session(state, s.session);
  if (s.needs_pretrained && s.session.request.model_path.empty() && !before.model_path.empty()) {
    state.request.model_path = before.model_path;
    state.request.tokenizer = before.tokenizer;
    if (s.session.request.sentence.empty()) state.request.sentence = before.sentence;
  }
  // Presentation mode keeps its projector-safe default colormap (cividis on black, viridis on white).
  use_presentation_colormap(state);
  state.grid.opened = -1;
  state.present.maps_hidden = state.present.hide_each_step;
  // A step's state is the lesson's, not the user's work: quitting or opening does not ask.
  mark_session_clean(state);
}

const LessonStep* active_step(const AppState& state) {
  const Lesson* lesson = state.lesson.lesson.get();
  if (!lesson || state.lesson.step < 0 || state.lesson.step >= int(lesson->steps.size())) return nullptr;
  return &lesson->steps[size_t(state.lesson.step)];
}

bool control_locked(const AppState& state, LessonControl control) {
  const LessonStep* step = active_step(state);
  return step && !step_unlocks(*step, control);
}

bool tab_unlocked(const AppState& state, View view) {
  if (!control_locked(state, LessonControl::panel) || view == state.view) return true;
  const LessonStep* step = active_step(state);
  return !step || step_unlocks_tab(*step, view);
}

void open_head(AppState& state, int layer, int head) {
  state.layer = layer, state.head = head;
  if (tab_unlocked(state, View::head)) request_view(state, View::head);
  else if (state.view == View::heads) state.grid.opened = head;  // the step keeps its tab: in place
}

std::vector<CompareRequest> compare_requests(const AppState& state) {
  std::vector<CompareRequest> out;
  if (const LessonStep* step = active_step(state))
    for (const LessonCompare& c : step->compare) {
      CompareRequest r{c.label, c.session.request};
      // A step that keeps a loaded checkpoint keeps it in its compare entries too.
      if (step->needs_pretrained && r.request.model_path.empty()) r.request.model_path = state.request.model_path;
      out.push_back(std::move(r));
    }
  return out;
}

bool same_compare(const std::vector<CompareRequest>& a, const std::vector<CompareRequest>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].label != b[i].label || !same_model_request(a[i].request, b[i].request)) return false;
  return true;
}

bool handle_lesson_keys(AppState& state) {
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return false;
  PresentationState& p = state.present;
  if (ImGui::IsKeyPressed(kKeyF5, false)) p.active = !p.active;
  if (p.active && pressed(ImGuiKey_Escape)) p.active = false;
  if (p.active && io.KeyCtrl) {
    // Text and maps together: past the default size the maps grow with the text (and scroll).
    if (zoom_in_pressed()) p.font_scale = std::min(p.font_scale + 0.2f, 4.0f);
    if (zoom_out_pressed()) p.font_scale = std::max(p.font_scale - 0.2f, 1.0f);
  }
  if (p.active && !io.KeyCtrl) {
    if (ImGui::IsKeyPressed(kKeyP, false)) p.pointer = !p.pointer;
    if (ImGui::IsKeyPressed(kKeyH, false)) p.maps_hidden = !p.maps_hidden;
    if (ImGui::IsKeyPressed(kKeySpace, false)) p.maps_hidden = false;
  }
  if (!state.lesson.lesson) return false;
  if (!io.KeyCtrl && ImGui::IsKeyPressed(kKeyC, false)) state.lesson.captions = !state.lesson.captions;
  const int step = state.lesson.step;
  if (pressed(ImGuiKey_RightArrow) || pressed(ImGuiKey_PageDown)) go_to_step(state, step + 1);
  if (pressed(ImGuiKey_LeftArrow) || pressed(ImGuiKey_PageUp)) go_to_step(state, step - 1);
  if (pressed(ImGuiKey_Home)) go_to_step(state, 0);
  return true;
}

LockScope::LockScope(const AppState& state, LessonControl control) : locked_(control_locked(state, control)) {
  if (locked_) ImGui::BeginDisabled();
}

LockScope::~LockScope() {
  if (locked_) ImGui::EndDisabled();
}

}  // namespace hs::gui
