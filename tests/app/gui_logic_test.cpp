// The app's non-drawing logic: model rules, labels, the background worker, export.
#include <gtest/gtest.h>

#include <imgui.h>

#include <atomic>
#include <cmath>

#include "app/gui/work/run_commands.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/work/worker.h"

namespace {

using namespace hs::gui;
using hs::View;

TEST(ModelRules, HeadsStayDivisorsAndParamsStayPut) {
  hs::AttentionConfig c;
  c.d_model = 8;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  set_d_model(c, 12);
  EXPECT_EQ(12 % c.n_heads, 0);
  EXPECT_EQ(c.n_heads % c.kv_heads(), 0);
  c.validate();
  set_d_model(c, 7);
  EXPECT_EQ(7 % c.n_heads, 0);
  c.validate();
  for (int d : {1, 6, 8, 12, 64})
    for (int h : head_count_options(d)) {
      hs::AttentionConfig x;
      x.d_model = d;
      set_heads(x, h);
      x.validate();
      EXPECT_EQ(hs::attention_param_count(x), 4LL * d * d + 4LL * d) << "d_model " << d << ", heads " << h;
      for (int g : kv_group_options(h)) {
        x.n_kv_heads = g;
        x.validate();
      }
    }
  EXPECT_STREQ(kv_kind(8, 8), "MHA");
  EXPECT_STREQ(kv_kind(1, 8), "MQA");
  EXPECT_STREQ(kv_kind(2, 8), "GQA");
}

TEST(Labels, AbbreviateAndFormat) {
  EXPECT_EQ(abbreviate("Москва", 3), "Мо\xE2\x80\xA6");
  EXPECT_EQ(abbreviate("cat", 3), "cat");
  EXPECT_EQ(hs::format_count(1234567), "1,234,567");
  // Issue 35: an untouched head's change is 0, not "-0.0000" (the ablation table, CLI and app).
  EXPECT_EQ(hs::format_change(-0.00001, 4), "0");
  EXPECT_EQ(hs::format_change(0.0, 4), "0");
  EXPECT_EQ(hs::format_change(0.33812, 4), "+0.3381");
  EXPECT_EQ(hs::format_change(-4.4111, 3), "-4.411");
  EXPECT_EQ(format_bytes(64), "64 B");
  EXPECT_EQ(display_token("a\nb"), "a\xE2\x86\xB5" "b");
  const auto ticks = nice_ticks(0.0f, 0.37f, 5);
  ASSERT_FALSE(ticks.empty());
  EXPECT_EQ(ticks.front(), 0.0f);
  EXPECT_LE(ticks.back(), 0.37f + 1e-6f);
}

// Issue 36 (finding 7): the screen's labels follow the View menu's space mark and show byte pieces
// as the character they spell; the hover names the bytes. No ImGui context here: every character
// up to U+FFFF counts as drawable.
TEST(Labels, SpaceMarkAndByteFallbackOnScreen) {
  const std::vector<std::string> t = {"\xE2\x96\x81" "Lily", "<0xE6>", "<0x88>", "<0x91>", "\xF0\x9F\x98\x80"};
  set_label_space_mark(hs::SpaceMark::dot);
  EXPECT_EQ(display_token(t, 0), "\xC2\xB7" "Lily");
  EXPECT_EQ(display_token(t, 1), "\xE2\x80\xA6");
  EXPECT_EQ(display_token(t, 3), "\xE6\x88\x91");
  EXPECT_EQ(display_token(t, 4), "U+1F600");
  EXPECT_NE(token_bytes_hint(t, 1).find("<0xE6><0x88><0x91>"), std::string::npos);
  set_label_space_mark(hs::SpaceMark::none);
  EXPECT_EQ(display_token(t, 0), "Lily");
  set_label_space_mark(hs::SpaceMark::dot);
}

TEST(Worker, NewestWinsErrorsComeBackAsText) {
  DerivedWorker worker;
  hs::ModelRequest r;
  r.sentence = "the cat sat";
  r.attention.d_model = 8;
  r.attention.n_heads = 2;
  worker.submit(r);
  r.attention.n_heads = 4;
  const uint64_t last = worker.submit(r);
  worker.wait_idle();
  auto result = worker.poll();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->generation, last);
  ASSERT_TRUE(result->derived);
  EXPECT_EQ(result->derived->run().n_heads(), 4);
  ASSERT_TRUE(result->derived->sweep);
  EXPECT_TRUE(result->derived->sweep->available);
  EXPECT_FALSE(worker.poll().has_value());

  r.attention.n_heads = 3;
  worker.submit(r);
  worker.wait_idle();
  result = worker.poll();
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->derived);
  EXPECT_NE(result->error.find("heads (3) must divide d_model (8)"), std::string::npos) << result->error;
}

// The app's loop waits for input while the worker computes; a result must end that wait
// (DerivedWorker::on_result), or the new maps would wait for the next input or timeout.
TEST(Worker, EachPublishedResultCallsOnResult) {
  DerivedWorker worker;
  std::atomic<int> woken{0};
  worker.on_result([&woken] { ++woken; });
  hs::ModelRequest r;
  r.sentence = "the cat sat";
  r.attention.d_model = 8;
  r.attention.n_heads = 2;
  worker.submit(r, {}, false);  // no head-count sweep: one result
  worker.wait_idle();
  ASSERT_TRUE(worker.poll().has_value());
  EXPECT_EQ(woken.load(), 1);
  r.attention.n_heads = 3;  // an error is a result too
  worker.submit(r, {}, false);
  worker.wait_idle();
  ASSERT_TRUE(worker.poll().has_value());
  EXPECT_EQ(woken.load(), 2);
}

}  // namespace

#include <filesystem>

#include "app/gui/actions/export_action.h"
#include "core/render/heatmap_figure.h"
#include "app/gui/work/compute.h"

namespace {

TEST(Export, SavesTheCurrentViewAndCopiesCsv) {
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  const std::filesystem::path dir = std::filesystem::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / "grid.png");  // an export never replaces a file without asking
  state.exporter.folder = dir.string();
  state.exporter.file_name = "grid.png";
  state.view = hs::View::heads;
  hs::gui::StatusInfo status;
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_FALSE(status.export_failed) << status.last_export;
  EXPECT_TRUE(std::filesystem::exists(dir / "grid.png"));
  EXPECT_NE(status.last_export.find("grid.png"), std::string::npos);
  EXPECT_TRUE(state.commands.empty());

  state.view = hs::View::head;
  state.head = 1;
  const std::string csv = hs::gui::current_csv(state, *derived);
  EXPECT_EQ(csv.rfind("query\\key,", 0), 0u) << csv.substr(0, 40);
  // Issue 35: "Copy data" says what it copied (model, layer, head, shape), and copies the layer too.
  const int T = derived->run().n_tokens(), H = derived->run().n_heads();
  const std::string side = std::to_string(T) + " x " + std::to_string(T);
  const hs::gui::CopiedData head = hs::gui::copy_data(state, *derived);
  EXPECT_EQ(head.csv, csv);
  for (const std::string& part : {hs::figure_model_name(derived->run()), std::string("layer 0"), std::string("head 1"), side,
                                  std::string("CSV")})
    EXPECT_NE(head.message.find(part), std::string::npos) << part << " in " << head.message;
  EXPECT_TRUE(hs::gui::copies_maps(state, *derived));
  const hs::gui::CopiedData layer = hs::gui::copy_data(state, *derived, true);
  EXPECT_EQ(layer.csv.rfind("layer,head,query,key,", 0), 0u) << layer.csv.substr(0, 60);
  EXPECT_NE(layer.message.find("all " + std::to_string(H) + " heads"), std::string::npos) << layer.message;
  EXPECT_NE(layer.message.find(std::to_string(H) + " x " + side), std::string::npos) << layer.message;
  size_t rows = 0;
  for (char c : layer.csv) rows += c == '\n';
  EXPECT_GE(rows, size_t(H) * size_t(T) * size_t(T) / 2 + 1);  // a row per cell (masked cells too, or those seen)

  // The figure's labels follow the screen's space mark ("export this view as shown").
  state.space_mark = hs::SpaceMark::none;
  EXPECT_EQ(hs::gui::export_spec_for(state, *derived, (dir / "x.png").string()).style.space_mark, hs::SpaceMark::none);
  state.space_mark = hs::SpaceMark::dot;
  EXPECT_EQ(hs::gui::export_spec_for(state, *derived, (dir / "x.png").string()).style.space_mark, hs::SpaceMark::dot);

  state.exporter.folder = (dir / "missing" / "folder").string();
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_TRUE(status.export_failed);
}

}  // namespace

#include "app/gui/state/undo_snapshot.h"
#include "tests/core/util/tie_fields.h"

namespace {

using hs::test::field_count;
using hs::test::tied_count;

// A field added to UndoSnapshot and not to its tie() fails here (the request counts as one field
// and ties every field of its input_tie()).
static_assert(field_count<UndoSnapshot>() ==
                  1 + tied_count<UndoSnapshot>() - std::tuple_size_v<decltype(hs::ModelRequest{}.input_tie())>,
              "UndoSnapshot::tie() must list every field");

TEST(UndoSnapshot, EachFieldMakesADifference) {
  EXPECT_TRUE(UndoSnapshot{} == UndoSnapshot{});
  hs::test::expect_each_field_differs<UndoSnapshot>([](const UndoSnapshot& a, const UndoSnapshot& b) { return a == b; });
  UndoSnapshot a, b;
  b.request.fit_context = true;
  EXPECT_TRUE(a == b) << "the app fits every request it runs: fit_context is no step of its own";
}

}  // namespace

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "app/gui/work/job_shell.h"
#include "app/gui/work/run_commands.h"

namespace {

// The command queue: what panels push is carried out once, oldest first, in run_commands (the
// frame loop's one place); an action a command lets through runs in the same call.
TEST(CommandQueue, APushedCommandIsCarriedOutOnceInOrder) {
  AppState state = default_app_state();
  StatusInfo status;
  state.commands.push(OpenFiles{{"nowhere_a.bin"}});
  state.commands.push(OpenFiles{{"nowhere_b.bin"}});
  EXPECT_EQ(state.commands.size(), 2u);
  run_commands(state, status, {});
  EXPECT_TRUE(state.commands.empty());
  EXPECT_NE(status.error.find("nowhere_b.bin"), std::string::npos) << "b after a: " << status.error;
  status.error.clear();
  run_commands(state, status, {});
  EXPECT_TRUE(status.error.empty()) << "carried out once: " << status.error;
  // A session file goes through the unsaved guard, which lets it through (nothing unsaved): the
  // open it queues runs in the same call.
  state.commands.push(OpenFiles{{"nowhere_c.json"}});
  run_commands(state, status, {});
  EXPECT_TRUE(state.commands.empty());
  EXPECT_NE(status.error.find("nowhere_c.json"), std::string::npos) << status.error;
}

TEST(CommandQueue, ACommandThatNeedsAResultWaitsForOne) {
  AppState state = default_app_state();
  StatusInfo status;
  state.commands.push(OpenExportDialog{});
  state.commands.push(RunAblation{});
  run_commands(state, status, {});
  EXPECT_TRUE(state.commands.has<OpenExportDialog>()) << "--export-dialog waits for the first result";
  EXPECT_TRUE(state.commands.has<RunAblation>()) << "--ablate waits for the first result";
  EXPECT_FALSE(state.exporter.dialog_open);
  const auto derived = compute_derived(state.request, 1);
  run_commands(state, status, {derived.get()});
  EXPECT_TRUE(state.exporter.dialog_open);
  EXPECT_FALSE(state.commands.has<OpenExportDialog>());
  EXPECT_TRUE(state.commands.has<RunAblation>()) << "no ablation job here: it still waits";
}

// The job shell of every background job: newest wins, progress, cancel.
TEST(JobShell, TheNewestWaitingRequestWinsWhileAJobRuns) {
  std::mutex m;
  std::vector<int> ran;
  std::promise<void> started, release;
  std::shared_future<void> go = release.get_future().share();
  JobShell<int> shell([&](int r, const JobShell<int>::Control&) {
    if (r == 1) started.set_value(), go.wait();
    std::lock_guard<std::mutex> lock(m);
    ran.push_back(r);
  });
  shell.submit(1);
  started.get_future().wait();
  for (int r : {2, 3, 4}) shell.submit(r);
  EXPECT_TRUE(shell.busy());
  EXPECT_EQ(shell.submitted(), 4u);
  release.set_value();
  shell.wait_idle();
  EXPECT_FALSE(shell.busy());
  EXPECT_EQ(ran, (std::vector<int>{1, 4})) << "2 and 3 were superseded before they started";
}

TEST(JobShell, KeepsAFewWaitingRequestsNewestFirst) {
  std::vector<int> ran;
  std::promise<void> started, release;
  std::shared_future<void> go = release.get_future().share();
  JobShell<int> shell(
      [&](int r, const JobShell<int>::Control&) {
        if (r == 0) started.set_value(), go.wait();
        ran.push_back(r);  // one thread: no lock needed
      },
      2);
  shell.submit(0);
  started.get_future().wait();
  for (int r : {1, 2, 3}) shell.submit(r);
  release.set_value();
  shell.wait_idle();
  EXPECT_EQ(ran, (std::vector<int>{0, 3, 2}));
}

TEST(JobShell, CancelStopsTheRunningJobAndReportsProgress) {
  std::promise<void> started;
  std::atomic<int> stopped_at{-1};
  std::atomic<bool> saw_cancel{false};
  JobShell<int> shell([&](int steps, const JobShell<int>::Control& c) {
    for (int i = 0; i < steps; ++i) {
      if (i == 1 && steps > 10) started.set_value();
      if (!c.progress(i, steps)) {
        stopped_at = i;
        saw_cancel = c.cancelled();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const uint64_t g = shell.submit(100000);  // 100 s unless cancelled
  started.get_future().wait();
  shell.cancel();
  shell.wait_idle();
  EXPECT_GE(stopped_at.load(), 1);
  EXPECT_LT(stopped_at.load(), 100000);
  EXPECT_TRUE(saw_cancel.load());
  const JobProgress p = shell.progress();
  EXPECT_EQ(p.generation, g);
  EXPECT_EQ(p.done, stopped_at.load());
  EXPECT_EQ(p.total, 100000);
  // A request after the cancel runs in full.
  stopped_at = -1;
  shell.submit(3);
  shell.wait_idle();
  EXPECT_EQ(stopped_at.load(), -1);
  EXPECT_EQ(shell.progress().done, 2);
}

}  // namespace
