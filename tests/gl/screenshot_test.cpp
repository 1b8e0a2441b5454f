// headscope in a real window (xvfb-run, Mesa llvmpipe): `--screenshot FILE.png --frames N`
// writes the window's pixels and FILE.png.json (where each heatmap's cells were drawn). Every
// cell's centre pixel must be the shared colormap's colour for the engine's own value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/model_request.h"
#include "core/model/teaching_model.h"
#include "core/render/colormap.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;

using hs::gltest::expect_cells_match;
using hs::gltest::quote;
using hs::gltest::Shot;
using hs::gltest::take_screenshot;

hs::AttentionRun engine(const std::string& sentence, int d_model, int heads, int kv_heads, bool causal) {
  hs::ModelRequest r;
  r.sentence = sentence;
  r.attention.d_model = d_model;
  r.attention.n_heads = heads;
  r.attention.n_kv_heads = kv_heads;
  r.attention.causal = causal;
  return hs::run_request(r);
}

TEST(Screenshot, HeadGridCellsHaveTheEnginesColours) {
  const std::string sentence = "the keys that Priya left on the table were not hers";
  const Shot shot = take_screenshot("grid", {"--sentence", sentence, "--d-model", "8", "--heads", "4"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  ASSERT_EQ(shot.width, 1600);
  ASSERT_EQ(shot.height, 1000);
  expect_cells_match(shot, engine(sentence, 8, 4, 0, false), "grid L0 h", 4);
}

TEST(Screenshot, GroupedCausalHeadsWithMagma) {
  const std::string sentence = "Zoë's café — Москва, the table";
  const Shot shot = take_screenshot("gqa", {"--sentence", sentence, "--d-model", "16", "--heads", "8", "--kv-heads",
                                            "2", "--causal", "--colormap", "magma"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  const hs::AttentionRun run = engine(sentence, 16, 8, 2, true);
  expect_cells_match(shot, run, "grid L0 h", 8);
  // Masked cells (key after query) are exactly 0: the colormap's first entry.
  for (const auto& h : shot.layout["heatmaps"]) EXPECT_EQ(std::string(h["colormap"]), "magma");
}

TEST(Screenshot, SingleHeadViewIsTheSelectedHead) {
  const std::string sentence = "one two three four five six";
  const Shot shot = take_screenshot("head", {"--sentence", sentence, "--heads", "2", "--view", "head", "--head", "1"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  expect_cells_match(shot, engine(sentence, 8, 2, 0, false), "head view", 1);
  for (const auto& h : shot.layout["heatmaps"]) {
    if (h["key"] == "head view") {
      EXPECT_EQ(int(h["head"]), 1);
    }
  }
}

// Whether a drawn text (the sidecar's "texts") contains `part`.
bool drawn_text_has(const Shot& shot, const std::string& part) {
  for (const auto& t : shot.layout["texts"])
    if (std::string(t["text"]).find(part) != std::string::npos) return true;
  return false;
}

// The first screen (issue 46): with no flags, the teaching model on the first example sentence,
// each head's job on its tile, a "Start lesson 1" button, and no random-weights banner; its cells
// are the teaching model's own weights.
TEST(Screenshot, TheFirstScreenIsTheTeachingModelWithItsHeadsJobs) {
  const Shot shot = take_screenshot("first_screen", {"--width", "1280", "--height", "720"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  hs::ModelRequest r;
  r.model_path = "teaching";
  r.sentence = "the keys that Priya left on the table were not hers";  // assets/examples.txt's first line
  expect_cells_match(shot, hs::run_request(r), "grid L0 h", 4);
  for (const std::string& job : hs::teaching_head_titles()[0])  // "previous token", ..., "what: pronoun → noun"
    EXPECT_TRUE(drawn_text_has(shot, job)) << "no tile names the job '" << job << "'";
  EXPECT_TRUE(drawn_text_has(shot, "Start lesson 1"));
  EXPECT_FALSE(drawn_text_has(shot, "Random weights"));
}

// Random weights when a flag asks for them: the synthetic layer under its banner, no lesson button.
TEST(Screenshot, RandomWeightsWhenAskedForWithTheBanner) {
  const Shot shot = take_screenshot("random_asked", {"--seed", "0", "--width", "1280", "--height", "720"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  expect_cells_match(shot, engine("the keys that Priya left on the table were not hers", 8, 4, 0, false), "grid L0 h", 4);
  EXPECT_TRUE(drawn_text_has(shot, "Random weights"));
  EXPECT_FALSE(drawn_text_has(shot, "Start lesson 1"));
}

TEST(Screenshot, BadSettingsStillOpenAndNameTheProblem) {
  const Shot shot = take_screenshot("bad", {"--sentence", "a b c", "--d-model", "8", "--heads", "3"});
  EXPECT_EQ(shot.exit_code, 1);
  EXPECT_NE(shot.stderr_text.find("heads (3) must divide d_model (8)"), std::string::npos) << shot.stderr_text;
  EXPECT_EQ(shot.width, 1600) << "the window should still be drawn";
}

}  // namespace

namespace {

TEST(Window, LayoutPersistsUnderXdgConfigHomeNotTheWorkingFolder) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out" / "persist";
  fs::remove_all(dir);
  fs::create_directories(dir / "cwd");
  const std::string cmd = "cd " + quote((dir / "cwd").string()) + " && XDG_CONFIG_HOME=" + quote((dir / "config").string()) +
                          " " + HEADSCOPE_XVFB_RUN + " -a -s '-screen 0 1920x1080x24' " + HEADSCOPE_APP +
                          " --frames 3 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const fs::path ini = dir / "config" / "headscope" / "imgui.ini";
  ASSERT_TRUE(fs::exists(ini));
  std::ifstream in(ini);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("[headscope][prefs]"), std::string::npos) << text;
  EXPECT_NE(text.find("colormap=viridis"), std::string::npos) << text;
  EXPECT_TRUE(fs::is_empty(dir / "cwd")) << "nothing may be written to the working folder";
}

// Typing: a keystroke's new maps are coloured over several frames under the app's colouring budget
// (HEADSCOPE_UPLOAD_BUDGET, here tiny: one map a frame), each map keeping its old picture until its
// turn, and the app keeps drawing until every map is new; "off" colours them all in the frame that
// shows the new result. A quick result is waited for in the keystroke's frame, which is then not drawn. Read from the benchmark mode's JSON (headscope --bench-frames).
TEST(Window, KeystrokeMapsAreColouredOverFramesUnderTheBudget) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out" / "budget";
  fs::create_directories(dir);
  const auto run = [&](const std::string& budget, const std::string& quick) {
    const fs::path out = dir / ("bench_" + budget + "_" + quick + ".json");
    fs::remove(out);
    const std::string cmd = "XDG_CONFIG_HOME=" + quote((dir / "config").string()) + " HEADSCOPE_UPLOAD_BUDGET=" + budget +
                            " HEADSCOPE_QUICK_RESULT=" + quick + " " + HEADSCOPE_XVFB_RUN + " -a -s '-screen 0 1920x1080x24' " + HEADSCOPE_APP +
                            " --d-model 16 --heads 8 --sentence 'the cat sat on the mat' --bench-frames " +
                            quote(out.string()) + " --bench-frame-count 3 --bench-keystrokes 2 >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out);
    nlohmann::json j;
    if (in) in >> j;
    return j;
  };
  // Quick results (HEADSCOPE_QUICK_RESULT, here waited for however long they take): the keystroke's
  // own frame is not drawn, and the next frame shows every new map. "off": never waited for.
  const nlohmann::json spread = run("0.000001", "off"), all = run("off", "60000");
  ASSERT_TRUE(spread.contains("keystrokes") && all.contains("keystrokes"));
  const int maps = all["frames"]["heatmaps_max"].get<int>();
  ASSERT_GE(maps, 8) << "eight heads on screen";
  EXPECT_EQ(all["keystrokes"]["count"].get<int>(), 2);
  // Issue 49: the first keystroke after opening reported apart, font rebuilds per keystroke.
  ASSERT_TRUE(all["keystrokes"].contains("first"));
  EXPECT_EQ(all["keystrokes"]["first"]["latency_ms"].get<double>(), all["keystrokes"]["latency_ms"][0].get<double>());
  EXPECT_TRUE(all["keystrokes"]["first"]["compute_parts_ms"].contains("engine"));
  EXPECT_EQ(all["keystrokes"]["fonts_ms"].size(), 2u);
  EXPECT_GE(all["keystrokes"]["swap_in_frame_parts_ms_median"]["maps_coloured"].get<double>(), double(maps));
  for (const auto& f : all["keystrokes"]["frames_to_every_map"]) EXPECT_EQ(f.get<int>(), 1);
  for (const auto& f : all["keystrokes"]["frames"]) EXPECT_EQ(f.get<int>(), 2) << "the keystroke's frame, then the new maps";
  for (const auto& f : all["keystrokes"]["pictures_skipped"]) EXPECT_EQ(f.get<int>(), 1) << "the keystroke's frame";
  for (const auto& f : spread["keystrokes"]["pictures_skipped"]) EXPECT_EQ(f.get<int>(), 0) << "off: always drawn";
  EXPECT_EQ(spread["keystrokes"]["count"].get<int>(), 2) << "every map became new (the app kept drawing)";
  EXPECT_EQ(spread["keystrokes"]["swap_in_frame_parts_ms_median"]["maps_coloured"].get<double>(), 1.0);
  for (const auto& f : spread["keystrokes"]["frames_to_every_map"]) EXPECT_GE(f.get<int>(), maps) << "one map a frame";
}

}  // namespace
