#include "app/gui/platform/app.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/settings.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/panels/panels.h"
#include "app/gui/platform/gl_heatmap_images.h"
#include "app/gui/platform/screenshot.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/platform/window.h"
#include "app/gui/state/examples.h"
#include "app/gui/widgets/used_glyphs.h"
#include "app/gui/work/ablation_job.h"
#include "app/gui/work/frame_loop.h"
#include "app/gui/work/worker.h"
#include "core/text/token_label.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs::gui {
namespace {

// HEADSCOPE_UPLOAD_BUDGET, HEADSCOPE_QUICK_RESULT: unset or unreadable -> `fallback`; "off" -> 0
// (no limit; never waits); a positive number of ms.
double ms_setting(const char* env, double fallback) {
  if (!env) return fallback;
  const std::string s(env);
  if (s == "off") return 0;
  char* end = nullptr;
  const double ms = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && ms > 0 && std::isfinite(ms) ? ms : fallback;
}

// $XDG_CONFIG_HOME/headscope (or ~/.config/headscope); empty when neither is set.
std::filesystem::path config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "headscope";
  if (home && *home) return std::filesystem::path(home) / ".config" / "headscope";
  return {};
}

// imgui.ini in the config folder (created when missing); none for screenshots and benchmarks,
// which must not depend on or change a person's settings.
// Window layout and a few settings: a few KiB.
constexpr size_t kMaxIniBytes = size_t(1) << 20;

std::string ini_path(bool persistent) {
  if (!persistent) return "";
  const std::filesystem::path dir = config_dir();
  std::error_code ec;
  if (dir.empty()) return "";
  std::filesystem::create_directories(dir, ec);
  if (ec) return "";
  const std::string path = (dir / "imgui.ini").string();
  if (path_exists(path) && !is_regular_file(path)) {  // a FIFO would block the read and the save
    std::cerr << "warning: the settings are neither read nor saved: " << path << " " << not_a_file_reason(path) << "\n";
    return "";
  }
  return path;
}

// The shipped lessons for the Lessons menu (a broken one is reported and left out).
std::vector<std::shared_ptr<const Lesson>> shipped() {
  std::vector<std::shared_ptr<const Lesson>> out;
  for (const std::string& name : shipped_lessons()) {
    try {
      out.push_back(find_lesson(name));
    } catch (const Error& e) {
      std::cerr << "warning: " << e.what() << "\n";
    }
  }
  return out;
}

// The text whose characters the fonts must have: what changes per frame (the sentence, the
// messages, the model's path) always, the tokens and the lesson only when they change (`shown` is the generation
// and `lesson` the lesson read last). True when a character is new: the atlas needs a rebuild.
bool collect_glyphs(UsedGlyphs& glyphs, const AppState& state, const StatusInfo& status, const Derived* derived,
                    uint64_t& shown, std::shared_ptr<const Lesson>& lesson) {
  bool added = glyphs.add_text(state.request.sentence);
  added |= glyphs.add_text(status.error);
  added |= glyphs.add_text(status.last_export);
  added |= glyphs.add_text(state.session.file_name);
  added |= glyphs.add_text(state.request.model_path);
  added |= glyphs.add_text(state.request.tokenizer);
  if (derived && derived->generation != shown) {
    shown = derived->generation;
    const auto add_run = [&](const RunAnalysis& a) {
      for (const std::string& t : a.run.tokens) added |= glyphs.add_text(t);
      for (const std::string& t : a.run.next_tokens) added |= glyphs.add_text(t);
      for (const std::string& t : a.map_labels) added |= glyphs.add_text(t);
      // What the labels show: characters their byte pieces spell, the space and continuation marks.
      for (const std::string& t : token_labels(a.run.tokens)) added |= glyphs.add_text(t);
    };
    if (derived->analysis) add_run(*derived->analysis);
    for (const CompareResult& c : derived->compare) {
      added |= glyphs.add_text(c.label) | glyphs.add_text(c.error);
      if (c.analysis) add_run(*c.analysis);
    }
  }
  if (state.lesson.lesson != lesson) {
    lesson = state.lesson.lesson;
    if (lesson) {
      added |= glyphs.add_text(lesson->title) | glyphs.add_text(lesson->description);
      for (const LessonStep& step : lesson->steps) added |= glyphs.add_text(step.title) | glyphs.add_text(step.caption);
    }
  }
  return added;
}

}  // namespace

App::App(Options options, AppState state) : options_(std::move(options)), state_(std::move(state)) {}

int App::run() {
  const Options& o = options_;
  AppState& state = state_;
  const bool shot = !o.screenshot.empty();
  BenchMode bench(o.bench);
  std::unique_ptr<Window> window;
  try {
    window = std::make_unique<Window>(o.width, o.height, !shot && !bench.active(), ini_path(!shot && !bench.active()));
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  register_settings(&state);  // before the first frame reads imgui.ini
  ImGuiIO& io = ImGui::GetIO();
  if (io.IniFilename) {
    // Read now rather than in the first frame, so that the command line wins over the settings;
    // through the bounded reader (ImGui's own reader trusts the file's size).
    if (is_regular_file(io.IniFilename)) {
      try {
        const std::string ini = read_file_limited(io.IniFilename, kMaxIniBytes, "a settings file (imgui.ini)");
        ImGui::LoadIniSettingsFromMemory(ini.data(), ini.size());
      } catch (const Error& e) {
        std::cerr << "warning: " << e.what() << "\n";
      }
    }
    Theme flag_theme = state.theme;
    if (parse_theme(o.theme, flag_theme)) state.theme = flag_theme;
  }
  UiContext ui;
  // Characters beyond DejaVu's scripts (CJK, ...) come from a fallback font, only those in use.
  UsedGlyphs glyphs;
  uint64_t glyphs_derived = UINT64_MAX;
  std::shared_ptr<const Lesson> glyphs_lesson;
  collect_glyphs(glyphs, state, ui.status, nullptr, glyphs_derived, glyphs_lesson);
  ui.fonts = window->rebuild_fonts(1.0f, false, glyphs.extra(), state.theme);
  Theme styled_theme = state.theme;
  const std::vector<std::string> examples = example_sentences();
  ui.examples = &examples;
  const std::vector<std::shared_ptr<const Lesson>> lessons = shipped();
  ui.lessons = &lessons;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // Tab / arrows / Space between controls
  float font_factor = 1.0f;
  bool styled_present = false;

  int code = 0;
  std::unique_ptr<GlHeatmapImages> images;
  try {
    images = std::make_unique<GlHeatmapImages>();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  ui.images = images.get();
  // A keystroke's new maps are coloured over as many frames as it takes at ~kUploadBudgetMs a frame
  // (the 144 of GPT-2-small-shaped's overview: ~20 ms on llvmpipe, one frame; a frame stays well
  // under 50 ms); screenshots colour every map at once.
  // HEADSCOPE_UPLOAD_BUDGET=off colours them all in one frame (to compare), =MS sets the budget.
  constexpr double kUploadBudgetMs = 24;
  // A recompute that took at most quick_ms last time is waited for, up to twice that, in the frame
  // that asked for it: when it comes, that frame's picture (the old maps) is not drawn and the next
  // frame follows at once with the new ones. A keystroke on a small model then shows its maps one
  // frame sooner (on llvmpipe a 1600 x 1000 frame takes ~10 ms: the synthetic default's 25 ms per
  // keystroke were two frames).
  // HEADSCOPE_QUICK_RESULT=off never waits (to compare), =MS sets quick_ms (the wait is twice that).
  const double quick_ms = ms_setting(std::getenv("HEADSCOPE_QUICK_RESULT"), 5);
  if (!shot) images->set_upload_budget_ms(ms_setting(std::getenv("HEADSCOPE_UPLOAD_BUDGET"), kUploadBudgetMs));
  RegionMaps regions;  // zoomed maps, recomputed off the UI thread
  ui.regions = &regions;
  DerivedWorker worker;
  FrameLoop loop(state, ui, worker);  // the start counts as saved
  AblationJob ablation(&worker.checkpoints());
  if (shot) worker.wait_idle();
  FrameReport report;
  bool skip_picture = false;  // the last frame was not drawn: its result came while it ended
  auto last = std::chrono::steady_clock::now();
  std::string title = "headscope";
  for (int frame = 1;; ++frame) {
    // The close button (and Ctrl+Q, File > Quit) asks first when the session is unsaved.
    if (window->close_requested()) {
      if (state.unsaved.quit || shot) break;
      window->cancel_close();
      ask_action(state, quit_action());
    }
    window->process_events(shot || bench.active() || worker.busy() || ablation.busy() || report.heatmaps_pending > 0 ||
                           skip_picture);
    // Dropped files open next frame: a .json as a session, anything else as a model checkpoint.
    for (std::string& path : window->take_dropped()) state.session.dropped.push_back(std::move(path));
    loop.before_frame();
    ui.ablation = ablation.status();
    const std::shared_ptr<const Derived>& derived = loop.shown();
    report.heatmaps.clear();
    report.panels.clear();
    ui.report = shot || bench.active() ? &report : nullptr;

    window->set_full_screen(state.present.active);
    // Presenting, text is sized for the screen's pixels, not the desktop's DPI setting: a room reads
    // a 1080-line projector the same whatever Xft.dpi says (a content scale of 2 once doubled every
    // font and left the maps a third of the panel). Larger screens get larger text.
    const float screen_lines = io.DisplaySize.y * io.DisplayFramebufferScale.y;
    // Elsewhere Ctrl+= / Ctrl+- size the interface (AppState::ui_scale).
    const float want_factor =
        state.present.active ? state.present.font_scale * std::max(1.0f, screen_lines / 1080.0f) / window->scale() : state.ui_scale;
    const bool new_glyphs = collect_glyphs(glyphs, state, ui.status, derived.get(), glyphs_derived, glyphs_lesson);
    if (new_glyphs || want_factor != font_factor || styled_present != state.present.active || styled_theme != state.theme) {
      if (state.present.active && !styled_present && state.scale.colormap == Colormap::viridis) {
        const bool clean = !session_dirty(state);  // F5 is not work to save
        state.scale.colormap = present_colormap(state.theme);  // cividis on black: colour-blind safe
        if (clean) mark_session_clean(state);
      }
      font_factor = want_factor;
      styled_present = state.present.active;
      styled_theme = state.theme;
      ui.fonts = window->rebuild_fonts(font_factor, styled_present, glyphs.extra(), state.theme);
    }
    window->new_frame();
    // Screenshots must not depend on where the (virtual) mouse pointer happens to be.
    if (shot || bench.active()) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    bench.begin_frame(window->glfw(), state);
    ImGui::NewFrame();
    const int64_t renders_before = images->renders();
    const double upload_before = images->upload_ms();
    const auto ui_start = std::chrono::steady_clock::now();
    draw_app(state, ui);
    ImGui::Render();
    images->end_colouring();
    report.ui_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ui_start).count();
    report.upload_ms = images->upload_ms() - upload_before;
    report.heatmap_renders = int(images->renders() - renders_before);
    report.draw_calls = draw_calls(ImGui::GetDrawData());
    const bool submitted = loop.after_frame();
    if (submitted && shot) worker.wait_idle();
    skip_picture = submitted && !shot && quick_ms > 0 && loop.last_worker_ms() <= quick_ms && worker.wait_result(2 * quick_ms);
    report.picture_skipped = skip_picture;
    if (shot && regions.busy()) regions.wait_idle();  // a zoomed region: its exact cells in the picture
    handle_ablation_requests(state, derived.get(), ablation);
    if (shot) ablation.wait_idle();  // a screenshot shows the finished ablation
    // The title says when there is something to lose.
    const std::string want_title = session_dirty(state) ? "headscope \xE2\x80\xA2 unsaved" : "headscope";
    if (want_title != title) window->set_title(title = want_title);
    int fb_w = 0, fb_h = 0;
    const auto render_start = std::chrono::steady_clock::now();
    if (!skip_picture) window->render(fb_w, fb_h);
    report.render_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - render_start).count();
    report.heatmaps_pending = images->pending();
    images->end_frame();

    const auto now = std::chrono::steady_clock::now();
    ui.status.frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    if (state.unsaved.quit) break;  // saved, discarded or nothing to lose
    if (!shot && o.frames > 0 && frame >= o.frames) break;
    if (shot && frame >= (o.frames > 0 ? o.frames : 3)) {
      report.fonts = DrawnFonts{};
      report.fonts.extra_glyphs = int(glyphs.extra().size());
      for (const ImWchar c : glyphs.extra())
        if (!ui.fonts.body->FindGlyphNoFallback(c)) report.fonts.missing_glyphs.push_back(c);
      report.fonts.atlas_width = io.Fonts->TexWidth;
      report.fonts.atlas_height = io.Fonts->TexHeight;
      std::string error;
      if (!write_screenshot(o.screenshot, fb_w, fb_h, report, error)) {
        std::cerr << "error: " << error << "\n";
        code = 1;
      } else if (!derived) {
        std::cerr << "error: " << ui.status.error << "\n";
        code = 1;
      }
      break;
    }
    if (!skip_picture) window->swap();
    if (bench.active() && !bench.end_frame(state, ui, report, worker.busy())) {
      code = bench.exit_code();
      break;
    }
  }
  return code;
}

}  // namespace hs::gui
