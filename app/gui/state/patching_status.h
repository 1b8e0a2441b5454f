#pragma once
// What the Contrast view shows about activation patching (core/analysis/pair_target.h), which runs
// off the UI thread (app/gui/work/patching_job.h): whether it runs and how far it got, and the last
// result with what it was made for (the model request, sentence B and the two continuations), so
// the view can tell a result that no longer matches the screen from a current one.
#include <cstdint>
#include <memory>
#include <string>

#include "core/analysis/pair_target.h"
#include "core/model/model_request.h"

namespace hs::gui {

struct PatchingStatus {
  bool running = false;
  int done = 0, total = 0;  // heads patched so far, of L x H (total 0: the clean runs)
  ModelRequest request;     // sentence A's request
  std::string contrast;     // sentence B
  PairQuestion question;
  std::shared_ptr<const PairAnswer> result;  // the last finished job's (complete or cancelled); null: none
  std::string error;        // why the last job failed ("" when it did not)
  uint64_t serial = 0;      // counts finished jobs (textures of the result are keyed by it)
};

}  // namespace hs::gui
