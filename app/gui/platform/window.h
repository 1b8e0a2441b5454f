#pragma once
// The app's window: GLFW, an OpenGL 3.3 core context (glad), ImGui with its GLFW and OpenGL
// backends, fonts and style at the monitor's scale, presentation mode's full screen, and files
// dropped on the window. One per process; everything GL-specific in the app lives in platform/.
#include <string>
#include <vector>

#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/ui_context.h"

struct GLFWwindow;

namespace hs::gui {

class Window {
 public:
  // Opens the window and sets up GL and ImGui (ini file at `ini_path`, none when empty); vsync
  // off for screenshots and benchmarks. Throws std::runtime_error saying what failed. ImGui never
  // writes the ini file itself (its IniFilename stays null): save_settings() does, atomically.
  Window(int width, int height, bool vsync, const std::string& ini_path);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* glfw() const { return window_; }
  // The monitor's content scale (at least 1).
  float scale() const { return scale_; }

  bool close_requested() const;
  void cancel_close();
  // Input: wait up to `timeout` seconds for an event (or wake()), or only poll when `timeout` is 0.
  void process_events(double timeout);
  // Ends a process_events wait at once; any thread may call it.
  static void wake();
  void set_title(const std::string& title);

  // Full screen on the primary monitor (presentation mode), or back where it was.
  void set_full_screen(bool full);
  // Fonts and style at `factor` x the monitor scale; presentation mode uses its own style.
  // `extra` are codepoints beyond the base fonts' ranges that the text uses (UsedGlyphs); they
  // come from the fallback font. Call between frames.
  Fonts rebuild_fonts(float factor, bool present, const std::vector<ImWchar>& extra = {}, Theme theme = Theme::dark);

  // Around ImGui's frame: NewFrame of both backends; clear, draw, swap.
  void new_frame();
  // Clears the framebuffer to the style's background and draws ImGui's draw data. Returns the
  // framebuffer size.
  void render(int& fb_width, int& fb_height);
  void swap();

  // imgui.ini ("" when the settings are kept in memory only).
  const std::string& ini_path() const { return ini_path_; }
  // Writes imgui.ini when ImGui says the settings changed (or always with `force`), through
  // write_file_atomic: another instance saving at the same time never leaves a torn file (the
  // last rename wins), and a full disk or a read-only folder leaves the previous file whole.
  // Returns why it could not be saved ("" when saved or nothing to save).
  std::string save_settings(bool force);

  // Paths dropped on the window since the last call.
  std::vector<std::string> take_dropped();

 private:
  // The font atlas to the GPU as an 8-bit texture (replacing the backend's RGBA one).
  void upload_font_texture();

  GLFWwindow* window_ = nullptr;
  float scale_ = 1.0f;
  std::string ini_path_;
  bool full_ = false;
  bool frames_started_ = false;
  unsigned font_texture_ = 0;  // the atlas after a rebuild (upload_font_texture), 0 before one
  int saved_x_ = 0, saved_y_ = 0, saved_w_ = 0, saved_h_ = 0;
  std::vector<std::string> dropped_;
  FontRanges ranges_;  // the atlas keeps pointers into these
};

}  // namespace hs::gui
