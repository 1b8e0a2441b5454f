#include "app/gui/state/selection.h"

#include <algorithm>
#include <string>

namespace hs::gui {

namespace {

std::string count_of(int n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// "--layer 9 is out of range: stories260K has 5 layers (valid: 0 to 4); showing layer 4", or "".
std::string out_of_range(const WantedSelection& w, const ModelInfo& info, int layers, int heads) {
  std::string note;
  const auto say = [&](const char* what, int asked, int count, const std::string& has) {
    if (count <= 0 || (asked >= 0 && asked < count)) return;
    note += std::string(note.empty() ? "" : "; ") + (w.from_flags ? "--" : "") + what + " " + std::to_string(asked) +
            " is out of range: " + has + " (valid: 0 to " + std::to_string(count - 1) + "); showing " + what + " " +
            std::to_string(std::clamp(asked, 0, count - 1));
  };
  say("layer", w.layer, layers, (info.name.empty() ? "the model" : info.name) + " has " + count_of(layers, "layer"));
  say("head", w.head, heads, "each layer has " + count_of(heads, "head"));
  return note;
}

}  // namespace

void clamp_selection(AppState& s, const Derived& d) {
  const int layers = d.run().n_layers(), heads = d.run().n_heads(), tokens = d.run().n_tokens();
  const bool wanted_now = s.wanted_selection && d.analysis && same_model_request(d.analysis->request, s.request);
  if (wanted_now) {
    // The first result of the request asked for: the wanted selection, or what the note says instead.
    s.layer = s.wanted_selection->layer, s.head = s.wanted_selection->head;
    s.selection_note.text = out_of_range(*s.wanted_selection, d.run().info, layers, heads);
    s.wanted_selection.reset();
  } else if (s.layer != s.selection_note.layer || s.head != s.selection_note.head) {
    s.selection_note = {};  // the selection moved on
  }
  s.layer = std::clamp(s.layer, 0, std::max(layers - 1, 0));
  s.head = std::clamp(s.head, 0, std::max(heads - 1, 0));
  if (wanted_now) s.selection_note.layer = s.layer, s.selection_note.head = s.head;
  auto& q = s.query.queries;
  q.erase(std::remove_if(q.begin(), q.end(), [&](int i) { return i < 0 || i >= tokens; }), q.end());
  s.difference.pair_a = std::clamp(s.difference.pair_a, 0, std::max(heads - 1, 0));
  s.difference.pair_b = std::clamp(s.difference.pair_b, 0, std::max(heads - 1, 0));
}

int heads_per_group(const ModelInfo& info) {
  if (info.n_kv_heads <= 0 || info.n_heads <= 0 || info.n_heads % info.n_kv_heads != 0) return 1;
  return info.n_heads / info.n_kv_heads;
}

void select_most_changed_model_head(AppState& state, const Derived& derived) {
  const ContrastRun* c = derived.contrast.get();
  if (!c || !c->is_models() || !c->analysis || !c->answers(contrast_ask(state))) return;
  if (state.contrast.model_b_shown == c->model_b) return;
  state.contrast.model_b_shown = c->model_b;
  const std::vector<std::vector<int>> ranks = change_ranks(c->result);
  for (size_t l = 0; l < ranks.size(); ++l)
    for (size_t h = 0; h < ranks[l].size(); ++h)
      if (ranks[l][h] == 1) state.layer = int(l), state.head = int(h);
}

}  // namespace hs::gui
