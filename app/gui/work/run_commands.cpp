#include "app/gui/work/run_commands.h"

#include <type_traits>
#include <utility>
#include <vector>

#include "app/gui/actions/export_action.h"
#include "app/gui/actions/session_bridge.h"

namespace hs::gui {
namespace {

// Commands pushed by commands (guarded actions let through) run in the same call, up to this
// many rounds; the rest waits for the next frame.
constexpr int kMaxRounds = 8;

class CommandRunner {
 public:
  CommandRunner(AppState& state, StatusInfo& status, const CommandTargets& t) : state_(state), status_(status), t_(t) {}

  void run_all() {
    for (int round = 0; round < kMaxRounds && !state_.commands.empty(); ++round) {
      std::vector<Command> batch = state_.commands.take();
      for (Command& c : batch) std::visit([this](auto& command) { run(command); }, c);
    }
    for (Command& c : waiting_) state_.commands.push(std::move(c));  // for a later frame
  }
  bool ablation_started() const { return ablation_started_; }
  bool patching_started() const { return patching_started_; }

 private:
  void export_(ExportAct act) {
    if (t_.shown) run_export(act, state_, *t_.shown, status_, t_.ablation);  // nothing to export before a result
  }
  void run(SaveExport&) { export_(ExportAct::save); }
  void run(CopyExportData& c) { export_(c.layer ? ExportAct::copy_layer : ExportAct::copy_data); }
  void run(CopyExportImage&) { export_(ExportAct::copy_image); }
  void run(OpenExportDialog& c) {
    if (t_.shown) start_export_dialog(state_, *t_.shown);
    else waiting_.push_back(c);
  }
  void run(SaveSession&) { save_session_file(state_, status_); }
  void run(OpenFiles& c) { open_files(state_, std::move(c.paths), status_); }
  void run(RunGuarded& c) { run_guarded(state_, c.action, status_); }
  void run(RunAblation& c) {
    // Asked before the first result (--ablate): it waits for one.
    if (!t_.shown || !t_.ablation_job) return waiting_.push_back(c);
    if (!ablation_unavailable(*t_.shown->analysis).empty()) return;  // the view says why
    t_.ablation_job->start(t_.shown->analysis->request, state_.ablation.mean ? AblationMode::mean : AblationMode::zero);
    ablation_started_ = true;
  }
  void run(CancelAblation&) {
    if (t_.ablation_job) t_.ablation_job->cancel();
  }
  void run(FitPattern& c) {
    if (!t_.shown || !t_.fit_job) return waiting_.push_back(c);
    t_.fit_job->start(state_.width.show, t_.shown->analysis, t_.shown->generation);
  }
  void run(CancelFit&) {
    if (t_.fit_job) t_.fit_job->cancel();
  }
  void run(RunPatching& c) {
    // Asked before both sentences have a result (--patch): it waits for them.
    const ContrastRun* b = t_.shown ? t_.shown->contrast.get() : nullptr;
    if (!state_.contrast.model_b.empty() || (b && b->is_models())) return;  // two models: no sentence pair to patch
    if (!t_.patching_job || !b || b->sentence != state_.contrast.sentence) return waiting_.push_back(c);
    const PairQuestion question{state_.contrast.target, state_.contrast.versus, true};
    if (!patching_unavailable(*t_.shown->analysis, b, question).empty()) return;  // the view says why
    t_.patching_job->start(t_.shown->analysis, t_.shown->contrast, question);
    patching_started_ = true;
  }
  void run(CancelPatching&) {
    if (t_.patching_job) t_.patching_job->cancel();
  }
  void run(OpenExactHead& c) {
    if (!t_.shown || !t_.exact_head) return;
    t_.exact_head->open(t_.shown->analysis, c.layer, c.head, memory_budget_bytes(state_), resident_bytes());
  }
  void run(CancelExactHead&) {
    if (t_.exact_head) t_.exact_head->cancel();
  }
  void run(ComputeRegion& c) {
    if (t_.regions) t_.regions->add(c.request, std::move(c.coarse));
  }

  AppState& state_;
  StatusInfo& status_;
  const CommandTargets& t_;
  std::vector<Command> waiting_;
  bool ablation_started_ = false;
  bool patching_started_ = false;
};

}  // namespace

void run_commands(AppState& state, StatusInfo& status, const CommandTargets& targets) {
  take_clipboard_outcome(status);
  CommandRunner runner(state, status, targets);
  runner.run_all();
  drop_unsaved_save(state);
  // Typing a new sentence or opening another model makes a running job's numbers stale: stop it.
  AblationJob* job = targets.ablation_job;
  if (job && !runner.ablation_started() && job->busy() && !same_model_request(job->status().request, state.request))
    job->cancel();
  PatchingJob* patching = targets.patching_job;
  if (patching && !runner.patching_started() && patching->busy()) {
    const PatchingStatus s = patching->status();
    if (!same_model_request(s.request, state.request) || s.contrast != state.contrast.sentence) patching->cancel();
  }
}

}  // namespace hs::gui
