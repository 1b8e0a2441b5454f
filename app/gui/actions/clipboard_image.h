#pragma once
// An image onto the X11 clipboard. GLFW puts only text on the clipboard, so a PNG goes through
// xclip (Debian's xclip package): its stdin gets the bytes with `-selection clipboard -t
// image/png`, and xclip stays in the background as the selection's owner, answering paste
// requests, as xclip does. The hand-over runs on a thread of its own: the UI thread never waits
// on xclip or the X server.
#include <atomic>
#include <memory>
#include <string>

namespace hs::gui {

struct ClipboardCopy {
  std::atomic<bool> done{false};
  bool ok = false;      // read after done
  std::string message;  // "copied ..." or why not; read after done
};

// Whether xclip is on PATH.
bool xclip_available();

// Starts handing `png` to xclip; poll the result's `done`. Throws IoError when xclip is missing
// ("copying an image needs xclip ...").
std::shared_ptr<ClipboardCopy> start_png_copy(std::string png);

// The same, waiting for the outcome (tests); returns the message, throws IoError on failure.
std::string copy_png_to_clipboard(const std::string& png);

}  // namespace hs::gui
