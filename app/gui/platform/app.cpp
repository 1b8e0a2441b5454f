#include "app/gui/platform/app.h"

#include <imgui.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/settings.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/actions/window_rules.h"
#include "app/gui/panels/lesson_check.h"
#include "app/gui/panels/panels.h"
#include "app/gui/platform/app_fonts.h"
#include "app/gui/platform/gl_heatmap_images.h"
#include "app/gui/platform/run_mode.h"
#include "app/gui/platform/window.h"
#include "app/gui/state/examples.h"
#include "app/gui/work/frame_loop.h"
#include "app/gui/work/worker.h"
#include "core/formats/npy.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/milliseconds.h"

namespace hs::gui {
namespace {

// $XDG_CONFIG_HOME/headscope (or ~/.config/headscope); empty when neither is set.
std::filesystem::path config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "headscope";
  if (home && *home) return std::filesystem::path(home) / ".config" / "headscope";
  return {};
}

// Window layout and a few settings: a few KiB.
constexpr size_t kMaxIniBytes = size_t(1) << 20;

// Where the settings live: imgui.ini in the config folder (created when missing), read when
// readable and saved when the folder is writable. With no config folder (HOME unset), one that
// cannot be made or written (a read-only home, a sandbox), the app works on with its settings in
// memory and `note` says so. None for screenshots and benchmarks, which must not depend on or
// change a person's settings.
struct SettingsPlace {
  std::string read;   // imgui.ini to read ("" none)
  std::string write;  // imgui.ini to save to ("" none)
  std::string note;   // why the settings are kept in memory only ("" when they are saved)
};

SettingsPlace settings_place(bool persistent) {
  if (!persistent) return {};
  const std::string memory_only = "the settings are kept in memory only: ";
  const std::filesystem::path dir = config_dir();
  if (dir.empty()) return {"", "", memory_only + "neither XDG_CONFIG_HOME nor HOME is set"};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return {"", "", memory_only + "cannot make the folder " + dir.string() + " (" + ec.message() + ")"};
  const std::string path = (dir / "imgui.ini").string();
  if (path_exists(path) && !is_regular_file(path)) {  // a FIFO would block the read and the save
    return {"", "", memory_only + path + " " + not_a_file_reason(path)};
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return {path, "", memory_only + "the folder " + dir.string() + " is not writable (" + std::strerror(errno) + ")"};
  }
  return {path, path, ""};
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

// `make()`, or null with what went wrong on stderr.
template <class T, class Make>
std::unique_ptr<T> or_report(Make make) {
  try {
    return make();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return nullptr;
  }
}

// The window, with imgui.ini read now rather than in the first frame, so that the command line
// wins over the remembered settings. Null when it could not open (said on stderr).
std::unique_ptr<Window> open_window(const Options& o, const RunMode& mode, AppState& state, std::string& settings_note) {
  const SettingsPlace settings = settings_place(mode.interactive());
  settings_note = settings.note;
  if (!settings.note.empty()) std::cerr << "warning: " << settings.note << "\n";
  auto window = or_report<Window>([&] {
    return std::make_unique<Window>(o.width, o.height, mode.interactive(), settings.write);
  });
  if (!window) return nullptr;
  register_settings(&state);  // before the first frame reads imgui.ini
  ImGuiIO& io = ImGui::GetIO();
  if (!settings.read.empty()) {
    // Through the bounded reader (ImGui's own reader trusts the file's size).
    if (is_regular_file(settings.read)) {
      try {
        const std::string ini = read_file_limited(settings.read, kMaxIniBytes, "a settings file (imgui.ini)");
        ImGui::LoadIniSettingsFromMemory(ini.data(), ini.size());
      } catch (const Error& e) {
        std::cerr << "warning: " << e.what() << "\n";
      }
    }
    Theme flag_theme = state.theme;
    if (parse_theme(o.theme, flag_theme)) state.theme = flag_theme;
  }
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // Tab / arrows / Space between controls
  return window;
}

// The close button (and Ctrl+Q, File > Quit) asks first when the session is unsaved. True: quit now.
bool close_now(Window& window, AppState& state, const RunMode& mode) {
  if (!window.close_requested()) return false;
  if (state.unsaved.quit || mode.closes_at_once()) return true;
  window.cancel_close();
  ask_action(state, quit_action());
  return false;
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return ms_between(start, Clock::now()); }

// The time between consecutive frames (the status line's frame time).
struct FrameClock {
  Clock::time_point last = Clock::now();
  double tick() {
    const Clock::time_point now = Clock::now();
    return ms_between(std::exchange(last, now), now);
  }
};

// ImGui's frame: the panels drawn into `ui`, and what it took in `report`.
void draw_panels(AppState& state, UiContext& ui, GlHeatmapImages& images, FrameReport& report) {
  ImGui::NewFrame();
  const int64_t renders_before = images.renders();
  const double upload_before = images.upload_ms();
  const auto start = Clock::now();
  draw_app(state, ui);
  ImGui::Render();
  images.end_colouring();
  report.ui_ms = ms_since(start);
  report.upload_ms = images.upload_ms() - upload_before;
  report.heatmap_renders = int(images.renders() - renders_before);
  report.draw_calls = draw_calls(ImGui::GetDrawData());
  if (ui.report) {  // a screenshot's sidecar: every text and where it was drawn
    report.texts = collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
    report.scrolling = scrolling_windows();
  }
}

struct Screen {
  int width = 0, height = 0;  // the framebuffer drawn (0 x 0 when the picture was skipped)
};

// GL drawing of the frame, unless its picture is skipped; the maps' frame ends.
Screen render(Window& window, GlHeatmapImages& images, bool skip_picture, FrameReport& report) {
  Screen screen;
  const auto start = Clock::now();
  if (!skip_picture) window.render(screen.width, screen.height);
  report.render_ms = ms_since(start);
  report.heatmaps_pending = images.pending();
  images.end_frame();
  return screen;
}

// --save-opened-map FILE.npy: the opened head's exact map as the window showed it ([T, T] float32),
// for scripts and tests; an error (nothing opened, a refusal, the file) on stderr.
bool save_opened_map(const std::string& path, const ExactHeadStatus& s) {
  try {
    if (!s.map) {
      throw InputError("--save-opened-map " + path + ": no exact map was opened (" +
                       (!s.refused.empty() ? "refused: " + s.refused
                        : !s.error.empty() ? s.error
                        : s.cancelled      ? std::string("cancelled")
                                           : std::string("give --view head on a long text")) + ")");
    }
    const Map& m = s.map->cells;
    write_npy(path, m.data(), {int64_t(m.rows()), int64_t(m.cols())});
    return true;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return false;
  }
}

}  // namespace

App::App(Options options, AppState state) : options_(std::move(options)), state_(std::move(state)) {}

int App::run() {
  AppState& state = state_;
  RunMode mode(options_);
  std::string settings_note;
  const std::unique_ptr<Window> window = open_window(options_, mode, state, settings_note);
  if (!window) return 1;
  UiContext ui;
  if (!settings_note.empty()) ui.status.last_export = settings_note, ui.status.export_failed = true;
  AppFonts fonts;
  ui.fonts = fonts.start(*window, state, ui.status);
  const std::vector<std::string> examples = example_sentences();
  const std::vector<std::shared_ptr<const Lesson>> lessons = shipped();
  ui.examples = &examples, ui.lessons = &lessons;
  const auto images = or_report<GlHeatmapImages>([] { return std::make_unique<GlHeatmapImages>(); });
  if (!images) return 1;
  ui.images = images.get();
  DerivedWorker worker(options_.threads);
  worker.on_result(&Window::wake);  // a result ends the loop's wait for input at once
  FrameLoop loop(state, ui, worker, options_.threads);  // the start counts as saved; it owns the ablation and regions jobs
  ui.regions = &loop.regions();      // zoomed maps, recomputed off the UI thread
  mode.start(*images, worker);
  FrameReport report;
  bool skip_picture = false;  // the last frame was not drawn: its result came while it ended
  bool presenting = false;    // as of the last frame
  std::string title = "headscope";
  FrameClock clock;
  for (int frame = 1;; ++frame) {
    if (close_now(*window, state, mode)) return 0;
    window->process_events(mode.event_wait(worker.busy(), loop.ablation().busy() || loop.patching().busy() || loop.fit().busy() || loop.exact_head().busy() ||
                                                              report.heatmaps_pending > 0 || skip_picture));
    // Dropped files open after this frame: a .json as a session, anything else as a model checkpoint.
    if (std::vector<std::string> dropped = window->take_dropped(); !dropped.empty()) state.commands.push(OpenFiles{std::move(dropped)});
    loop.before_frame();
    const std::shared_ptr<const Derived>& derived = loop.shown();
    report.heatmaps.clear(), report.panels.clear(), report.bars.clear();
    ui.report = mode.report(report);
    window->set_full_screen(state.present.active);
    follow_presentation_colours(state, presenting);
    const auto fonts_start = std::chrono::steady_clock::now();
    fonts.update(*window, state, ui, derived.get());
    report.fonts_ms = ms_between(fonts_start, std::chrono::steady_clock::now());
    window->new_frame();
    mode.begin_frame(window->glfw(), state);
    draw_panels(state, ui, *images, report);
    const bool submitted = loop.after_frame();
    report.picture_skipped = skip_picture = mode.wait_after_panels(submitted, loop.last_worker_ms(), worker, loop.regions());
    mode.wait_for(loop.ablation(), loop.patching(), loop.fit(), loop.exact_head());
    if (const std::string want = window_title(state); want != title) window->set_title(title = want);
    const Screen screen = render(*window, *images, skip_picture, report);
    check_loaded_lesson(state, ui.lessons, ImGui::GetIO().DisplaySize);  // a lesson just loaded: its problems from the next frame
    ui.status.frame_ms = clock.tick();
    if (std::string why = window->save_settings(false); !why.empty()) {
      ui.status.last_export = std::move(why), ui.status.export_failed = true;
    }
    if (state.unsaved.quit) return 0;  // saved, discarded or nothing to lose
    if (mode.last_frame(frame)) {
      report.fonts = fonts.drawn(ui.fonts.body);
      if (!options_.save_opened_map.empty() && !save_opened_map(options_.save_opened_map, loop.exact_head().status())) return 1;
      return mode.finish(screen.width, screen.height, report, derived != nullptr, ui.status.error);
    }
    if (!skip_picture) window->swap();
    if (!mode.after_swap(state, ui, report, worker.busy())) return mode.exit_code();
  }
}

}  // namespace hs::gui
