#include "app/gui/state/app_state.h"

#include <cmath>

#include "core/session/session_file.h"

namespace hs::gui {

AppState default_app_state() {
  AppState s;
  s.request = default_session().request;  // the built-in default, defined once (core/session)
  return s;
}

namespace {

// NaN equals NaN here: a NaN temperature is one (bad) setting, not a new request every frame.
bool same_float(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

bool same_model_request(const ModelRequest& a, const ModelRequest& b) {
  const AttentionConfig &x = a.attention, &y = b.attention;
  return a.sentence == b.sentence && a.sentence_b == b.sentence_b && a.input_ids == b.input_ids &&
         a.token_type_ids == b.token_type_ids && a.attention_file == b.attention_file && a.input_npy == b.input_npy &&
         a.weights == b.weights && a.model_path == b.model_path && a.tokenizer == b.tokenizer && a.seed == b.seed && a.generate == b.generate &&
         x.d_model == y.d_model && x.n_heads == y.n_heads && x.n_kv_heads == y.n_kv_heads && x.d_head == y.d_head &&
         x.causal == y.causal && x.window == y.window && same_float(x.temperature, y.temperature) && x.bias == y.bias &&
         x.scrambled_reshape == y.scrambled_reshape;
}

void clear_model_inputs(ModelRequest& r) {
  r.weights.clear(), r.input_npy.clear(), r.attention_file.clear(), r.sentence_b.clear();
  r.input_ids.clear(), r.token_type_ids.clear();
}

ColourScale view_colour_scale(const AppState& state, View view, float layer_max) {
  ColourScale c = state.scale;
  c.per_map = view == View::heads && state.grid.per_head_range && !state.grid.all_layers;
  c.fixed_max = (view == View::head || view == View::query) && state.head_view.layer_range ? layer_max : 0.0f;
  return c;
}

PairMeasure shown_pair_measure(const AppState& state) {
  return state.lesson.lesson ? PairMeasure::difference : state.difference.measure;
}

std::vector<int> shown_queries(const AppState& state, int tokens) {
  if (!state.query.queries.empty() || tokens <= 0) return state.query.queries;
  return {tokens - 1};
}

void request_view(AppState& state, View view) {
  state.view = view;
  state.view_requested = true;
}

}  // namespace hs::gui
