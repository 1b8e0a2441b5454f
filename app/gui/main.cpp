// headscope: the desktop app. Same input and model flags as `headscope-cli maps`
// (../shared/CLI_CONTRACT.md); --screenshot FILE.png --frames N renders N frames, writes the
// window's pixels (and FILE.png.json: where each heatmap was drawn) and exits.
#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "app/common/memory_tuning.h"
#include "app/common/model_flags.h"
#include "app/gui/bench_mode.h"
#include "app/gui/examples.h"
#include "app/gui/export_action.h"
#include "app/gui/frame_loop.h"
#include "app/gui/gl/gl_heatmap_images.h"
#include "app/gui/gl/screenshot.h"
#include "app/gui/open_model.h"
#include "app/gui/lesson_player.h"
#include "app/gui/panels.h"
#include "app/gui/selection.h"
#include "app/gui/session_bridge.h"
#include "app/gui/settings.h"
#include "app/gui/theme.h"
#include "app/gui/unsaved_guard.h"
#include "app/gui/worker.h"
#include "core/util/errors.h"

namespace {

using namespace hs::gui;

struct Options {
  hs::ModelFlags model;
  std::string screenshot;
  int frames = 0;  // 0: with --screenshot 3, else until the window is closed
  std::string view = "heads";
  std::string colormap = "viridis";
  std::string scale = "linear";
  int layer = 0, head = 0;
  bool all_layers = false;
  int width = 1600, height = 1000;
  std::string open;       // positional: a session .json (or a model file/folder) to open
  std::string lesson;     // --lesson NAME|FILE
  int step = 1;           // --step N (1-based)
  bool present = false;   // --present
  BenchOptions bench;     // hidden --bench-* flags (tests/bench/run.sh)
};

// $XDG_CONFIG_HOME/headscope (or ~/.config/headscope); empty when neither is set.
std::filesystem::path config_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return std::filesystem::path(xdg) / "headscope";
  if (home && *home) return std::filesystem::path(home) / ".config" / "headscope";
  return {};
}

AppState initial_state(const Options& o) {
  AppState s = default_app_state();
  const std::string default_sentence = s.request.sentence;
  s.request = hs::model_request(o.model);
  if (s.request.sentence.empty() && s.request.input_npy.empty()) s.request.sentence = default_sentence;
  const char* views[] = {"heads", "head", "query", "difference", "width", "average"};
  for (int i = 0; i < 6; ++i)
    if (o.view == views[i]) request_view(s, View(i));
  s.scale.colormap = hs::parse_colormap(o.colormap);
  if (o.scale == "log") s.scale.mode = ScaleMode::log;
  if (o.scale == "row") s.scale.mode = ScaleMode::row_normalised;
  s.layer = o.layer, s.head = o.head;
  s.grid.all_layers = o.all_layers;
  if (!o.open.empty()) open_path(s, o.open);  // throws: a bad session stops the start with its message
  s.present.active = o.present;
  if (!o.lesson.empty()) {
    start_lesson(s, find_lesson(o.lesson), o.step - 1);
    // The checkpoint flags still count for steps that need a trained model.
    if (!o.model.request.model_path.empty() && active_step(s) && active_step(s)->needs_pretrained)
      s.request.model_path = o.model.request.model_path, s.request.tokenizer = o.model.request.tokenizer;
  }
  if (s.present.active && s.scale.colormap == hs::Colormap::viridis) s.scale.colormap = hs::Colormap::cividis;
  return s;
}

// The shipped lessons for the Lessons menu (a broken one is reported and left out).
std::vector<std::shared_ptr<const hs::Lesson>> shipped() {
  std::vector<std::shared_ptr<const hs::Lesson>> out;
  for (const std::string& name : shipped_lessons()) {
    try {
      out.push_back(find_lesson(name));
    } catch (const hs::Error& e) {
      std::cerr << "warning: " << e.what() << "\n";
    }
  }
  return out;
}

// Presentation mode: the whole primary monitor (under xvfb: the virtual screen), or back to
// the window it came from.
struct WindowPlacement {
  bool full = false;
  int x = 0, y = 0, w = 0, h = 0;
};

void place_window(GLFWwindow* window, bool full, WindowPlacement& p) {
  if (full == p.full) return;
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (full && mode) {
    glfwGetWindowPos(window, &p.x, &p.y);
    glfwGetWindowSize(window, &p.w, &p.h);
    glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else if (!full && p.w > 0) {
    glfwSetWindowMonitor(window, nullptr, p.x, p.y, p.w, p.h, 0);
  }
  p.full = full;
}

// Fonts and style at `factor` x the monitor scale; presentation mode uses its high-contrast theme.
void rebuild_fonts(UiContext& ui, float scale, float factor, bool present) {
  ImGui::GetIO().Fonts->Clear();
  ui.fonts = load_fonts(scale * factor);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  if (present) apply_presentation_style(scale * factor);
  else apply_style(scale);
}

int run(const Options& o, AppState state) {
  glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "glfw error %d: %s\n", code, text); });
  if (!glfwInit()) {
    std::cerr << "error: cannot open a window (no display? try xvfb-run)\n";
    return 1;
  }
  const bool shot = !o.screenshot.empty();
  BenchMode bench(o.bench);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(o.width, o.height, "headscope", nullptr, nullptr);
  if (!window) {
    std::cerr << "error: cannot create an OpenGL 3.3 window\n";
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(shot || bench.active() ? 0 : 1);
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::cerr << "error: cannot load OpenGL 3.3 functions\n";
    return 1;
  }
  float scale_x = 1, scale_y = 1;
  glfwGetWindowContentScale(window, &scale_x, &scale_y);
  const float scale = std::max(1.0f, scale_x);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  std::string ini_path;
  if (!shot && !bench.active()) {
    const std::filesystem::path dir = config_dir();
    std::error_code ec;
    if (!dir.empty()) {
      std::filesystem::create_directories(dir, ec);
      if (!ec) ini_path = (dir / "imgui.ini").string();
    }
  }
  io.IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
  register_settings(&state);
  UiContext ui;
  ui.fonts = load_fonts(scale);
  apply_style(scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  const std::vector<std::string> examples = example_sentences();
  ui.examples = &examples;
  const std::vector<std::shared_ptr<const hs::Lesson>> lessons = shipped();
  ui.lessons = &lessons;
  // Dropped files open next frame: a .json as a session, anything else as a model checkpoint.
  glfwSetWindowUserPointer(window, &state);
  glfwSetDropCallback(window, [](GLFWwindow* w, int count, const char** paths) {
    auto* s = static_cast<AppState*>(glfwGetWindowUserPointer(w));
    for (int i = 0; i < count; ++i) s->session.dropped.emplace_back(paths[i]);
  });
  WindowPlacement placement;
  float font_factor = 1.0f;
  bool styled_present = false;

  int code = 0;
  {
    std::unique_ptr<GlHeatmapImages> images;
    try {
      images = std::make_unique<GlHeatmapImages>();
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 1;
    }
    ui.images = images.get();
    DerivedWorker worker;
    FrameLoop loop(state, ui, worker);  // the start counts as saved
    if (shot) worker.wait_idle();
    FrameReport report;
    auto last = std::chrono::steady_clock::now();
    std::string title = "headscope";
    for (int frame = 1;; ++frame) {
      // The close button (and Ctrl+Q, File > Quit) asks first when the session is unsaved.
      if (glfwWindowShouldClose(window)) {
        if (state.unsaved.quit || shot) break;
        glfwSetWindowShouldClose(window, GLFW_FALSE);
        ask_action(state, quit_action());
      }
      if (shot || bench.active() || worker.busy()) glfwPollEvents();
      else glfwWaitEventsTimeout(0.1);
      loop.before_frame();
      const std::shared_ptr<const Derived>& derived = loop.shown();
      report.heatmaps.clear();
      report.panels.clear();
      ui.report = shot || bench.active() ? &report : nullptr;

      place_window(window, state.present.active, placement);
      const float want_factor = state.present.active ? state.present.font_scale : 1.0f;
      if (want_factor != font_factor || styled_present != state.present.active) {
        if (state.present.active && !styled_present && state.scale.colormap == hs::Colormap::viridis) {
          const bool clean = !session_dirty(state);  // F5 is not work to save
          state.scale.colormap = hs::Colormap::cividis;  // survives projectors and colour-blind viewers
          if (clean) mark_session_clean(state);
        }
        font_factor = want_factor;
        styled_present = state.present.active;
        rebuild_fonts(ui, scale, font_factor, styled_present);
      }
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      // Screenshots must not depend on where the (virtual) mouse pointer happens to be.
      if (shot || bench.active()) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      bench.begin_frame(window, state);
      ImGui::NewFrame();
      draw_app(state, ui);
      ImGui::Render();
      if (loop.after_frame() && shot) worker.wait_idle();
      // The title says when there is something to lose.
      const std::string want_title = session_dirty(state) ? "headscope \xE2\x80\xA2 unsaved" : "headscope";
      if (want_title != title) glfwSetWindowTitle(window, (title = want_title).c_str());
      int fb_w = 0, fb_h = 0;
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      glViewport(0, 0, fb_w, fb_h);
      if (styled_present) glClearColor(0, 0, 0, 1);
      else glClearColor(0.075f, 0.082f, 0.098f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      images->end_frame();

      const auto now = std::chrono::steady_clock::now();
      ui.status.frame_ms = std::chrono::duration<double, std::milli>(now - last).count();
      last = now;
      if (state.unsaved.quit) break;  // saved, discarded or nothing to lose
      if (!shot && o.frames > 0 && frame >= o.frames) break;
      if (shot && frame >= (o.frames > 0 ? o.frames : 3)) {
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
      glfwSwapBuffers(window);
      if (bench.active() && !bench.end_frame(state, ui, report, worker.busy())) {
        code = bench.exit_code();
        break;
      }
    }
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  hs::keep_freed_memory_for_reuse();  // every recompute makes fresh T x T maps
  CLI::App app{"headscope: what each attention head of a transformer does"};
  app.set_version_flag("--version", std::string("headscope ") + HEADSCOPE_VERSION);
  Options o;
  hs::add_model_flags(app, o.model);
  app.add_option("--screenshot", o.screenshot, "Render --frames frames, write the window to this PNG and exit");
  app.add_option("--frames", o.frames, "Frames to render before the screenshot (default 3), or before exiting without one");
  app.add_option("--view", o.view, "Tab to open: heads, head, query, difference, width, average")
      ->check(CLI::IsMember({"heads", "head", "query", "difference", "width", "average"}))->capture_default_str();
  app.add_option("--colormap", o.colormap, "viridis, magma, gray or cividis")->capture_default_str();
  app.add_option("--scale", o.scale, "Colour scale: linear, log or row")
      ->check(CLI::IsMember({"linear", "log", "row"}))->capture_default_str();
  app.add_option("--layer", o.layer, "Selected layer")->capture_default_str();
  app.add_option("--head", o.head, "Selected head")->capture_default_str();
  app.add_flag("--all-layers", o.all_layers, "Heads tab: the layers x heads overview");
  app.add_option("session", o.open, "A session file (.json) to open, or a model checkpoint file or folder");
  app.add_option("--lesson", o.lesson, "Start a lesson: a shipped one by name (multi_head_attention) or a lesson file");
  app.add_option("--step", o.step, "Lesson step to open (1-based)")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_flag("--present", o.present, "Presentation mode: full screen, large fonts, high contrast (F5 toggles, Esc leaves)");
  app.add_option("--width", o.width, "Window width (unscaled pixels)")->check(CLI::Range(320, 8192))->capture_default_str();
  app.add_option("--height", o.height, "Window height (unscaled pixels)")->check(CLI::Range(240, 8192))->capture_default_str();
  add_bench_flags(app, o.bench);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  try {
    return run(o, initial_state(o));
  } catch (const hs::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
