#include "app/gui/open_model.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

namespace hs::gui {
namespace {

namespace fs = std::filesystem;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool same_model(const ModelRequest& a, const ModelRequest& b) {
  return a.model_path == b.model_path && a.tokenizer == b.tokenizer && a.weights == b.weights;
}

}  // namespace

std::string tokenizer_beside(const std::string& checkpoint) {
  const fs::path p(trim(checkpoint));
  if (p.empty() || !is_file(p)) return "";
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (is_file(dir / "tokenizer.bin")) return (dir / "tokenizer.bin").string();
  // llama2.c header: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len (int32);
  // a negative vocab_size means an unshared classifier.
  std::ifstream in(p, std::ios::binary);
  int32_t header[7] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return "";
  const int64_t vocab = header[5] < 0 ? -int64_t(header[5]) : int64_t(header[5]);
  if (vocab <= 0 || vocab > 10'000'000) return "";
  const fs::path tok = dir / ("tok" + std::to_string(vocab) + ".bin");
  return is_file(tok) ? tok.string() : "";
}

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
  state.request.model_path = m.path;
  state.request.tokenizer = m.tokenizer;
  state.request.weights.clear();
  state.request.input_npy.clear();
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
  if (shown.request.model_path.empty()) return;
  const auto& r = state.open_model.recent;
  const bool already_first = !r.empty() && r.front().path == shown.request.model_path &&
                             r.front().tokenizer == shown.request.tokenizer;
  if (same_model(state.request, shown.request)) state.open_model.error.clear();
  if (already_first) return;
  remember_recent_model(state, {shown.request.model_path, shown.request.tokenizer});
  if (ImGui::GetCurrentContext()) ImGui::MarkIniSettingsDirty();
}

bool keep_shown_model(AppState& state, const Derived* shown, const std::string& error) {
  if (!shown) {
    if (!state.request.model_path.empty()) state.open_model.error = error;
    return false;
  }
  if (same_model(state.request, shown->request)) return false;
  state.open_model.error = error;
  state.request.model_path = shown->request.model_path;
  state.request.tokenizer = shown->request.tokenizer;
  state.request.weights = shown->request.weights;
  state.request.input_npy = shown->request.input_npy;
  state.request.generate = shown->request.generate;
  // The source switch stays on "checkpoint" and the boxes keep the failed path, to fix it.
  state.open_model.seen_path = shown->request.model_path;
  return same_model_request(state.request, shown->request);
}

std::string model_being_loaded(const AppState& state, const UiContext& ui) {
  if (!ui.status.computing || state.request.model_path.empty()) return "";
  if (ui.derived && same_model(state.request, ui.derived->request)) return "";
  return model_display_name(state.request.model_path);
}

void draw_spinner(float radius) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImGui::Dummy(ImVec2(radius * 2 + 2, h));
  const ImVec2 c(p.x + radius + 1, p.y + h * 0.5f);
  const float t = float(ImGui::GetTime()) * 6.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PathArcTo(c, radius, t, t + 4.2f, 16);
  dl->PathStroke(ImGui::GetColorU32(ImGuiCol_Text), 0, std::max(2.0f, radius * 0.3f));
}

}  // namespace hs::gui
