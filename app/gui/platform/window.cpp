#include "app/gui/platform/window.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "app/gui/widgets/theme.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

// GLFW reports errors through a plain function pointer (no user data), so what it says while
// the window is being made is kept here and folded into the one "error:" line the app prints.
// Once the window exists, later GLFW errors are printed as warnings.
std::string glfw_errors;
bool glfw_window_ready = false;

void on_glfw_error(int code, const char* text) {
  const std::string what = text ? text : "an unknown error";
  if (glfw_window_ready) {
    std::fprintf(stderr, "warning: GLFW: %s (code %d)\n", what.c_str(), code);
    return;
  }
  glfw_errors += (glfw_errors.empty() ? "" : "; ") + what;
}

// "cannot open a window: ...; GLFW says: X11: The DISPLAY environment variable is missing".
std::runtime_error window_error(const std::string& what) {
  std::string msg = "cannot open a window: " + what;
  if (!glfw_errors.empty()) msg += "; GLFW says: " + glfw_errors;
  glfw_errors.clear();
  return std::runtime_error(msg);
}

}  // namespace

Window::Window(int width, int height, bool vsync, const std::string& ini_path) : ini_path_(ini_path) {
  glfw_errors.clear();
  glfw_window_ready = false;
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit())
    throw window_error("no display could be opened (is DISPLAY or WAYLAND_DISPLAY set? without a desktop, run under xvfb-run)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, "headscope", nullptr, nullptr);
  if (!window_) {
    glfwTerminate();
    throw window_error("cannot create an OpenGL 3.3 window");
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(vsync ? 1 : 0);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw window_error("cannot load OpenGL 3.3 functions");
  }
  glfw_window_ready = true;
  float scale_x = 1, scale_y = 1;
  glfwGetWindowContentScale(window_, &scale_x, &scale_y);
  scale_ = std::max(1.0f, scale_x);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // saved by save_settings(), atomically
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  // Dropped files are kept until the app takes them (next frame).
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
  });
}

Window::~Window() {
  if (const std::string why = save_settings(true); !why.empty()) std::fprintf(stderr, "warning: %s\n", why.c_str());
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

std::string Window::save_settings(bool force) {
  ImGuiIO& io = ImGui::GetIO();
  if (ini_path_.empty() || !(force || io.WantSaveIniSettings)) return "";
  io.WantSaveIniSettings = false;
  size_t size = 0;
  const char* text = ImGui::SaveIniSettingsToMemory(&size);
  try {
    write_file_atomic(ini_path_, std::string(text, size));
  } catch (const Error& e) {
    return std::string("the settings were not saved (they are kept until the app closes): ") + e.what();
  }
  return "";
}

bool Window::close_requested() const { return glfwWindowShouldClose(window_); }

void Window::cancel_close() { glfwSetWindowShouldClose(window_, GLFW_FALSE); }

void Window::process_events(double timeout) {
  if (timeout <= 0) glfwPollEvents();
  else glfwWaitEventsTimeout(timeout);
}

void Window::wake() { glfwPostEmptyEvent(); }

void Window::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }

void Window::set_full_screen(bool full) {
  if (full == full_) return;
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (full && mode) {
    glfwGetWindowPos(window_, &saved_x_, &saved_y_);
    glfwGetWindowSize(window_, &saved_w_, &saved_h_);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  } else if (!full && saved_w_ > 0) {
    glfwSetWindowMonitor(window_, nullptr, saved_x_, saved_y_, saved_w_, saved_h_, 0);
  }
  full_ = full;
}

Fonts Window::rebuild_fonts(float factor, bool present, const std::vector<ImWchar>& extra, Theme theme) {
  ImGui::GetIO().Fonts->Clear();
  ranges_ = font_ranges(extra);
  const Fonts fonts = load_fonts(scale_ * factor, ranges_);
  if (frames_started_) upload_font_texture();  // before the first frame the backend makes the texture itself
  if (present) apply_presentation_style(scale_ * factor, theme);
  else apply_style(scale_ * factor, theme);  // Ctrl+= / Ctrl+- (AppState::ui_scale) size spacing with the fonts
  return fonts;
}

// The atlas as one 8-bit channel, read as (1, 1, 1, a) by a swizzle: the same texels the
// backend's RGBA copy holds, without converting 4 M pixels to RGBA (~60 ms on a 2048 x 2048
// atlas) and uploading four times the bytes (~60 ms on llvmpipe) on every rebuild.
void Window::upload_font_texture() {
  ImGui_ImplOpenGL3_DestroyFontsTexture();  // the backend's RGBA texture, if it made one
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &width, &height);
  GLint bound = 0, alignment = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
  glGenTextures(1, &font_texture_);
  glBindTexture(GL_TEXTURE_2D, font_texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  const GLint swizzle[4] = {GL_ONE, GL_ONE, GL_ONE, GL_RED};
  glTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_RGBA, swizzle);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, width, height, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
  glBindTexture(GL_TEXTURE_2D, GLuint(bound));
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(font_texture_)));
}

void Window::new_frame() {
  frames_started_ = true;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
}

void Window::render(int& fb_width, int& fb_height) {
  glfwGetFramebufferSize(window_, &fb_width, &fb_height);
  glViewport(0, 0, fb_width, fb_height);
  const ImVec4 bg = background_colour();
  glClearColor(bg.x, bg.y, bg.z, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::swap() { glfwSwapBuffers(window_); }

std::vector<std::string> Window::take_dropped() {
  std::vector<std::string> out;
  out.swap(dropped_);
  return out;
}

}  // namespace hs::gui
