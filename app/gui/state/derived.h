#pragma once
// Derived: what the app shows for one ModelRequest, made off the UI thread by the worker
// (app/gui/work/) and shown until a newer good result replaces it. Immutable once published.
// The run and everything derived from it is core's RunAnalysis (core/analysis/run_analysis.h),
// shared, never copied; the head-count sweep sits beside it and arrives later.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/contrast.h"
#include "core/analysis/model_contrast.h"
#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"

namespace hs::gui {

// One `compare` entry of a lesson step: its own request, computed with the main one.
struct CompareRequest {
  std::string label;
  ModelRequest request;
};

struct CompareResult {
  std::string label;
  std::shared_ptr<const RunAnalysis> analysis;  // null when the entry's request failed
  std::string error;
};

// What the Contrast view compares the main run with: sentence B through the same model (a minimal
// pair), or, when model_b is set, the same input through a second model (sentence ignored).
struct ContrastAsk {
  std::string sentence;     // a minimal pair's sentence B ("" none)
  std::string model_b;      // two models: model B's file, folder or shipped name ("" none)
  std::string tokenizer_b;  // model B's llama2.c tokenizer ("" the rule of model_b_request)
  // The app's memory budget (bytes) and its source: two models that do not fit it together are
  // refused before either is read (ModelPairOptions::memory_budget). Not part of the comparison.
  int64_t memory_budget = -1;
  std::string memory_budget_source;
  bool models() const { return !model_b.empty(); }
  bool empty() const { return sentence.empty() && model_b.empty(); }
  bool operator==(const ContrastAsk& o) const {
    return sentence == o.sentence && model_b == o.model_b && tokenizer_b == o.tokenizer_b;
  }
  bool operator!=(const ContrastAsk& o) const { return !(*this == o); }
};

// A minimal pair: the run of sentence B and how each head changed from the main run (A). Two
// models: model B's run on the main input, and A's run as the comparison made it (the same
// code path as `headscope-cli compare --model-b`: core/analysis/model_pair_run.h).
struct ContrastRun {
  std::string sentence;                         // sentence B (two models: "")
  std::string model_b, tokenizer_b;             // two models: model B as asked ("" a minimal pair)
  std::shared_ptr<const RunAnalysis> analysis;  // null when B's run or the comparison failed
  std::shared_ptr<const RunAnalysis> analysis_a;  // two models: A's run of the comparison (else null)
  ModelComparison models;                       // two models: paths, same file, next-token agreement, notes
  ContrastResult result;
  std::string error;
  bool is_models() const { return !model_b.empty(); }
  // Whether this result answers `ask` (sentence B, or model B and its tokenizer).
  bool answers(const ContrastAsk& ask) const {
    return ask.models() ? model_b == ask.model_b && tokenizer_b == ask.tokenizer_b : !is_models() && sentence == ask.sentence;
  }
};

struct Derived {
  uint64_t generation = 0;
  std::shared_ptr<const RunAnalysis> analysis;  // never null in a published result
  std::shared_ptr<const Sweep> sweep;           // null until the sweep is computed
  std::vector<CompareResult> compare;           // lesson step: entries shown side by side
  std::shared_ptr<const ContrastRun> contrast;  // null without a contrast sentence
  // The head roles with induction measured on its probe (core/analysis/induction_probe.h): the app
  // analyses without the probe, and measures it once the Head roles view is shown (once per model).
  std::shared_ptr<const HeadRoles> roles;       // null: not measured
  bool induction_checked = false;               // the worker tried (roles may stay null: no vocabulary)
  // Singular values were asked for (analysis->spectrum has them where spectrum_fits allows), and the
  // sweep after them: only while a view that shows them is on screen, since they are most of a small
  // model's keystroke (stories260K: 19 of 20 ms; the synthetic default's sweep ran beside the next frame).
  bool spectrum = false;
  double worker_ms = 0;  // the worker's time for this result (analysis, compare entries, induction)

  // The roles the views show: with induction when measured.
  const HeadRoles& shown_roles() const { return roles ? *roles : analysis->roles; }

  const AttentionRun& run() const { return analysis->run; }
};

}  // namespace hs::gui
