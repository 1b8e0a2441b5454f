#include "app/gui/platform/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "app/common/flag_vocabulary.h"
#include "app/common/friendly_errors.h"
#include "app/gui/actions/export_action.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/window_rules.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/state/model_sentence.h"
#include "app/gui/widgets/theme.h"
#include "core/analysis/model_pair_memory.h"
#include "core/util/errors.h"
#include "core/util/suggest.h"

namespace hs::gui {
namespace {

constexpr long long kMaxLessonSteps = 200;  // a lesson file holds at most 200 steps

// "view" (this view as shown), then the views File > Export... offers (export_action.h).
std::vector<std::string> export_dialog_names() {
  std::vector<std::string> names = {"view"};
  for (View v : export_dialog_views()) names.emplace_back(view_name(v));
  return names;
}

// --export-dialog WHAT[:ROLE]: the dialog opens on the first frame with a result.
void apply_export_dialog_flag(const std::string& flag, AppState& s) {
  const std::string what = flag.substr(0, flag.find(':'));
  const std::string role = flag.find(':') == std::string::npos ? "" : flag.substr(flag.find(':') + 1);
  const std::vector<std::string> names = export_dialog_names();
  if (std::find(names.begin(), names.end(), what) == names.end()) {
    throw InputError("--export-dialog '" + flag + "': expected " + or_list(names) + " (roles:ROLE for one role)" +
                     did_you_mean(what, names));
  }
  if (what != "view") s.exporter.what = find_view(what)->view;
  if (!role.empty()) {
    if (what != "roles") throw InputError("--export-dialog '" + flag + "': a role (after ':') is for roles");
    s.exporter.role = role == "all" ? -1 : int(parse_head_role(role));
  }
  s.commands.push(OpenExportDialog{});
}

// --model-b: the Contrast view compares --model with model B on the same input (as `headscope-cli
// compare --model A --model-b B` does); a pair with a sentence B is the other comparison.
void apply_model_b_flags(const Options& o, AppState& s) {
  if (o.model_b.empty() && o.tokenizer_b.empty()) return;
  if (o.model_b.empty()) throw InputError("--tokenizer-b '" + o.tokenizer_b + "' is model B's tokenizer: give --model-b PATH too");
  if (o.model.request.model_path.empty())
    throw InputError("--model-b '" + o.model_b + "' is compared with --model PATH: give the first model too");
  if (!o.contrast.empty() || o.patch)
    throw InputError("--model-b compares two models on one sentence and --contrast/--patch two sentences on one model: give one of them");
  s.contrast.model_b = o.model_b, s.contrast.tokenizer_b = o.tokenizer_b;
  request_view(s, View::contrast);
}

// --memory-budget MIB or SIZE (8G), read as `compare --memory-budget` reads it: this session's
// budget in MiB, rounded up.
void set_session_memory_budget(AppState& s, const std::string& text) {
  if (text.empty()) return;
  const int64_t bytes = parse_memory_budget(text);
  const int64_t mib = bytes < 0 ? -1 : (bytes + (int64_t(1) << 20) - 1) >> 20;
  if (mib < kMinMemoryBudgetMib || mib > kMaxMemoryBudgetMib)
    throw InputError("--memory-budget is \"" + text + "\"; expected MiB from " + std::to_string(kMinMemoryBudgetMib) + " to " +
                     std::to_string(kMaxMemoryBudgetMib) + " (e.g. 8192) or a size with K, M or G (e.g. 8G)");
  s.memory_budget_flag_mib = int(mib);
}

}  // namespace

void add_app_flags(CLI::App& app, Options& o) {
  add_model_flags(app, o.model);
  add_threads_flag(app, o.threads);
  add_view_flag(app, o.view, "The tab to open");
  add_colormap_flag(app, o.colormap);
  CLI::Option* scale = add_color_scale_flag(app, o.scale);
  add_alias(app, "--scale", scale, o.scale);
  app.add_flag("--ignore-first-key", o.ignore_first_key, flag_help("ignore-first-key"));
  app.add_option("--layer", o.layer, flag_help("layer", "Selected"))->capture_default_str();
  app.add_option("--head", o.head, flag_help("head", "Selected"))->capture_default_str();
  app.add_flag("--all-layers", o.all_layers, flag_help("all-layers", "In the Heads tab (= --view overview)"));
  app.add_flag("--rollout", o.rollout, flag_help("rollout", "In the Average tab (= --view rollout)"));
  app.add_flag("--clustered", o.clustered, "Heads grid and difference matrix: heads in the order of their clustering");
  CLI::Option* ablation = add_ablation_flag(app, o.ablation, "In the app, the Ablation tab knocks out every head this way once the maps are shown");
  add_alias(app, "--ablate", ablation, o.ablation);
  app.add_option("--export-dialog", o.export_dialog,
                 "Open File > Export... on what to export: " + or_list(export_dialog_names()) +
                     ", or roles:ROLE (previous, first, bos, self, local, duplicate, induction, broadness, all)");
  app.add_option("--session-dialog", o.session_dialog, "Open File > Open session... on this folder's session files");
  app.add_option("session", o.open, "A session file (.json) to open, or a model checkpoint file or folder");
  app.add_option("--lesson", o.lesson, "Start a lesson: a shipped one by name (multi_head_attention, what_heads_do, which_heads_notice) or a lesson file");
  app.add_flag("--notes", o.notes, "With --lesson: print every step's title, slide caption and presenter notes, and exit");
  app.add_option("--check-lesson", o.check_lesson,
                 "Check a lesson (a file, or a shipped one by name) as the shipped ones are checked: every step presenting at "
                 "1280x720, 1366x768 and 1920x1080 in both themes; prints each problem with its step and exits 1 when there is any");
  app.add_option("--step", o.step, "Lesson step to open (1-based)")->check(whole_number("lesson step", 1, kMaxLessonSteps))->capture_default_str();
  app.add_option("--zoom", o.zoom,
                 "Single head and difference views: show part of the map, X0,Y0,SPAN as fractions of its side (the "
                 "wheel, a drag and a double-click do it in the window)")
      ->delimiter(',')
      ->expected(3)
      ->check(float_between("zoom", 0, 1));
  app.add_option("--contrast", o.contrast, flag_help("contrast", "In the Contrast tab (--view contrast)"));
  app.add_option("--target", o.target, flag_help("target", "In the Contrast tab, for activation patching"));
  app.add_option("--versus", o.versus, flag_help("versus"));
  app.add_flag("--patch", o.patch, flag_help("patch", "Runs once both sentences are shown"));
  app.add_option("--model-b", o.model_b, flag_help("model-b", "Opens the Contrast view on the two models"));
  app.add_option("--tokenizer-b", o.tokenizer_b, flag_help("tokenizer-b"));
  app.add_flag("--present", o.present, "Presentation mode: full screen, large fonts, high contrast (F5 toggles, Esc leaves)");
  app.add_option("--theme", o.theme, "Look: dark or light (dark on light, for projectors and print); remembered")
      ->check(one_of("theme", {"dark", "light"}));
  app.add_option("--screenshot", o.screenshot, "Render --frames frames, write the window to this PNG and exit");
  app.add_option("--memory-budget", o.memory_budget,
                 flag_help("memory-budget", "For this session (default: HEADSCOPE_MEMORY_BUDGET, else View > Memory budget, "
                                            "automatic: 3/4 of the machine's memory)"));
  app.add_option("--save-opened-map", o.save_opened_map,
                 "With --screenshot: write the Single head view's exact map of a long text (the opened head, [T, T] float32) to this .npy");
  app.add_option("--frames", o.frames, "Frames to render before the screenshot (default 3), or before exiting without one");
  app.add_option("--width", o.width, "Window width (unscaled pixels)")->check(whole_number("window width", 320, 8192))->capture_default_str();
  app.add_option("--height", o.height, "Window height (unscaled pixels)")->check(whole_number("window height", 240, 8192))->capture_default_str();
  add_bench_flags(app, o.bench);
  set_group(app, "Lesson and session", {"lesson", "step", "notes", "check-lesson"});
  set_group(app, "Export", {"export-dialog"});
  set_group(app, "Window", {"screenshot", "frames", "width", "height"});
  app.get_option("session")->group("Lesson and session");
  group_flags(app);
}

void note_model_flags(const CLI::App& app, Options& o) {
  o.model_asked = false;
  for (const char* flag : {"--model", "--weights", "--attention", "--input", "--input-ids", "--d-model", "--heads", "--kv-heads",
                           "--d-head", "--seed", "--causal", "--window", "--scrambled-reshape"}) {
    const CLI::Option* option = app.get_option_no_throw(flag);
    o.model_asked = o.model_asked || (option && option->count() > 0);
  }
  o.view_asked = false;
  for (const char* flag : {"--view", "--all-layers", "--rollout", "--lesson", "--layer", "--head"}) {
    const CLI::Option* option = app.get_option_no_throw(flag);
    o.view_asked = o.view_asked || (option && option->count() > 0);
  }
}

AppState initial_state(const Options& o) {
  AppState s = default_app_state();
  s.request = model_request(o.model);
  // No model asked for: the first screen's teaching model, whose heads mean something.
  if (!o.model_asked) s.request.model_path = first_screen_state().request.model_path;
  // The default sentence, unless the input is given otherwise (rows of a .npy, ids, maps from a
  // file) or a checkpoint generates from nothing (core's rule, as in headscope-cli).
  // stories260K gets a sentence in its own words (model_sentence.h).
  if (wants_default_sentence(s.request)) s.request.sentence = model_example_sentence(s.request.model_path);
  if (const ViewDescriptor* v = find_view(o.view)) request_view(s, v->view);
  s.scale.colormap = parse_colormap(o.colormap);
  s.scale.mode = parse_scale_mode(o.scale);
  s.scale.ignore_first_key = o.ignore_first_key;
  s.layer = o.layer, s.head = o.head;
  s.wanted_selection = WantedSelection{o.layer, o.head, true};  // checked against the model's first result
  s.grid.all_layers = s.grid.all_layers || o.all_layers;
  s.grid.overview_if_long = !o.view_asked && o.open.empty();
  set_session_memory_budget(s, o.memory_budget);
  s.average.rollout = s.average.rollout || o.rollout;
  if (o.zoom.size() == 3) {
    if (!(o.zoom[2] > 0.0f)) throw InputError("--zoom: the span (" + std::to_string(o.zoom[2]) + ") must be more than 0");
    MapZoom z;
    z.span = o.zoom[2];
    z.x0 = o.zoom[0], z.y0 = o.zoom[1];
    s.head_view.zoom = s.difference.zoom = zoom_in_range(z);
  }
  s.grid.clustered = s.difference.clustered = o.clustered;
  if (!o.ablation.empty()) s.commands.push(RunAblation{});
  s.ablation.mean = o.ablation == "mean";
  if (!o.export_dialog.empty()) apply_export_dialog_flag(o.export_dialog, s);
  if (!o.session_dialog.empty()) s.session.folder = o.session_dialog, s.session.dialog = SessionDialog::open;
  if (!o.contrast.empty()) s.contrast.sentence = o.contrast;
  s.contrast.target = o.target, s.contrast.versus = o.versus;
  if (o.patch) s.commands.push(RunPatching{});
  apply_model_b_flags(o, s);
  if (!o.open.empty()) open_path(s, o.open);  // throws: a bad session stops the start with its message
  s.present.active = o.present;
  parse_theme(o.theme, s.theme);  // "" leaves the default (the remembered theme is read with the settings)
  if (!o.lesson.empty()) {
    std::shared_ptr<const Lesson> lesson = find_lesson(o.lesson);
    if (o.step > int(lesson->steps.size())) {
      throw InputError("--step " + std::to_string(o.step) + ": the lesson '" + o.lesson + "' has steps 1 to " +
                       std::to_string(lesson->steps.size()));
    }
    start_lesson(s, std::move(lesson), o.step - 1);
    // The checkpoint flags still count for steps that need a trained model.
    if (!o.model.request.model_path.empty() && active_step(s) && active_step(s)->needs_pretrained)
      s.request.model_path = o.model.request.model_path, s.request.tokenizer = o.model.request.tokenizer;
  }
  use_presentation_colormap(s);
  return s;
}

}  // namespace hs::gui
