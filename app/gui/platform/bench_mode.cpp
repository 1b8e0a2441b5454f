#include "app/gui/platform/bench_mode.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/gui/state/app_state.h"
#include "app/gui/widgets/ui_context.h"
#include "core/util/atomic_file.h"
#include "core/util/milliseconds.h"

namespace hs::gui {
namespace {

constexpr int kWarmupFrames = 30;   // after the first result: textures made, fonts baked
constexpr int kSettleFrames = 5;    // after a keystroke's result, before the next one
constexpr double kTimeoutS = 600;   // for the first result and for each keystroke's

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The smallest value with at least p of the values at or below it.
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = size_t(std::ceil(p * double(v.size())));
  return v[std::min(v.size() - 1, i > 0 ? i - 1 : 0)];
}

// A key pressed or released the way GLFW reports it to ImGui's backend.
void key(GLFWwindow* window, int glfw_key, int action, int mods) {
  ImGui_ImplGlfw_KeyCallback(window, glfw_key, glfwGetKeyScancode(glfw_key), action, mods);
}

// One keystroke in full: the first after opening is reported apart (its maps, caches and fonts are
// new), with where its time went.
nlohmann::json bench_keystroke_json(double latency_ms, double first_maps_ms, double compute_ms, const AnalysisTimes& t,
                                    double swap_in_ms, double swap_ui_ms, double swap_upload_ms, double swap_render_ms,
                                    double fonts_ms, int frames) {
  return {{"latency_ms", latency_ms},
          {"first_maps_ms", first_maps_ms},
          {"compute_ms", compute_ms},
          {"compute_parts_ms",
           {{"prepare", t.prepare}, {"engine", t.engine}, {"pairs", t.pairs}, {"average", t.average},
            {"per_head", t.per_head}, {"rollout", t.rollout}, {"roles", t.roles}}},
          {"swap_in_frame_ms", swap_in_ms},
          {"swap_in_frame_parts_ms", {{"ui", swap_ui_ms}, {"upload", swap_upload_ms}, {"render", swap_render_ms}}},
          {"fonts_ms", fonts_ms},
          {"frames", frames}};
}

}  // namespace

void add_bench_flags(CLI::App& app, BenchOptions& o) {
  // group(""): hidden from --help; tests/bench/run.sh is the only caller.
  app.add_option("--bench-frames", o.out, "Benchmark: time frames and keystrokes, write the numbers to this JSON and exit")
      ->group("");
  app.add_option("--bench-frame-count", o.frames, "Benchmark: frames to time")->check(CLI::Range(1, 100000))->group("");
  app.add_option("--bench-keystrokes", o.keystrokes, "Benchmark: characters to type")
      ->check(CLI::Range(0, 10000))->group("");
  app.add_option("--bench-typed", o.typed, "Benchmark: the text typed, cycled through (ASCII)")
      ->check([](const std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); })
      ->group("");
}

BenchMode::BenchMode(BenchOptions options) : options_(std::move(options)) {
  start_ = last_frame_ = Clock::now();
}

void BenchMode::begin_frame(GLFWwindow* window, AppState& state) {
  if (phase_ == Phase::focus) {
    // Ctrl+L focuses the sentence box (ui_root.cpp); then End, since a box focused from code
    // starts with all its text selected and a typed character would replace it.
    if (step_ == 0) key(window, GLFW_KEY_LEFT_CONTROL, GLFW_PRESS, GLFW_MOD_CONTROL), key(window, GLFW_KEY_L, GLFW_PRESS, GLFW_MOD_CONTROL);
    if (step_ == 1) key(window, GLFW_KEY_L, GLFW_RELEASE, GLFW_MOD_CONTROL), key(window, GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE, 0);
    if (step_ == 3) key(window, GLFW_KEY_END, GLFW_PRESS, 0);
    if (step_ == 4) key(window, GLFW_KEY_END, GLFW_RELEASE, 0);
  } else if (phase_ == Phase::type) {
    const char c = options_.typed[keys_.size() % options_.typed.size()];
    expected_ = state.request.sentence + c;
    current_ = Keystroke{};
    typed_at_ = Clock::now();
    ImGui_ImplGlfw_CharCallback(window, static_cast<unsigned char>(c));
  }
}

bool BenchMode::end_frame(const AppState& state, const UiContext& ui, const FrameReport& report, bool busy) {
  glFinish();  // the frame's GPU work is done (vsync is off)
  const Clock::time_point now = Clock::now();
  const double dt = ms_between(last_frame_, now);
  last_frame_ = now;
  const double waited_s =
      ms_between(phase_ == Phase::wait_result || phase_ == Phase::wait_maps ? typed_at_ : start_, now) / 1e3;

  switch (phase_) {
    case Phase::warmup:
      if (!ui.derived) {
        if (!busy && !ui.status.error.empty()) return fail(ui.status.error);
        if (waited_s > kTimeoutS) return fail("no result after " + std::to_string(int(kTimeoutS)) + " s");
        return true;
      }
      if (busy) step_ = 0;
      else if (++step_ >= kWarmupFrames) phase_ = Phase::frames, step_ = 0;
      return true;
    case Phase::frames: {
      frame_ms_.push_back(dt);
      const int drawn = int(report.heatmaps.size());
      heatmaps_min_ = heatmaps_min_ < 0 ? drawn : std::min(heatmaps_min_, drawn);
      heatmaps_max_ = std::max(heatmaps_max_, drawn);
      renders_ += report.heatmap_renders;
      draw_calls_max_ = std::max(draw_calls_max_, report.draw_calls);
      if (int(frame_ms_.size()) >= options_.frames) {
        check_layout(report);
        tokens_ = ui.derived->run().n_tokens(), layers_ = ui.derived->run().n_layers(), heads_ = ui.derived->run().n_heads();
        if (options_.keystrokes == 0) return finish(ui);
        phase_ = Phase::focus, step_ = 0;
      }
      return true;
    }
    case Phase::focus:
      if (++step_ < 7) return true;
      if (!ImGui::GetIO().WantTextInput) return fail("the sentence box did not take the keyboard (Ctrl+L, End)");
      phase_ = Phase::type;
      return true;
    case Phase::type:
      if (state.request.sentence != expected_)
        return fail("the typed character did not reach the sentence: got \"" + state.request.sentence + "\"");
      phase_ = Phase::wait_result;
      current_.frames = 1, current_.longest_frame_ms = dt;
      current_.fonts_ms = report.fonts_ms;
      current_.skipped = report.picture_skipped ? 1 : 0;
      return true;
    case Phase::wait_result:
      if (ui.derived && ui.derived->analysis->request.sentence == expected_) {
        current_.first_maps_ms = ms_between(typed_at_, now);
        current_.swap_in_frame_ms = dt;
        current_.swap_ui_ms = report.ui_ms, current_.swap_upload_ms = report.upload_ms;
        current_.swap_render_ms = report.render_ms, current_.swap_renders = report.heatmap_renders;
        current_.compute_ms = ui.derived->analysis->compute_ms;
        current_.parts = ui.derived->analysis->times;
        current_.reused_tokens = ui.derived->analysis->reused_tokens;
        current_.tokens = ui.derived->run().n_tokens();
        phase_ = Phase::wait_maps;
        return end_frame_maps(report, now, dt, true);
      }
      if (!busy && !ui.status.error.empty()) return fail("keystroke " + std::to_string(keys_.size() + 1) + ": " + ui.status.error);
      if (waited_s > kTimeoutS) return fail("no result " + std::to_string(int(kTimeoutS)) + " s after a keystroke");
      ++current_.frames;
      current_.fonts_ms += report.fonts_ms;
      current_.skipped += report.picture_skipped ? 1 : 0;
      current_.longest_frame_ms = std::max(current_.longest_frame_ms, dt);
      return true;
    case Phase::wait_maps:
      if (waited_s > kTimeoutS) return fail("maps still not new " + std::to_string(int(kTimeoutS)) + " s after a keystroke");
      return end_frame_maps(report, now, dt, false);
    case Phase::settle:
      if (busy) step_ = 0;
      else if (++step_ >= kSettleFrames) {
        if (int(keys_.size()) >= options_.keystrokes) return finish(ui);
        phase_ = Phase::type;
      }
      return true;
    case Phase::done:
      return false;
  }
  return false;
}

// A frame after the keystroke's result arrived: the keystroke is done once no map on screen shows
// older data (the app colours a keystroke's new maps over a few frames).
bool BenchMode::end_frame_maps(const FrameReport& report, Clock::time_point now, double dt, bool first) {
  (void)first;
  ++current_.frames;
  ++current_.map_frames;
  current_.fonts_ms += report.fonts_ms;
  current_.longest_frame_ms = std::max(current_.longest_frame_ms, dt);
  if (report.heatmaps_pending > 0) return true;
  current_.latency_ms = ms_between(typed_at_, now);
  keys_.push_back(current_);
  phase_ = Phase::settle, step_ = 0;
  return true;
}

// Heatmaps whose cell areas overlap another's or run past the window: drawn, but not all seen.
void BenchMode::check_layout(const FrameReport& report) {
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 fb(io.DisplaySize.x * io.DisplayFramebufferScale.x, io.DisplaySize.y * io.DisplayFramebufferScale.y);
  const auto& maps = report.heatmaps;
  overlapping_ = outside_ = 0;
  for (size_t a = 0; a < maps.size(); ++a) {
    if (maps[a].min.x < 0 || maps[a].min.y < 0 || maps[a].max.x > fb.x || maps[a].max.y > fb.y) ++outside_;
    for (size_t b = 0; b < maps.size(); ++b) {
      if (a == b) continue;
      const float w = std::min(maps[a].max.x, maps[b].max.x) - std::max(maps[a].min.x, maps[b].min.x);
      const float h = std::min(maps[a].max.y, maps[b].max.y) - std::max(maps[a].min.y, maps[b].min.y);
      if (w > 1 && h > 1) {
        ++overlapping_;
        break;
      }
    }
  }
}

bool BenchMode::fail(const std::string& message) {
  std::cerr << "error: benchmark: " << message << "\n";
  code_ = 1;
  phase_ = Phase::done;
  return false;
}

bool BenchMode::finish(const UiContext& ui) {
  phase_ = Phase::done;
  nlohmann::json j;
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  j["window"] = {int(size.x), int(size.y)};
  const GLubyte* renderer = glGetString(GL_RENDERER);
  j["renderer"] = renderer ? reinterpret_cast<const char*>(renderer) : "?";
  j["tokens"] = tokens_, j["layers"] = layers_, j["heads"] = heads_;
  j["compute_ms_first"] = ui.derived ? ui.derived->analysis->compute_ms : 0.0;
  double sum = 0;
  for (double v : frame_ms_) sum += v;
  const double mean = frame_ms_.empty() ? 0 : sum / double(frame_ms_.size());
  j["frames"] = {{"count", frame_ms_.size()},
                 {"mean_ms", mean},
                 {"median_ms", median(frame_ms_)},
                 {"p95_ms", percentile(frame_ms_, 0.95)},
                 {"max_ms", frame_ms_.empty() ? 0.0 : *std::max_element(frame_ms_.begin(), frame_ms_.end())},
                 {"fps", mean > 0 ? 1e3 / mean : 0.0},
                 {"heatmaps_min", std::max(0, heatmaps_min_)},
                 {"heatmaps_max", heatmaps_max_},
                 {"heatmaps_overlapping", overlapping_},
                 {"heatmaps_outside_window", outside_},
                 {"heatmap_renders", renders_},
                 {"draw_calls_max", draw_calls_max_}};
  std::vector<double> latency, compute, longest, swap_in, frames, first_maps, map_frames, skipped;
  std::vector<double> swap_ui, swap_upload, swap_render, swap_renders, fonts;
  std::vector<double> prepare, engine, pairs, average, per_head, rollout, roles;
  std::vector<int> tokens, reused;
  for (const Keystroke& k : keys_) {
    latency.push_back(k.latency_ms), compute.push_back(k.compute_ms), longest.push_back(k.longest_frame_ms);
    swap_in.push_back(k.swap_in_frame_ms), frames.push_back(k.frames), tokens.push_back(k.tokens);
    skipped.push_back(k.skipped);
    reused.push_back(k.reused_tokens), first_maps.push_back(k.first_maps_ms), map_frames.push_back(k.map_frames);
    swap_ui.push_back(k.swap_ui_ms), swap_upload.push_back(k.swap_upload_ms), swap_render.push_back(k.swap_render_ms);
    swap_renders.push_back(k.swap_renders), fonts.push_back(k.fonts_ms);
    prepare.push_back(k.parts.prepare), engine.push_back(k.parts.engine), pairs.push_back(k.parts.pairs);
    average.push_back(k.parts.average), per_head.push_back(k.parts.per_head), rollout.push_back(k.parts.rollout);
    roles.push_back(k.parts.roles);
  }
  j["keystrokes"] = {{"count", keys_.size()},
                     {"latency_ms", latency},
                     {"median_ms", median(latency)},
                     {"max_ms", latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end())},
                     {"compute_ms_median", median(compute)},
                     {"frames_during_recompute_median", median(frames)},
                     {"longest_frame_during_recompute_ms", longest.empty() ? 0.0 : *std::max_element(longest.begin(), longest.end())},
                     {"longest_frame_ms", longest},
                     {"swap_in_frame_ms_median", median(swap_in)},
                     {"first_maps_ms_median", median(first_maps)},
                     {"frames_to_every_map", map_frames},
                     {"frames", frames},
                     {"pictures_skipped", skipped},
                     {"swap_in_frame_parts_ms_median",
                      {{"ui", median(swap_ui)}, {"upload", median(swap_upload)}, {"render", median(swap_render)},
                       {"maps_coloured", median(swap_renders)}}},
                     {"compute_parts_ms_median",
                      {{"prepare", median(prepare)}, {"engine", median(engine)}, {"pairs", median(pairs)},
                       {"average", median(average)}, {"per_head", median(per_head)}, {"rollout", median(rollout)},
                       {"roles", median(roles)}}},
                     {"tokens", tokens},
                     {"reused_tokens", reused},
                     {"compute_ms", compute},
                     {"first_maps_ms", first_maps},
                     {"swap_in_frame_ms", swap_in},
                     {"fonts_ms", fonts}};
  if (!keys_.empty()) {
    const Keystroke& k = keys_.front();
    j["keystrokes"]["first"] = bench_keystroke_json(k.latency_ms, k.first_maps_ms, k.compute_ms, k.parts, k.swap_in_frame_ms,
                                                    k.swap_ui_ms, k.swap_upload_ms, k.swap_render_ms, k.fonts_ms, k.frames);
  }
  try {
    write_file_atomic(options_.out, j.dump(1) + "\n");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  std::cout << "benchmark: " << frame_ms_.size() << " frames, median " << median(frame_ms_) << " ms; "
            << keys_.size() << " keystrokes, median " << median(latency) << " ms to the new maps; wrote "
            << options_.out << "\n";
  return false;
}

}  // namespace hs::gui
