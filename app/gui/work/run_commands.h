#pragma once
// The one place the app carries out what panels and keys asked for (app/gui/state/commands.h):
// after each frame, outside any ImGui window, the frame loop hands the queue to run_commands.
// Commands run oldest first; those they push in turn (an action the unsaved guard lets through)
// run in the same call. A command that needs a result waits in the queue until there is one.
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/status.h"
#include "app/gui/work/ablation_job.h"
#include "app/gui/work/exact_head_job.h"
#include "app/gui/work/fit_job.h"
#include "app/gui/work/patching_job.h"
#include "app/gui/work/region_maps.h"

namespace hs::gui {

// What the commands act on. The frame loop owns the jobs; a test may leave them out.
struct CommandTargets {
  const Derived* shown = nullptr;          // the result on screen (null: none yet)
  const HeadAblation* ablation = nullptr;  // the ablation the Ablation view shows as current (export)
  AblationJob* ablation_job = nullptr;     // null: RunAblation waits, CancelAblation has nothing to stop
  PatchingJob* patching_job = nullptr;     // null: RunPatching waits, CancelPatching has nothing to stop
  RegionMaps* regions = nullptr;           // null: ComputeRegion is dropped
  FitJob* fit_job = nullptr;               // null: FitPattern waits, CancelFit has nothing to stop
  ExactHeadJob* exact_head = nullptr;      // null: OpenExactHead is dropped
};

// Carries out the queued commands, then what each frame checks after them: a clipboard copy's
// outcome, a "Save..." whose dialog closed without saving, and an ablation or a patching whose
// sentences or model are no longer the ones being edited (stopped). Outcomes and errors go to `status`.
void run_commands(AppState& state, StatusInfo& status, const CommandTargets& targets);

}  // namespace hs::gui
