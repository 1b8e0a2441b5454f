#include "app/gui/work/frame_loop.h"

#include <utility>

#include "app/gui/actions/export_action.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/state/selection.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/work/run_commands.h"

namespace hs::gui {

FrameLoop::FrameLoop(AppState& state, UiContext& ui, DerivedWorker& worker, int ablation_threads)
    : state_(state),
      ui_(ui),
      worker_(worker),
      submitted_(state.request),
      submitted_compare_(compare_requests(state)),
      submitted_spectrum_(shows_singular_values(state.view)),
      submitted_contrast_(contrast_ask(state)),
      ablation_(&worker.checkpoints(), ablation_threads),
      patching_(&worker.checkpoints(), ablation_threads) {
  mark_session_clean(state_);
  worker_.submit(submitted_, submitted_compare_, submitted_spectrum_, submitted_contrast_);
}

bool FrameLoop::before_frame() {
  std::optional<WorkerResult> r = worker_.poll();
  if (r) {
    // Fitting the selection to a new result, or putting back the model on screen after a
    // failed open, is not the user's work: a saved session stays saved.
    const bool clean = !session_dirty(state_);
    if (r->derived) {
      shown_ = r->derived;
      ui_.status.error.clear();
      ui_.status.last_export.clear();
      clamp_selection(state_, *shown_);
      exact_head_.keep_only(shown_->analysis.get());  // an older result's opened map goes with it
      // A long text opens on the layers x heads overview of block maxima (unless a flag chose a view).
      if (std::exchange(state_.grid.overview_if_long, false) && shown_->run().compact() && state_.view == View::heads)
        state_.grid.all_layers = true;
      select_most_changed_model_head(state_, *shown_);
      note_good_result(state_, *shown_);  // a checkpoint that loaded joins the recent models
      // A second model that could not be compared (not loaded, refused): said in the status line.
      if (const ContrastRun* c = shown_->contrast.get(); c && c->is_models() && !c->error.empty())
        ui_.status.error = "compare with model: " + c->error;
    } else {
      ui_.status.error = r->error;
      // A model that failed to open: the one on screen goes back into the request.
      if (keep_shown_model(state_, shown_.get(), r->error)) submitted_ = state_.request;
    }
    if (clean) mark_session_clean(state_);
  }
  ui_.derived = shown_.get();
  ui_.status.computing = worker_.busy();
  const JobProgress progress = worker_.progress();
  ui_.status.work_done = progress.done, ui_.status.work_total = ui_.status.computing ? progress.total : 0;
  ui_.ablation = ablation_.status();
  ui_.fit = fit_.status();
  ui_.exact_head = exact_head_.status();
  ui_.status.resident_bytes = resident_bytes();
  ui_.patching = patching_.status();
  return r.has_value();
}

bool FrameLoop::after_frame() {
  CommandTargets targets;
  targets.shown = shown_.get();
  targets.ablation = current_ablation(state_, ui_.ablation);
  targets.ablation_job = &ablation_;
  targets.patching_job = &patching_;
  targets.regions = &regions_;
  targets.fit_job = &fit_;
  targets.exact_head = &exact_head_;
  run_commands(state_, ui_.status, targets);
  std::vector<CompareRequest> compare = compare_requests(state_);
  // The Head roles view on screen: induction is measured (once per model) for this and every later
  // result; the result on screen, if it is the current one, is computed again with it.
  if (state_.view == View::roles && shown_ && !shown_->induction_checked) {
    worker_.want_induction();
    if (!worker_.busy() && same_model_request(shown_->analysis->request, submitted_) && same_model_request(state_.request, submitted_)) {
      worker_.submit(submitted_, submitted_compare_, submitted_spectrum_, submitted_contrast_);
      return true;
    }
  }
  // Singular values are computed while a view that shows them is on screen; one on screen now
  // whose result lacks them has the current request computed again with them. A view without
  // them keeps a result that has them.
  const bool spectrum = shows_singular_values(state_.view);
  if (same_model_request(state_.request, submitted_) && same_compare(compare, submitted_compare_) &&
      (submitted_spectrum_ || !spectrum) && contrast_ask(state_) == submitted_contrast_)
    return false;
  submitted_ = state_.request;
  submitted_compare_ = std::move(compare);
  submitted_spectrum_ = spectrum;
  submitted_contrast_ = contrast_ask(state_);
  worker_.submit(submitted_, submitted_compare_, submitted_spectrum_, submitted_contrast_);
  return true;
}

}  // namespace hs::gui
