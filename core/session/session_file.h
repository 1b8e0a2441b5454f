#pragma once
// Session files: the whole state a person sees (sentence, model and its settings or checkpoint
// path, selected layer/head/query tokens, view, colour scale) as a small, versioned JSON file.
// Documented in docs/session-format.md. Reading is strict about types, ranges and keys and names
// the key at fault (an unknown key is refused with the nearest known one: a misspelt key is never
// read as if it were absent); a file from a newer headscope is refused with its version.
//
//   {"format": "headscope-session", "version": 1,
//    "input": {"sentence": "..."},            (+ "contrast": "...", a minimal pair's sentence B;
//                                              "target", "versus": its two continuations)
//    "model": {"d_model": 8, "heads": 4, "kv_heads": 4, "d_head": 0, "causal": false,
//              "window": null, "temperature": 1, "seed": 0,
//              "weights": "", "checkpoint": "", "tokenizer": "", "generate": 0, "reshape": "correct"},
//              (+ "checkpoint_b", "tokenizer_b": a second model compared with the checkpoint)
//    "view": {"panel": "heads", "layer": 0, "head": 0, "queries": [0],
//             "color_scale": "linear", "ignore_first_column": false, "colormap": "viridis",
//             "roles_sort": "layer", "width": "keys"}}
#include <string>
#include <tuple>
#include <vector>

#include "core/model/model_request.h"

namespace hs {

constexpr int kSessionVersion = 1;

// What is selected and how it is drawn. Panel and scale names are checked against the lists below.
struct ViewState {
  std::string panel = "heads";  // a view's name (core/export/view_registry.h); read aliases become names
  int layer = 0;
  int head = 0;
  std::vector<int> queries;  // empty: the last token
  std::string color_scale = "linear";  // see session_color_scales()
  bool ignore_first_column = false;
  std::string colormap = "viridis";
  std::string roles_sort = "layer";  // the column the Head roles table opens sorted by; see session_roles_sorts()
  // The Head width view's part: "keys" (which keys each head can pick), "sweep" (the head-count
  // sweep and singular values), or a pattern to fit at every width (core/analysis/target_pattern.h).
  std::string width = "keys";

  // Every field (a field added above goes here too: tests/core/model/model_request_equality_test.cpp).
  auto tie() const {
    return std::tie(panel, layer, head, queries, color_scale, ignore_first_column, colormap, roles_sort, width);
  }
  bool operator==(const ViewState& o) const { return tie() == o.tie(); }
  bool operator!=(const ViewState& o) const { return !(*this == o); }
};

struct Session {
  ModelRequest request;
  ViewState view;
  std::string contrast;  // input.contrast: a minimal pair's sentence B ("" none; written only when set)
  // input.target / input.versus: the two continuations whose logit difference the Contrast view's
  // activation patching measures (" are", " is"; "" none; written only when set).
  std::string target, versus;
  // model.checkpoint_b / model.tokenizer_b: the second model the Contrast view compares the
  // checkpoint with on the same input, and its llama2.c tokenizer ("" none; written only when set).
  std::string model_b, tokenizer_b;
};

const std::vector<std::string>& session_panels();        // every view's name and alias (view_registry.h)
const std::vector<std::string>& session_color_scales();  // linear, log, row
// The Head roles table's columns: layer, head, role, then each role score (head_role_name()).
// Scores sort highest first, the others ascending.
const std::vector<std::string>& session_roles_sorts();

std::string session_to_json(const Session& s);

// What a session leaves out when nothing else is given: the app's built-in start (the sentence
// "the keys that Priya left on the table were not hers", d_model 8, 4 heads). A session without
// "input" (docs/session-format.md allows it) opens on this sentence; with an empty base it opened
// on no sentence and the app could only say "no input: give --sentence TEXT".
Session default_session();

// `name` is used in messages (the file path). `base` supplies every value the text leaves out
// (lessons use this: a step says only what changes). Throws FormatError.
Session parse_session(const std::string& text, const std::string& name, const Session& base = default_session());

Session load_session(const std::string& path, const Session& base = default_session());
void save_session(const std::string& path, const Session& s);  // atomic

}  // namespace hs
