#pragma once
// What the status line says: the worker's last error, whether it is busy, the frame time, the
// outcome of the last export or session action.
#include <cstdint>
#include <memory>
#include <string>

namespace hs::gui {

// A PNG being handed to xclip off the UI thread (app/gui/actions/clipboard_image.h).
struct ClipboardCopy;

struct StatusInfo {
  std::string error;      // last error from the worker ("" when the last request was good)
  bool computing = false;
  int64_t resident_bytes = 0;  // the process's resident memory as of this frame (shown beside the budget)
  int work_done = 0, work_total = 0;  // the worker's progress (total 0: none reported; two models: reads and layers)
  double frame_ms = 0;
  std::string last_export;  // where the last export wrote, or why it failed
  bool export_failed = false;
  std::shared_ptr<ClipboardCopy> clipboard_copy;  // a copy under way; its outcome goes to last_export
};

}  // namespace hs::gui
