#pragma once
// The one queue of what panels and keys ask for beyond a change of AppState: files, the
// clipboard, background jobs (ablation, a zoomed region's exact cells) and the actions that
// replace the session. A panel pushes a command onto AppState::commands; after each frame, outside
// any ImGui window, the frame loop carries out the queue, oldest first, in one place
// (app/gui/work/run_commands.h). What is shown (the view's tab, the selection, the dialogs'
// fields) stays plain AppState, read by the next frame.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/gui/state/region_request.h"
#include "core/session/lesson_file.h"

namespace hs::gui {

// Something that would replace the session or end the app. While the session has unsaved
// changes it waits for the "Unsaved changes" popup (app/gui/actions/unsaved_guard.h).
enum class GuardedKind { none, open, start_lesson, reset, quit };

struct GuardedAction {
  GuardedKind kind = GuardedKind::none;
  std::vector<std::string> paths;        // open: session files (and checkpoints) dropped or chosen
  std::shared_ptr<const Lesson> lesson;  // start_lesson
  int step = 0;                          // start_lesson: 0-based
};

// Export (app/gui/actions/export_action.h), on the result on screen.
struct SaveExport {};        // the Export dialog's file (asks before replacing one)
struct CopyExportData {       // the current map, or the difference table, as CSV to the clipboard;
  bool layer = false;         // layer: every head of the current layer (tidy CSV)
};
struct CopyExportImage {};   // the view's figure as PNG to the clipboard
struct OpenExportDialog {};  // --export-dialog: the dialog opens once there is a result
// Sessions and files (app/gui/actions/session_bridge.h).
struct SaveSession {};  // to the session box's folder and file name
struct OpenFiles {      // dropped on the window or chosen in the session box: a .json is a session
  std::vector<std::string> paths;  // (asks first when unsaved), anything else a checkpoint
};
struct RunGuarded {  // an action the unsaved guard let through (no unsaved changes, or answered)
  GuardedAction action;
};
// Background jobs, owned by the frame loop.
struct RunAblation {};     // head ablation on the result on screen (waits for one)
struct CancelAblation {};  // stops it after the head it is on
struct RunPatching {};     // activation patching on the Contrast view's pair (waits for both results)
struct CancelPatching {};  // stops it after the head it is on
struct FitPattern {};       // the Head width view's pattern (WidthPanelState::show) fitted on the result on screen
struct CancelFit {};        // stops the fit at its next 50 steps (the widths it finished stay)
struct ComputeRegion {     // a zoomed region's exact cells; `coarse` is shown meanwhile
  RegionRequest request;
  std::shared_ptr<const RegionMap> coarse;
};

struct OpenExactHead {      // long-input mode: one head's exact [T, T] map (exact_head_job.h), within the memory budget
  int layer = 0, head = 0;
};
struct CancelExactHead {};  // stops it at its next block of rows

using Command = std::variant<SaveExport, CopyExportData, CopyExportImage, OpenExportDialog, SaveSession, OpenFiles, RunGuarded,
                             RunAblation, CancelAblation, RunPatching, CancelPatching, FitPattern, CancelFit, ComputeRegion,
                             OpenExactHead, CancelExactHead>;

class CommandQueue {
 public:
  // A command (SaveExport{}, OpenFiles{{path}}, ...) at the end of the queue.
  template <class C>
  void push(C&& command) {
    items_.emplace_back(std::forward<C>(command));
  }
  // Everything queued, oldest first; the queue is left empty.
  std::vector<Command> take() {
    std::vector<Command> out;
    out.swap(items_);
    return out;
  }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  // A command of kind T waits.
  template <class T>
  bool has() const {
    return std::any_of(items_.begin(), items_.end(), [](const Command& c) { return std::holds_alternative<T>(c); });
  }

 private:
  std::vector<Command> items_;
};

}  // namespace hs::gui
