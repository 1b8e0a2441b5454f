#pragma once
// The desktop app's command line: the model flags it shares with headscope-cli
// (app/common/model_flags.h), what to show, the window, lessons, screenshots and the hidden
// benchmark flags; and the AppState they open on.
#include <string>
#include <vector>

#include "app/common/model_flags.h"
#include "app/gui/platform/bench_mode.h"
#include "app/gui/state/app_state.h"

namespace CLI {
class App;
}

namespace hs::gui {

struct Options {
  ModelFlags model;
  std::string screenshot;
  int frames = 0;  // 0: with --screenshot 3, else until the window is closed
  std::string view = "heads";
  std::string colormap = "viridis";
  std::string scale = "linear";  // --color-scale (--scale)
  bool ignore_first_key = false;
  int layer = 0, head = 0;
  bool all_layers = false;
  bool rollout = false;  // Average tab: attention rollout through all layers
  bool clustered = false;  // --clustered: Heads grid and difference matrix in the clustering's order
  std::string ablation;  // --ablation zero|mean (--ablate): run head ablation once the first result is on screen
  int threads = 0;       // --threads: the engine's threads (0: every core)
  std::string export_dialog;  // --export-dialog WHAT[:ROLE]: open File > Export... on WHAT (screenshots, tests)
  std::string session_dialog;  // --session-dialog FOLDER: open File > Open session... on FOLDER (screenshots)
  int width = 1600, height = 1000;
  std::string open;       // positional: a session .json (or a model file/folder) to open
  std::string lesson;     // --lesson NAME|FILE
  int step = 1;           // --step N (1-based)
  bool present = false;   // --present
  bool notes = false;     // --notes: print the --lesson's steps with their presenter notes and exit
  std::string check_lesson;  // --check-lesson FILE: the layout and text checks of app/gui/panels/lesson_check.h, then exit
  std::vector<float> zoom;  // --zoom X0,Y0,SPAN: the single-head and difference maps zoomed (fractions of the map)
  std::string theme;      // --theme dark|light ("": the remembered one, else dark)
  std::string contrast;   // --contrast TEXT: a minimal pair's sentence B (the Contrast view)
  std::string target, versus;  // --target / --versus TEXT: the continuations activation patching compares
  bool patch = false;     // --patch: run activation patching once both sentences are shown
  std::string model_b;      // --model-b PATH: the Contrast view compares --model with this model on one input
  std::string tokenizer_b;  // --tokenizer-b FILE: model B's llama2.c tokenizer
  std::string memory_budget;  // --memory-budget MIB or SIZE (8G): this session's memory budget ("": HEADSCOPE_MEMORY_BUDGET, else the remembered one)
  std::string save_opened_map;  // --save-opened-map FILE.npy: with --screenshot, the opened head's exact map
  BenchOptions bench;     // hidden --bench-* flags (tests/bench/run.sh)
  bool view_asked = false;   // --view, --all-layers, --rollout, --lesson or a session chose what to show
  bool model_asked = false;  // a flag named a model or the synthetic layer's shape (note_model_flags)
};

// Registers every flag of `headscope` on `app`, bound to `o`.
void add_app_flags(CLI::App& app, Options& o);

// After parsing: whether a flag asked for a model (--model, --weights, --attention, --input,
// --input-ids) or for the synthetic layer's random weights (--d-model, --heads, --kv-heads,
// --d-head, --seed, --causal, --window, --scrambled-reshape).
void note_model_flags(const CLI::App& app, Options& o);

// The state the app opens on: the first screen (the teaching model on the first example
// sentence, first_screen_state) unless a flag asks for a model, then the flags, a session or
// checkpoint named on the command line, a lesson. Throws hs::Error for a bad session or lesson.
AppState initial_state(const Options& o);

}  // namespace hs::gui
