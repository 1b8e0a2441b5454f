#pragma once
// What the Head width view shows about its pattern fit (core/analysis/pattern_fit.h), which runs
// off the UI thread (app/gui/work/fit_job.h): whether it runs and how far it got, and the last
// result with the pattern and the result it was made for, so the view can tell a fit of the map on
// screen from one of an older sentence or model.
#include <cstdint>
#include <memory>
#include <string>

#include "core/analysis/pattern_fit.h"

namespace hs::gui {

struct FitStatus {
  bool running = false;
  int done = 0, total = 0;      // optimisation steps so far, of widths x steps
  std::string pattern;          // what the running or last job fitted (a target_pattern.h name)
  uint64_t generation = 0;      // the Derived::generation it was fitted on
  std::string title;            // pattern_title(): "previous token", ...
  std::shared_ptr<const PatternFit> result;  // the last finished job's; null: none (or cancelled before a width)
  std::string error;            // why the last job failed (a refused pattern); "" when it did not
  uint64_t serial = 0;          // counts finished jobs (textures of the result are keyed by it)

  bool is_for(const std::string& p, uint64_t g) const { return pattern == p && generation == g; }
};

}  // namespace hs::gui
