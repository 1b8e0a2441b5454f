#include "app/gui/actions/session_bridge.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/state/model_sentence.h"
#include "core/model/pretrained.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

namespace fs = std::filesystem;

// The first 512 bytes of a file ("" when it cannot be read): where a session or lesson file names
// its format ("format": "headscope-session" / "headscope-lesson").
std::string file_head(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  return head;
}

// The Head roles table's sort column by its session name (session_roles_sorts(): layer, head,
// role, then the roles in HeadRole order), and back.
int roles_sort_from_name(const std::string& name) {
  const std::vector<std::string>& names = session_roles_sorts();
  const int i = int(std::find(names.begin(), names.end(), name) - names.begin());
  if (i == 1) return kSortByHead;
  if (i == 2) return kSortByLabel;
  return i >= 3 && i < int(names.size()) ? i - 3 : kSortByLayer;
}

std::string roles_sort_name(int sort) {
  if (sort == kSortByHead) return "head";
  if (sort == kSortByLabel) return "role";
  return sort >= 0 && sort < kHeadRoleCount ? head_role_name(HeadRole(sort)) : "layer";
}

bool is_json(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".json";
}

// A .json file that names the lesson format near its start.
bool is_lesson_file(const std::string& path) {
  std::error_code ec;
  return is_json(path) && fs::is_regular_file(path, ec) && file_head(path).find("\"headscope-lesson\"") != std::string::npos;
}

}  // namespace

Session session_from_state(const AppState& state) {
  Session s;
  s.request = state.request;
  s.view.panel = view_name(state.view == View::heads && state.grid.all_layers ? View::overview : state.view);
  s.view.layer = state.layer;
  s.view.head = state.head;
  s.view.queries = state.query.queries;
  s.view.color_scale = scale_mode_name(state.scale.mode);
  s.view.ignore_first_column = state.scale.ignore_first_key;
  s.view.colormap = colormap_name(state.scale.colormap);
  s.contrast = state.contrast.sentence;
  s.model_b = state.contrast.model_b, s.tokenizer_b = state.contrast.tokenizer_b;
  s.target = state.contrast.target, s.versus = state.contrast.versus;
  s.view.roles_sort = roles_sort_name(state.roles.sort);
  s.view.width = state.width.show;
  return s;
}

void apply_session(AppState& state, const Session& session) {
  state.request = session.request;
  state.contrast.sentence = session.contrast;
  state.contrast.model_b = session.model_b, state.contrast.tokenizer_b = session.tokenizer_b;
  state.contrast.model_b_shown = session.model_b;  // the session's layer and head, not model B's most changed
  state.contrast.target = session.target, state.contrast.versus = session.versus;
  if (session.request.attention.window >= 0) state.model.window_size = session.request.attention.window;  // the W slider
  const View view = find_view(session.view.panel) ? find_view(session.view.panel)->view : View::heads;
  state.grid.all_layers = view == View::overview;
  request_view(state, view);
  state.layer = session.view.layer;
  state.head = session.view.head;
  state.wanted_selection = WantedSelection{session.view.layer, session.view.head, false};  // checked against the model
  state.query.queries = session.view.queries;
  state.scale.mode = parse_scale_mode(session.view.color_scale);  // checked when the file was read
  state.scale.ignore_first_key = session.view.ignore_first_column;
  state.roles.sort = roles_sort_from_name(session.view.roles_sort);
  state.width.show = session.view.width;
  const Colormap c = parse_colormap(session.view.colormap);
  // The views draw sequential maps only; a diverging choice falls back to the default.
  state.scale.colormap = colormap_is_diverging(c) ? Colormap::viridis : c;
}

std::vector<std::string> list_session_files(const std::string& folder, int most) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(folder.empty() ? fs::path(".") : fs::path(folder), ec), end;
  for (int seen = 0; !ec && it != end && seen < 4096 && int(out.size()) < most; it.increment(ec), ++seen) {
    const fs::path& p = it->path();
    std::error_code file_ec;  // one unreadable entry skips itself, not the rest
    if (!is_json(p.string()) || !it->is_regular_file(file_ec)) continue;
    // A session or lesson file names its format near its start; other JSON (sidecars) does not.
    const std::string head = file_head(p);
    if (head.find("\"headscope-session\"") != std::string::npos || head.find("\"headscope-lesson\"") != std::string::npos)
      out.push_back(p.filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void remember_recent_session(AppState& state, const std::string& path) {
  std::error_code ec;
  const fs::path full = fs::absolute(path, ec);
  const std::string p = ec ? path : full.lexically_normal().string();
  auto& r = state.session.recent;
  r.erase(std::remove(r.begin(), r.end(), p), r.end());
  r.insert(r.begin(), p);
  if (int(r.size()) > kMaxRecentSessions) r.resize(size_t(kMaxRecentSessions));
  if (ImGui::GetCurrentContext()) ImGui::MarkIniSettingsDirty();
}

std::string session_path(const SessionPanelState& s) {
  if (s.folder.empty()) return s.file_name;
  return (fs::path(s.folder) / s.file_name).string();
}

void open_path(AppState& state, const std::string& path) {
  if (is_lesson_file(path)) {  // a teacher's lesson: it starts (and is checked as it loads, lesson_check.h)
    start_lesson(state, find_lesson(path), 0);
    return;
  }
  if (is_json(path)) {
    const Session s = load_session(path);  // throws before anything changes
    apply_session(state, s);
    return;
  }
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IoError("cannot open " + path + ": no such file or folder");
  clear_model_inputs(state.request);
  state.request.model_path = path;
  state.request.sentence = sentence_for_model(state.request.sentence, path);
  state.request.tokenizer = fs::is_directory(path, ec) ? std::string() : find_llama2c_tokenizer(path);
}

void reset_session(AppState& state) {
  stop_lesson(state);
  apply_session(state, session_from_state(first_screen_state()));  // the first screen: the teaching model
  state.open_model.checkpoint = false;
  state.model = ModelPanelState{};
}

namespace {

void open_paths(AppState& state, const std::vector<std::string>& paths, StatusInfo& status) {
  SessionPanelState& s = state.session;
  for (const std::string& path : paths) {
    try {
      open_path(state, path);
      status.error.clear();
      status.export_failed = false;
      status.last_export = "opened " + path;
      if (is_json(path) && !is_lesson_file(path)) {  // a session (a lesson file started its lesson)
        s.folder = fs::path(path).parent_path().string();
        s.file_name = fs::path(path).filename().string();
        s.named = true;
        mark_session_clean(state);  // what is on screen is what the file holds
        remember_recent_session(state, path);
      }
    } catch (const std::bad_alloc&) {
      // Readers bound what they read; this is the rest (a session asking for a huge model).
      status.error = "cannot open " + path + ": out of memory (the file asks for more than the memory available)";
    } catch (const std::exception& e) {
      status.error = e.what();
    }
  }
}

}  // namespace

void run_guarded(AppState& state, const GuardedAction& action, StatusInfo& status) {
  switch (action.kind) {
    case GuardedKind::open: open_paths(state, action.paths, status); break;
    case GuardedKind::start_lesson:
      if (action.lesson) start_lesson(state, action.lesson, action.step);  // marks the step clean
      break;
    case GuardedKind::reset:
      reset_session(state);
      state.session.named = false;
      mark_session_clean(state);
      status.error.clear();
      status.export_failed = false;
      status.last_export = "new session";
      break;
    case GuardedKind::quit: state.unsaved.quit = true; break;
    case GuardedKind::none: break;
  }
}

void open_files(AppState& state, std::vector<std::string> paths, StatusInfo& status) {
  // A session file replaces what is on screen: it asks first when that is unsaved. Checkpoints
  // alone only change the model (the session stays, and is then unsaved).
  bool any_session = false;
  for (const std::string& p : paths) any_session = any_session || is_json(p);
  if (any_session) ask_action(state, open_action(std::move(paths)));
  else open_paths(state, paths, status);
}

void save_session_file(AppState& state, StatusInfo& status) {
  SessionPanelState& s = state.session;
  const std::string path = session_path(s);
  try {
    save_session(path, session_from_state(state));  // atomic: a failure leaves the old file
    status.export_failed = false;
    status.last_export = "saved session " + path;
    s.named = true;
    remember_recent_session(state, path);
    mark_session_clean(state);
    saved_for_unsaved(state, true);
  } catch (const std::bad_alloc&) {
    status.export_failed = true;
    status.last_export = "cannot save " + path + ": out of memory";
    if (state.unsaved.save_first) status.last_export += " (nothing was discarded)";
    saved_for_unsaved(state, false);
  } catch (const std::exception& e) {
    status.export_failed = true;
    status.last_export = e.what();
    if (state.unsaved.save_first) status.last_export += " (nothing was discarded)";
    saved_for_unsaved(state, false);
  }
}

void drop_unsaved_save(AppState& state) {
  if (state.unsaved.save_first && state.session.dialog != SessionDialog::save) {
    saved_for_unsaved(state, false);  // the save dialog was closed without saving: nothing happens
  }
}

}  // namespace hs::gui
