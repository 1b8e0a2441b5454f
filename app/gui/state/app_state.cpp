#include "app/gui/state/app_state.h"

#include <unistd.h>

#include "core/analysis/model_pair_memory.h"
#include "core/util/runtime_config.h"

#include "app/gui/state/examples.h"
#include "core/session/session_file.h"

namespace hs::gui {

AppState default_app_state() {
  AppState s;
  s.request = default_session().request;  // the built-in default, defined once (core/session)
  return s;
}

AppState first_screen_state() {
  AppState s = default_app_state();
  s.request.model_path = "teaching";  // core/model/shipped_models.h
  s.request.sentence = example_sentences().front();
  return s;
}

bool same_model_request(const ModelRequest& a, const ModelRequest& b) {
  return same_fields(a.input_tie(), b.input_tie());  // fit_context aside: the app fits every request it runs
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

std::vector<int> shown_queries(const AppState& state, int tokens) {
  if (!state.query.queries.empty() || tokens <= 0) return state.query.queries;
  return {tokens - 1};
}

void request_view(AppState& state, View view) {
  state.view = view_descriptor(view).tab;
  if (view == View::overview) state.grid.all_layers = true;
  if (view == View::rollout) state.average.rollout = true;
}

bool shows_singular_values(View view) { return view == View::width || view == View::head; }

bool view_switch_pending(const AppState& state) { return state.view != state.tab_shown; }

ContrastAsk contrast_ask(const AppState& state) {
  ContrastAsk ask;
  if (!state.contrast.model_b.empty()) ask.model_b = state.contrast.model_b, ask.tokenizer_b = state.contrast.tokenizer_b;
  else ask.sentence = state.contrast.sentence;
  // An unreadable HEADSCOPE_MEMORY_BUDGET is left to the comparison, which refuses it with its text.
  const RuntimeConfig config = runtime_config();
  if (state.memory_budget_flag_mib > 0 || config.memory_budget.empty() || parse_memory_budget(config.memory_budget) >= 0) {
    ask.memory_budget = memory_budget_bytes(state);
    ask.memory_budget_source = memory_budget_source(state);
  }
  return ask;
}

int64_t automatic_memory_budget_bytes() {
  static const int64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? int64_t(pages) * page / 4 * 3 : int64_t(3072) * 1024 * 1024;
  }();
  return bytes;
}

// HEADSCOPE_MEMORY_BUDGET's budget in bytes (-1: not set, or not a budget).
int64_t environment_memory_budget() {
  const RuntimeConfig config = runtime_config();
  return config.memory_budget.empty() ? -1 : parse_memory_budget(config.memory_budget);
}

int64_t memory_budget_bytes(const AppState& state) {
  if (state.memory_budget_flag_mib > 0) return int64_t(state.memory_budget_flag_mib) * 1024 * 1024;
  if (const int64_t env = environment_memory_budget(); env >= 0) return env;
  if (state.memory_budget_mib > 0) return int64_t(state.memory_budget_mib) * 1024 * 1024;
  return automatic_memory_budget_bytes();
}

std::string memory_budget_source(const AppState& state) {
  if (state.memory_budget_flag_mib > 0) return "--memory-budget";
  if (environment_memory_budget() >= 0) return runtime_config().memory_budget_source;
  if (state.memory_budget_mib > 0) return "View > Memory budget";
  return "View > Memory budget: automatic, 3/4 of this machine's memory";
}

}  // namespace hs::gui
