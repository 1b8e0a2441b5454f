#pragma once
// What the Ablation view shows about head ablation (core/analysis/head_ablation.h), which runs off
// the UI thread (app/gui/work/ablation_job.h): whether it runs and how far it got, and the last
// result with the request and mode it was made for, so the view can tell a result that no longer
// matches the sentence or model on screen ("stale, run again") from a current one.
#include <cstdint>
#include <memory>
#include <string>

#include "core/analysis/head_ablation.h"
#include "core/model/model_request.h"

namespace hs::gui {

struct AblationStatus {
  bool running = false;
  int done = 0, total = 0;          // heads knocked out so far, of L x H (total 0: still loading)
  // Time left (s): the job's time so far per head done, times the heads left; < 0 before the first head.
  double seconds_left = -1;
  ModelRequest request;             // what the running or last job ablated
  AblationMode mode = AblationMode::zero;
  std::shared_ptr<const HeadAblation> result;  // the last finished job's (complete or cancelled); null: none
  std::string error;                // why the last job failed ("" when it did not)
  uint64_t serial = 0;              // counts finished jobs (textures of the result are keyed by it)
};

}  // namespace hs::gui
