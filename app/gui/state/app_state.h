#pragma once
// AppState: everything the user set, and nothing computed. Panels write it, and push what they
// ask the app to do onto its command queue (commands.h); the worker reads a copy of its model
// part (ModelRequest) and hands back Derived results.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/commands.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/zoom_state.h"
#include "app/gui/state/undo_history.h"
#include "core/export/view_registry.h"
#include "core/analysis/run_analysis.h"
#include "core/model/model_request.h"
#include "core/render/colour_scale.h"
#include "core/text/token_label.h"
#include "core/session/lesson_file.h"

namespace hs::gui {

struct SentencePanelState {
  // The query and key tokens a map hovered last frame (-1: none): the chip bar shows them.
  int hovered_query = -1, hovered_key = -1;
};

struct ModelPanelState {
  int window_size = 2;          // remembered while the window checkbox is off
};

// Opening a checkpoint from inside the app (app/gui/panel_open_model.cpp, open_model.h).
struct RecentModel {
  std::string path;       // llama2.c .bin or Hugging Face folder
  std::string tokenizer;  // "" = the loader's own choice
};

struct OpenModelState {
  bool checkpoint = false;          // the Model source switch: synthetic (false) or checkpoint
  std::string path, tokenizer;      // the boxes; Open copies them into the request
  bool tokenizer_auto = false;      // the tokenizer box was filled in from the checkpoint's folder
  std::string seen_path;            // request.model_path the boxes were last synced with
  std::vector<RecentModel> recent;  // newest first, at most kMaxRecentModels; persisted in imgui.ini
  std::string error;                // why the last open failed ("" when it did not)
  int generate_draft = -1;          // the "continue" slider while dragged (-1: not dragging)
};

struct GridPanelState {
  bool all_layers = false;      // layers x heads overview
  bool per_head_range = false;  // each head on its own colour range (default: one range for the layer)
  int opened = -1;              // a lesson that keeps its tab: the head clicked open in place (-1: none)
  bool clustered = false;       // heads in the order of their clustering (core/analysis/head_clustering.h)
  // The first result is a long text (long-input mode) and no flag chose a view: open on the layers x
  // heads overview of block maxima (cleared once the first result has been seen).
  bool overview_if_long = false;
};

struct HeadPanelState {
  bool show_values = false;  // print each cell's weight on it
  bool layer_range = false;  // the head on its layer's colour range (default: its own)
  bool region_range = false; // zoomed: the colours span the visible region's weights (a long input's region looks dim on the head's)
  MapZoom zoom;              // wheel / drag / double-click (not part of a session)
};

struct QueryPanelState {
  // Selected query tokens (their rows are summed). Empty: the last token, following the sentence
  // as it grows (in a causal model token 0 sees only itself); a choice stays until changed.
  std::vector<int> queries;
};

struct DifferencePanelState {
  int pair_a = 0, pair_b = 1;  // pair shown side by side when nothing is hovered
  MapZoom zoom;  // the pair's maps side by side, zoomed together
  bool clustered = false;  // the matrix in the order of the heads' clustering, with its dendrogram
};

// A minimal pair (app/gui/panels/panel_contrast.cpp): sentence B, run through the same model and
// compared with the sentence token by token (core/analysis/contrast.h).
// target / versus: two continuations (" are", " is") whose logit difference activation patching
// measures (core/analysis/pair_target.h); the job runs in app/gui/work/patching_job.h.
struct ContrastPanelState {
  std::string sentence;  // "" none: the Contrast view asks for one
  // Two models (--model-b, Model > Compare with model...): the main input through a second model
  // instead of sentence B; "" none. tokenizer_b: its llama2.c tokenizer ("" the rule of
  // core/analysis/model_pair_run.h: A's when B is a .bin too).
  std::string model_b, tokenizer_b;
  std::string model_b_box;  // the Model panel's "compare with model" box (not yet asked for)
  // A head hovered in the heads table or the layers x heads map this frame, and last frame's (the
  // other one marks it): -1 none.
  int hovered_layer = -1, hovered_head = -1;
  int linked_layer = -1, linked_head = -1;
  std::string model_b_shown;  // the model B whose comparison the view last showed (a new one selects its most changed head)
  int hovered_step = -1; // the alignment step a map hovered last frame (-1: none): the other maps mark its row
  std::string target, versus;
};

struct ExportPreview;  // app/gui/actions/export_preview.h

struct ExportPanelState {
  std::string folder;                       // remembered between exports ("" = current folder)
  std::string file_name = "headscope.png";  // the extension picks the format
  // The Export dialog (File > Export..., Ctrl+E).
  bool dialog_open = false;
  std::optional<View> what;         // none: this view as shown; else one of export_dialog_views()
  int role = 0;                     // what == roles: a HeadRole; -1 every role (NPY, CSV, JSON only)
  std::string size;                 // "" the natural layout; "3.25x3.25in", "8x6cm", "1600x1200px": a page
  float dpi = 144.0f;               // PNG resolution
  float font_size = 0.0f;           // points; 0: 8 with a page size, else the natural layout's
  bool slide = false;               // --preset slide: a 16:9 slide the maps fill (size and font size, when given, win)
  bool show_title = true;
  std::string title;                // "" the figure's own
  bool view_colours = true;         // the view's colormap and scale; else the two below
  Colormap colormap = Colormap::viridis;
  ScaleMode scale_mode = ScaleMode::linear;
  std::string font;                 // font family of exported figures ("" DejaVu Sans); settings: export_font
  // Never overwrite silently: a save onto an existing file stops here until the user says yes.
  std::string confirm_path;         // the file that exists ("" none pending)
  bool overwrite_confirmed = false; // the next save may replace confirm_path
  // The dialog's preview: the export's own PNG, re-rendered once the settings rest (export_preview.h).
  std::shared_ptr<const ExportPreview> preview;
  std::string preview_wanted;       // the settings the preview should show
  double preview_wanted_since = 0;  // when they last changed (seconds, ImGui time)
};

struct WidthPanelState {
  bool log_singular_values = true;
  // The part shown: "keys" (which keys each head can pick), "sweep" (the head-count sweep and the
  // singular values), or a pattern fitted at every width (core/analysis/target_pattern.h); the
  // fit runs in app/gui/work/fit_job.h, started by the FitPattern command.
  std::string show = "keys";
};

struct AveragePanelState {
  bool rollout = false;  // left map: attention rollout through every layer instead of the layer's average
};

struct RolesPanelState {
  int filter = 0;  // index into the label filter (0: every head)
  // The column the table opens sorted by (a HeadRole, or kSortByLayer / Head / Label of
  // core/analysis/head_roles.h); sessions and lesson steps set it, a header click then re-sorts.
  int sort = kSortByLayer;
};

// Head ablation (app/gui/panels/panel_ablation.cpp); the job runs in app/gui/work/ablation_job.h,
// started and cancelled by commands (RunAblation, CancelAblation).
struct AblationPanelState {
  bool mean = false;  // mean-ablation (default: zero)
};

enum class SessionDialog { none, save, open };

// Session files and dropped files (app/gui/actions/session_bridge.h). The frame loop opens and
// saves (commands OpenFiles, SaveSession).
struct SessionPanelState {
  SessionDialog dialog = SessionDialog::none;
  std::string folder;                      // remembered between saves/opens ("" = current folder)
  std::string file_name = "session.json";
  bool named = false;                      // folder/file_name is this session's file (saved or opened): Ctrl+S saves there
  std::vector<std::string> recent;         // sessions opened or saved, newest first; persisted in imgui.ini
  // The Open dialog's list of the folder's session files (session_bridge.h list_session_files),
  // read when the dialog opens or its folder changes, not every frame.
  std::vector<std::string> listing;
  std::string listed_folder;
  bool listed = false;
};

// The lesson player (app/gui/actions/lesson_player.h) and presentation mode.
struct LessonPlayerState {
  std::shared_ptr<const Lesson> lesson;  // null: no lesson active
  int step = 0;                          // 0-based index into lesson->steps
  bool captions = true;                  // C toggles
  bool notes_open = false;               // the step's presenter notes, shown when not presenting
  // A teacher's lesson file checked as it loads (lesson_check.h: check_loaded_lesson), at the
  // window's size and theme: its problems as `headscope --check-lesson` prints them.
  std::shared_ptr<const Lesson> checked;  // the lesson the problems are for
  std::vector<std::string> problems;
  std::string checked_at;                 // "1280x720 light"
  bool problems_open = true;              // the Lesson problems list (closed by its button)
};

struct PresentationState {
  bool active = false;       // F5 enters, Esc leaves
  float font_scale = 1.6f;   // Ctrl +/- (the main loop rebuilds the font atlas); maps zoom with it past 1.6
  bool pointer = true;       // a ring at the mouse (P toggles)
  bool maps_hidden = false;  // "reveal": the maps wait as "?" until H (or Space) shows them
  bool hide_each_step = false;  // every new step starts with its maps hidden
  bool colormap_replaced = false;  // the colormap is presenting's stand-in for viridis: imgui.ini keeps viridis
};

// The look: dark (the default) or light (dark on light, for projectors and print). Presentation
// mode keeps it. View > Theme, --theme, remembered in imgui.ini.
enum class Theme { dark, light };

struct UnsavedState {
  std::optional<Session> saved;       // the session as last saved or opened; none: nothing to lose
  GuardedAction waiting;              // asked while there were unsaved changes: the popup is up
  bool save_first = false;            // "Save..." chosen: `waiting` runs once the save dialog has saved
  bool quit = false;                  // a quit went through: the main loop ends
};

// A layer and head asked for from outside (--layer and --head, a session, a lesson step), for a
// model whose size is known only once its first result arrives (clamp_selection, selection.h).
struct WantedSelection {
  int layer = 0, head = 0;
  bool from_flags = false;  // named in the note as --layer / --head
};

// What the first result changed of a wanted selection, shown in the status line while the
// selection stays where the note put it.
struct SelectionNote {
  std::string text;  // "--layer 9 is out of range: stories260K has 5 layers (valid: 0 to 4); showing layer 4"
  int layer = 0, head = 0;
};

// The memory budget's default and limits (MiB). 0 is automatic: three quarters of the machine's
// physical memory (automatic_memory_budget_bytes).
constexpr int kDefaultMemoryBudgetMib = 0;
constexpr int kMinMemoryBudgetMib = 64;
constexpr int kMaxMemoryBudgetMib = 1024 * 1024;

struct AppState {
  ModelRequest request;
  View view = View::heads;
  View tab_shown = View::heads;  // the tab the views showed last frame: another `view` selects its tab
  int layer = 0;
  int head = 0;
  // Set from outside and not yet held against a result of `request`; the first one sets layer and
  // head, and says in selection_note what it changed when they are out of range.
  std::optional<WantedSelection> wanted_selection;
  SelectionNote selection_note;
  ColourScale scale;  // linear / log / per-row, first key, colormap: the screen's and export's rule
  float sidebar_width = 360.0f;  // in unscaled pixels
  float ui_scale = 1.0f;         // Ctrl+= / Ctrl+-: the whole interface (presentation mode has its own, PresentationState::font_scale); remembered
  bool show_frame_time = false;  // the status bar's "ms / frame" (a developer readout); remembered
  // The memory the app may hold (MiB, resident): opening a head's exact map in long-input mode past
  // it is refused with the numbers (exact_head_job.h), and so is a model B that would not fit with
  // model A (core/analysis/model_pair_memory.h), before either is read. Remembered (0: automatic);
  // --memory-budget (memory_budget_flag_mib > 0), else HEADSCOPE_MEMORY_BUDGET, overrides it for
  // one session (not saved).
  int memory_budget_mib = kDefaultMemoryBudgetMib;
  int memory_budget_flag_mib = 0;
  SpaceMark space_mark = SpaceMark::dot;  // a token's space on axes and chips: a thin dot or none (core/text/token_label.h); remembered, exported as shown
  bool keyboard_nav = false;     // Tab moved ImGui's keyboard focus: the arrows move it, not the selection
  Theme theme = Theme::dark;

  SentencePanelState sentence;
  ModelPanelState model;
  OpenModelState open_model;
  GridPanelState grid;
  HeadPanelState head_view;
  QueryPanelState query;
  DifferencePanelState difference;
  WidthPanelState width;
  RolesPanelState roles;
  AblationPanelState ablation;
  AveragePanelState average;
  ContrastPanelState contrast;
  ExportPanelState exporter;
  SessionPanelState session;
  LessonPlayerState lesson;
  PresentationState present;
  UnsavedState unsaved;
  UndoHistory undo;  // Ctrl+Z / Ctrl+Shift+Z (app/gui/state/undo_history.h)
  CommandQueue commands;  // asked of the frame loop (commands.h)
};

// The synthetic layer of random weights on the default sentence: the state every other one
// starts from (the first screen, a session file's missing keys). Its maps are noise, said on
// screen; the app opens on it only when asked (--d-model, --heads, --seed, ...; Model panel:
// synthetic).
AppState default_app_state();

// What the Contrast view asks the worker to compare with: model B when one is set, else sentence B.
ContrastAsk contrast_ask(const AppState& state);

// What `headscope` with no model flags opens on: the teaching model (each head wired for a job
// its tile names) on the first sentence of assets/examples.txt, layer 0, the Heads view.
AppState first_screen_state();

// The colour scale of `view` as shown: the user's scale, plus which maps share a range there
// (per-head ranges in the grid, a single head on its layer's range: layer_max is that layer's
// largest weight, first key left out when the scale says so).
ColourScale view_colour_scale(const AppState& state, View view, float layer_max);


// True when the two requests would give the same engine results in the app: every field of the
// model and its input (ModelRequest::input_tie), NaN equal to NaN; fit_context aside, as the app
// fits every request it runs (work/compute.cpp).
bool same_model_request(const ModelRequest& a, const ModelRequest& b);

// A model is being opened (or the synthetic one chosen): the inputs that belong to the previous
// one go (--weights, a .npy input, maps from a file, ids given directly, an encoder's sentence B).
void clear_model_inputs(ModelRequest& request);

// The query tokens the views show for a run of `tokens`: the selection, or the last token.
std::vector<int> shown_queries(const AppState& state, int tokens);

// Switches to the tab that shows `view` on the next frame; a part of a tab (view_registry.h) is
// shown there: the overview (every layer's heads), the rollout, the head distance.
void request_view(AppState& state, View view);
// The views that show singular values of the score matrices (Head width's chart and table, the
// single head's facts): the app computes them, and the head-count sweep, only while one of these
// is on screen.
bool shows_singular_values(View view);
// The tab bar has yet to show `state.view` (request_view, an undo, a session opened).
bool view_switch_pending(const AppState& state);

// Three quarters of the machine's physical memory (3 GiB when the system does not say).
int64_t automatic_memory_budget_bytes();
// The memory budget in bytes: --memory-budget's for this session, else HEADSCOPE_MEMORY_BUDGET's,
// else the remembered one, else the automatic one.
int64_t memory_budget_bytes(const AppState& state);
// Where that budget comes from, for messages: "--memory-budget", "View > Memory budget", ...
std::string memory_budget_source(const AppState& state);

}  // namespace hs::gui
