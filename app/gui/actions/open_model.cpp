#include "app/gui/actions/open_model.h"

#include <imgui.h>
#include <imgui_internal.h>  // MarkIniSettingsDirty

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>

#include "app/gui/state/model_sentence.h"

namespace hs::gui {
namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool same_model(const ModelRequest& a, const ModelRequest& b) {
  return a.model_path == b.model_path && a.tokenizer == b.tokenizer && a.weights == b.weights;
}

}  // namespace

std::string trimmed_path(const std::string& box) { return trim(box); }

std::string tokenizer_beside(const std::string& checkpoint) { return find_llama2c_tokenizer(trim(checkpoint)); }

std::string model_display_name(const std::string& path) {
  std::string p = trim(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const std::string name = fs::path(p).filename().string();
  return name.empty() ? p : name;
}

bool open_model_from_boxes(AppState& state) {
  OpenModelState& m = state.open_model;
  m.path = trim(m.path);
  m.tokenizer = trim(m.tokenizer);
  if (m.path.empty()) {
    m.error = "give a llama2.c .bin file or a Hugging Face model folder to open";
    return false;
  }
  m.error.clear();
  m.checkpoint = true;
  clear_model_inputs(state.request);
  state.request.model_path = m.path;
  state.request.sentence = sentence_for_model(state.request.sentence, m.path);
  state.request.tokenizer = m.tokenizer;
  m.seen_path = m.path;
  return true;
}

void remember_recent_model(AppState& state, const RecentModel& m) {
  auto& r = state.open_model.recent;
  r.erase(std::remove_if(r.begin(), r.end(), [&](const RecentModel& x) { return x.path == m.path; }), r.end());
  r.insert(r.begin(), m);
  if (int(r.size()) > kMaxRecentModels) r.resize(size_t(kMaxRecentModels));
}

void note_good_result(AppState& state, const Derived& shown) {
  if (shown.analysis->request.model_path.empty()) return;
  const auto& r = state.open_model.recent;
  const bool already_first = !r.empty() && r.front().path == shown.analysis->request.model_path &&
                             r.front().tokenizer == shown.analysis->request.tokenizer;
  if (same_model(state.request, shown.analysis->request)) state.open_model.error.clear();
  if (already_first) return;
  remember_recent_model(state, {shown.analysis->request.model_path, shown.analysis->request.tokenizer});
  if (ImGui::GetCurrentContext()) ImGui::MarkIniSettingsDirty();
}

bool keep_shown_model(AppState& state, const Derived* shown, const std::string& error) {
  if (!shown) {
    if (!state.request.model_path.empty()) state.open_model.error = error;
    return false;
  }
  if (same_model(state.request, shown->analysis->request)) return false;
  // The open put the failed model's example sentence in the request (model_sentence.h): the shown
  // sentence comes back with the shown model, or the next result would hide the error (the control
  // fuzz test checks it). A sentence the user typed is not an example and stays.
  if (is_example_sentence(state.request.sentence)) state.request.sentence = shown->analysis->request.sentence;
  state.open_model.error = error;
  state.request.model_path = shown->analysis->request.model_path;
  state.request.tokenizer = shown->analysis->request.tokenizer;
  state.request.weights = shown->analysis->request.weights;
  state.request.input_npy = shown->analysis->request.input_npy;
  state.request.generate = shown->analysis->request.generate;
  // The source switch stays on "checkpoint" and the boxes keep the failed path, to fix it.
  state.open_model.seen_path = shown->analysis->request.model_path;
  return same_model_request(state.request, shown->analysis->request);
}

std::string model_being_loaded(const AppState& state, const UiContext& ui) {
  if (!ui.status.computing || state.request.model_path.empty()) return "";
  if (ui.derived && same_model(state.request, ui.derived->analysis->request)) return "";
  return model_display_name(state.request.model_path);
}

}  // namespace hs::gui
