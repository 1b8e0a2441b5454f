// Presentation mode headless (ImGui context at the presentation fonts, no renderer): the grid
// arrangement that maximises the maps (against a brute-force oracle), labels that are thinned
// rather than shrunk, every step of every shipped lesson at 1920x1080 with its maps covering 40%
// of the window and token labels of 18 px, the teacher's aids (pointer, reveal, keys), a lesson's
// clicked head opening in place, lesson texts that only name tabs and controls the step unlocks,
// and the light theme (contrast, settings).
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <random>
#include <string>

#include "headless_imgui.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/settings.h"
#include "app/gui/actions/window_rules.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/grid_layout.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/work/compute.h"
#include "core/analysis/sweep_analysis.h"
#include "core/render/colormap.h"
#include "core/util/errors.h"

namespace {

using namespace hs::gui;
using hs::View;

// The arrangement every column count gives, checked one by one.
TEST(SharedGrid, PicksTheColumnCountWithTheLargestMapsAgainstBruteForce) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> size(200, 2400), margin(0, 150);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + int(rng() % 24), group = 1 + int(rng() % 4);
    const float w = size(rng), h = size(rng), left = margin(rng), bottom = margin(rng), title = 20, gap = 8;
    const SharedGrid g = layout_shared_grid(n, group, w, h, title, gap, left, bottom);
    // Every key/value group's box (around its tiles) must hold no other group's tile, so a box
    // frames one group alone: groups side by side on a row, or groups filling whole rows.
    const auto groups_stand_apart = [&](int cols) {
      if (group <= 1) return true;
      for (int start = 0; start < n; start += group) {
        const int end = std::min(start + group, n);
        int r0 = n, r1 = -1, c0 = n, c1 = -1;
        for (int i = start; i < end; ++i) {
          r0 = std::min(r0, i / cols), r1 = std::max(r1, i / cols);
          c0 = std::min(c0, i % cols), c1 = std::max(c1, i % cols);
        }
        for (int i = 0; i < n; ++i) {
          const bool inside = i / cols >= r0 && i / cols <= r1 && i % cols >= c0 && i % cols <= c1;
          if (inside && (i < start || i >= end)) return false;
        }
      }
      return true;
    };
    float best = -1;
    for (int cols = 1; cols <= n; ++cols) {
      if (!groups_stand_apart(cols)) continue;
      const int rows = (n + cols - 1) / cols;
      best = std::max(best, std::min((w - left) / cols - gap, (h - bottom) / rows - title - gap));
    }
    ASSERT_NEAR(g.side, std::max(best, 0.0f), 1e-3f) << "n " << n << " group " << group << " " << w << "x" << h;
    ASSERT_GE(g.cols * g.rows, n);
    if (g.side > 0) {
      EXPECT_LE(left + g.cols * (g.side + gap), w + 1e-2f);
      EXPECT_LE(g.rows * (title + g.side + gap) + bottom, h + 1e-2f);
    }
  }
}

// The HiDPI report (Xft.dpi 192): four maps in a wide panel came out 4 x 1 using a third of it.
TEST(SharedGrid, FourMapsInAWidePanelFillIt) {
  const SharedGrid wide = layout_shared_grid(4, 1, 1880, 800, 40, 16, 120, 120);
  EXPECT_EQ(wide.cols, 4);
  EXPECT_GT(4 * wide.side * wide.side, 0.5f * 1880 * 800 * 0.5f);
  const SharedGrid square = layout_shared_grid(4, 1, 1000, 1000, 40, 16, 120, 120);
  EXPECT_EQ(square.cols, 2) << "a square panel: 2 x 2";
}

// The share of the window the maps must cover, presenting at 1920x1080: issue 19's 40% for every
// map view, no exceptions (the Single head view and the all-layers overview with the caption
// beside the maps, compared models with the height shared by need, three models side by side
// with one row-label column and the colour bar across under them).
constexpr float kPresentMapFloor = 0.40f;

class Presenting : public ::testing::Test {
 protected:
  void SetUp() override {
    // What the app builds when presenting: fonts and style at the presentation scale.
    hs::gui::test::start_headless_imgui(ImVec2(1920, 1080), ui_, PresentationState{}.font_scale, true, Theme::dark);
    hs::gui::test::map_navigation_keys();
    ui_.images = &images_;
    ui_.report = &report_;
    for (const std::string& name : shipped_lessons()) lessons_.push_back(find_lesson(name));
    ui_.lessons = &lessons_;
  }
  void TearDown() override { ImGui::DestroyContext(); }

  void frame(AppState& state, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false) {
    hs::gui::test::app_frame(state, ui_, report_, mouse, down);
  }

  void press(AppState& state, int key) { hs::gui::test::press_key(state, ui_, report_, key); }

  void compute(const AppState& state) {
    derived_ = compute_derived(state.request, 1);
    derived_->compare = compute_compare(compare_requests(state), 1);
    if (!state.contrast.sentence.empty())  // a minimal pair's sentence B, as the worker computes it
      derived_->contrast = compute_contrast(state.request, state.contrast.sentence, *derived_->analysis, 1);
    if (state.view == View::width) derived_->sweep = hs::analyse_sweep(state.request, derived_->run().tokens);
    ui_.derived = derived_.get();
  }

  float map_share() const {
    double area = 0;
    for (const DrawnHeatmap& h : report_.heatmaps) area += double(h.max.x - h.min.x) * double(h.max.y - h.min.y);
    return float(area / (1920.0 * 1080.0));
  }

  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
  std::vector<std::shared_ptr<const hs::Lesson>> lessons_;
  std::shared_ptr<Derived> derived_;
};

// The issue's target, measured on the frame report (the GL test measures the same on screen).
TEST_F(Presenting, EveryLessonStepsMapsCoverFortyPercentWithEighteenPixelLabels) {
  ASSERT_FALSE(lessons_.empty());
  for (const auto& lesson : lessons_) {
    AppState state = default_app_state();
    state.present.active = true;
    start_lesson(state, lesson, 0);
    for (size_t i = 0; i < lesson->steps.size(); ++i) {
      SCOPED_TRACE(lesson->title + ", step " + std::to_string(i + 1));
      go_to_step(state, int(i));
      if (active_step(state)->needs_pretrained) {
        // Such a step is shown with a trained model (stories260K from the shared models).
        const std::string model = std::string(HEADSCOPE_MODELS_DIR) + "/stories260K/stories260K.bin";
        if (!std::ifstream(model)) continue;
        state.request.model_path = model;
        state.request.tokenizer = std::string(HEADSCOPE_MODELS_DIR) + "/stories260K/tok512.bin";
      }
      compute(state);
      frame(state);
      frame(state);
      // Charts and tables, no maps to measure: the sweep, the query's bars, the head-roles table.
      if (state.view == View::width || state.view == View::query || state.view == View::roles) continue;
      ASSERT_FALSE(report_.heatmaps.empty());
      std::printf("%s step %zu (%s): maps %.3f%% of the window (%zu maps)\n", lesson->title.c_str(), i + 1,
                  hs::view_descriptor(state.view).title, map_share() * 100, report_.heatmaps.size());
      EXPECT_GE(map_share(), kPresentMapFloor) << report_.heatmaps.size() << " maps";
      int labelled = 0;
      for (const DrawnHeatmap& h : report_.heatmaps) {
        if (h.label_px == 0) continue;
        ++labelled;
        EXPECT_GE(h.label_px, 18.0f) << h.key;
      }
      EXPECT_GT(labelled, 0) << "token labels on screen";
    }
  }
}

TEST(PresentLabels, ThinnedRatherThanShrunk) {
  ImGui::CreateContext();
  ImGui::GetIO().Fonts->AddFontDefault();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  const std::vector<std::string> labels = {"the", "keys", "that", "Priya", "left", "on", "the", "table"};
  for (float cell : {4.0f, 9.0f, 17.0f, 20.0f, 40.0f, 90.0f}) {
    const LabelFit fit = fit_labels(labels, ImGui::GetIO().Fonts->Fonts[0], cell, 19.0f, 27.0f);
    EXPECT_GE(fit.size, 19.0f) << "never below the readable size";
    EXPECT_LE(fit.size, 27.0f);
    EXPECT_GE(float(fit.step) * cell, fit.size * 0.95f - 1e-3f) << "every step-th label: they never overlap";
    EXPECT_TRUE(fit.step == 1 || float(fit.step - 1) * cell < fit.size * 0.95f) << "no more thinning than needed";
  }
  ImGui::DestroyContext();
}

// A step comparing three models of 4 heads side by side (lesson 1's step 8 before it moved to
// the teaching model; 34% of the window when each block kept its own row labels and the colour
// bar its column): one column of row labels on the left serves all three blocks, so every map
// has one size, the maps of a row line up with the labels, and the blocks stay apart (each under
// its own label); blocks that sharing would not enlarge keep their own labels.
TEST_F(Presenting, ModelsSideBySideShareOneRowLabelColumn) {
  AppState state = default_app_state();
  state.present.active = true;
  const auto lesson = find_lesson("multi_head_attention");
  const auto three = std::make_shared<const hs::Lesson>(hs::parse_lesson(R"json({"format": "headscope-lesson", "version": 1,
    "title": "Three", "steps": [{"title": "8. Sharing keys and values", "caption": "Grouped-query attention.",
      "session": {"model": {"d_model": 16, "heads": 4, "kv_heads": 2, "d_head": 4, "causal": false}, "view": {"panel": "grid"}},
      "compare": [{"label": "multi-head (4 key/value heads)", "session": {"model": {"kv_heads": 4}}},
                  {"label": "multi-query (1 key/value head)", "session": {"model": {"kv_heads": 1}}}]}]})json",
                                                                         "three.json"));
  start_lesson(state, three, 0);
  ASSERT_EQ(active_step(state)->compare.size(), 2u);
  compute(state);
  frame(state);
  frame(state);
  ASSERT_EQ(report_.heatmaps.size(), 12u);
  float left = FLT_MAX;
  std::vector<float> tops;
  for (const DrawnHeatmap& h : report_.heatmaps) {
    left = std::min(left, h.min.x);
    EXPECT_NEAR(h.max.x - h.min.x, report_.heatmaps[0].max.x - report_.heatmaps[0].min.x, 0.01f) << h.key << ": one map size";
    EXPECT_NEAR(h.max.y - h.min.y, h.max.x - h.min.x, 0.01f) << h.key;
    if (std::none_of(tops.begin(), tops.end(), [&](float t) { return std::abs(t - h.min.y) < 0.5f; })) tops.push_back(h.min.y);
  }
  EXPECT_EQ(tops.size(), 2u) << "two rows of maps across all three blocks, lined up";
  int labelled_rows = 0;
  for (const DrawnHeatmap& h : report_.heatmaps) {
    if (!h.row_labels) continue;
    ++labelled_rows;
    EXPECT_NEAR(h.min.x, left, 0.5f) << h.key << ": row labels only left of the first block";
    EXPECT_GE(h.label_px, 18.0f);
  }
  EXPECT_EQ(labelled_rows, 2) << "one row-label column, one label set per row of maps";
  // Blocks in order from left to right, apart: this step's grid, then compare1, then compare2.
  const auto span = [&](const std::string& prefix) {
    ImVec2 x(FLT_MAX, -FLT_MAX);
    for (const DrawnHeatmap& h : report_.heatmaps)
      if (h.key.rfind(prefix, 0) == 0) x = ImVec2(std::min(x.x, h.min.x), std::max(x.y, h.max.x));
    return x;
  };
  EXPECT_LT(span("grid ").y, span("compare1 ").x);
  EXPECT_LT(span("compare1 ").y, span("compare2 ").x);
  EXPECT_GE(map_share(), kPresentMapFloor);

  // Lesson 1 step 3's two blocks are held by the height: sharing would not make their maps
  // larger, so each keeps its own row labels.
  start_lesson(state, lesson, 2);
  compute(state);
  frame(state);
  frame(state);
  ASSERT_EQ(active_step(state)->compare.size(), 1u);
  int grid_rows = 0, compare_rows = 0;
  for (const DrawnHeatmap& h : report_.heatmaps) {
    grid_rows += h.row_labels && h.key.rfind("grid ", 0) == 0;
    compare_rows += h.row_labels && h.key.rfind("compare1 ", 0) == 0;
  }
  EXPECT_EQ(grid_rows, 2);
  EXPECT_EQ(compare_rows, 2);
}

TEST_F(Presenting, ThePointerRevealAndStepKeys) {
  AppState state = default_app_state();
  state.present.active = true;
  start_lesson(state, lessons_[0], 2);  // step 3: a grid of maps (step 1 draws bars)
  compute(state);
  frame(state);
  EXPECT_TRUE(state.present.pointer);
  press(state, 'P');
  EXPECT_FALSE(state.present.pointer) << "P hides the pointer ring";
  press(state, 'P');
  EXPECT_TRUE(state.present.pointer);
  press(state, 'H');
  ASSERT_TRUE(state.present.maps_hidden);
  frame(state);
  ASSERT_FALSE(report_.heatmaps.empty());
  for (const DrawnHeatmap& h : report_.heatmaps) EXPECT_TRUE(h.hidden) << h.key;
  press(state, ' ');
  EXPECT_FALSE(state.present.maps_hidden) << "Space reveals";
  frame(state);
  for (const DrawnHeatmap& h : report_.heatmaps) EXPECT_FALSE(h.hidden) << h.key;
  state.present.hide_each_step = true;
  press(state, hs::gui::test::kKeyPageDown);  // a presenter remote
  EXPECT_EQ(state.lesson.step, 3);
  EXPECT_TRUE(state.present.maps_hidden) << "each new step waits for the class to guess";
  press(state, hs::gui::test::kKeyPageUp);
  EXPECT_EQ(state.lesson.step, 2);
  press(state, hs::gui::test::kKeyRight), press(state, hs::gui::test::kKeyRight);
  EXPECT_EQ(state.lesson.step, 4);
  press(state, hs::gui::test::kKeyLeft);
  EXPECT_EQ(state.lesson.step, 3);
  // The step counter, large: in the title font.
  frame(state);
  bool counter = false;
  for (const DrawnPanel& p : report_.panels)
    if (p.name == "step counter") {
      counter = true;
      EXPECT_EQ(p.text, "4 / " + std::to_string(lessons_[0]->steps.size()));
      EXPECT_GE(p.max.y - p.min.y, ui_.fonts.title->FontSize - 1);
      EXPECT_GE(ui_.fonts.title->FontSize, 36.0f);
    }
  EXPECT_TRUE(counter);
}

TEST_F(Presenting, CtrlPlusScalesTheMapsWithTheText) {
  AppState state = default_app_state();
  state.present.active = true;
  start_lesson(state, lessons_[0], 2);
  compute(state);
  frame(state);
  frame(state);
  ASSERT_FALSE(report_.heatmaps.empty());
  const float before = report_.heatmaps[0].max.x - report_.heatmaps[0].min.x;
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  press(state, '='), press(state, '=');
  io.KeyCtrl = false;
  EXPECT_NEAR(state.present.font_scale, 2.0f, 1e-4f);
  frame(state);
  frame(state);
  ASSERT_FALSE(report_.heatmaps.empty());
  EXPECT_GT(report_.heatmaps[0].max.x - report_.heatmaps[0].min.x, before * 1.1f) << "the maps grow with the text";
}

// "Click a head to open it": in a lesson that keeps its tab the head opens in place.
TEST_F(Presenting, ClickingAHeadInALessonOpensItAndClickingAgainGoesBack) {
  for (bool present : {true, false}) {
    AppState state = default_app_state();
    state.present.active = present;
    start_lesson(state, lessons_[0], 2);  // the grid, tabs locked
    ASSERT_TRUE(control_locked(state, hs::LessonControl::panel));
    compute(state);
    frame(state);
    frame(state);
    const DrawnHeatmap* target = nullptr;
    for (const DrawnHeatmap& h : report_.heatmaps)
      if (h.key.rfind("grid", 0) == 0 && h.head == 1) target = &h;
    ASSERT_NE(target, nullptr);
    const ImVec2 c((target->min.x + target->max.x) * 0.5f, (target->min.y + target->max.y) * 0.5f);
    const float grid_side = target->max.x - target->min.x;
    frame(state, c, true);
    frame(state, c, false);
    EXPECT_EQ(state.grid.opened, 1);
    EXPECT_EQ(state.view, View::heads) << "the step keeps its tab";
    frame(state);
    int opened = 0;
    float side = 0;
    for (const DrawnHeatmap& h : report_.heatmaps)
      if (h.key.rfind("opened", 0) == 0) ++opened, side = h.max.x - h.min.x;
    EXPECT_EQ(opened, 1);
    EXPECT_GT(side, 1.5f * grid_side) << "large";
    const ImVec2 m(960, 700);
    frame(state, m, true);
    frame(state, m, false);
    EXPECT_EQ(state.grid.opened, -1) << "a click on it goes back";
  }
}

// The lesson text names only tabs and controls the step lets the class use.
TEST(LessonWording, EveryTabAndControlACaptionNamesIsUnlocked) {
  struct Mention {
    const char* phrase;
    std::vector<std::string> any_of;  // unlocked controls or tabs that make the phrase true
    View own_view;                    // ... or the step's own view
  };
  const View none = View(-1);
  const std::vector<Mention> mentions = {
      {"Head difference tab", {"tab:difference", "panel"}, View::difference},
      {"Head difference view", {"tab:difference", "panel"}, View::difference},
      {"Single head tab", {"tab:head", "panel"}, View::head},
      {"Query tab", {"tab:query", "panel"}, View::query},
      {"Average tab", {"tab:average", "panel"}, View::average},
      {"Head width tab", {"tab:width", "panel"}, View::width},
      {"Head roles", {"tab:roles", "panel"}, View::roles},
      {"sweep", {"tab:width", "panel"}, View::width},
      {"slider", {"window", "temperature", "d_head"}, none},
      {"heads buttons", {"heads"}, none},
      {"head count", {"heads"}, none},
      {"key/value heads buttons", {"kv_heads"}, none},
      {"seed", {"seed"}, none},
      {"causal mask box", {"causal"}, none},
      {"sliding window box", {"window"}, none},
      {"type a sentence", {"sentence"}, none},
      {"Type a sentence", {"sentence"}, none},
  };
  for (const std::string& name : shipped_lessons()) {
    const auto lesson = find_lesson(name);
    AppState state = default_app_state();
    start_lesson(state, lesson, 0);
    for (size_t i = 0; i < lesson->steps.size(); ++i) {
      go_to_step(state, int(i));
      const std::string& text = lesson->steps[i].caption;
      for (const Mention& m : mentions) {
        if (text.find(m.phrase) == std::string::npos) continue;
        bool ok = m.own_view == state.view;
        for (const std::string& c : m.any_of) {  // a tab ("tab:NAME", a view's name) or a control
          if (c.rfind("tab:", 0) == 0) ok = ok || tab_unlocked(state, hs::parse_view(c.substr(4)));
          else ok = ok || !control_locked(state, hs::find_lesson_control(c).value());
        }
        EXPECT_TRUE(ok) << name << " step " << i + 1 << " says \"" << m.phrase << "\" but does not unlock it";
      }
      // Every tab the step unlocks is shown.
      for (const std::string& u : lesson->steps[i].unlocked)
        if (u.rfind("tab:", 0) == 0) {
          const hs::ViewDescriptor* v = hs::find_view(u.substr(4));
          ASSERT_NE(v, nullptr) << u;
          EXPECT_TRUE(tab_unlocked(state, v->view)) << u;
        }
    }
  }
}

TEST(LessonWording, HeadDifferenceCanBeUnlockedAlone) {
  const auto lesson = std::make_shared<const hs::Lesson>(hs::parse_lesson(
      R"({"format": "headscope-lesson", "version": 1, "title": "t", "steps": [{"title": "a", "caption": "b",
          "session": {"view": {"panel": "average"}}, "unlocked": ["tab:difference"]}]})",
      "t.json"));
  AppState state = default_app_state();
  start_lesson(state, lesson, 0);
  EXPECT_TRUE(tab_unlocked(state, View::difference));
  EXPECT_TRUE(tab_unlocked(state, View::average)) << "its own view";
  EXPECT_FALSE(tab_unlocked(state, View::query));
  EXPECT_THROW(hs::parse_lesson(R"({"format": "headscope-lesson", "version": 1, "title": "t", "steps": [{"title": "a",
      "caption": "b", "unlocked": ["tab:nowhere"]}]})", "t.json"), hs::FormatError);
}

// WCAG contrast ratio of two sRGB colours.
float luminance(float r, float g, float b) {
  const auto lin = [](float c) { return c <= 0.03928f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); };
  return 0.2126f * lin(r) + 0.7152f * lin(g) + 0.0722f * lin(b);
}
float contrast(ImVec4 a, ImVec4 b) {
  const float la = luminance(a.x, a.y, a.z), lb = luminance(b.x, b.y, b.z);
  return (std::max(la, lb) + 0.05f) / (std::min(la, lb) + 0.05f);
}

TEST(LightTheme, DarkOnLightWithAColormapThatStandsOutFromThePage) {
  ImGui::CreateContext();
  for (bool present : {false, true}) {
    if (present) apply_presentation_style(1.6f, Theme::light);
    else apply_style(1.0f, Theme::light);
    EXPECT_EQ(current_theme(), Theme::light);
    const ImVec4* c = ImGui::GetStyle().Colors;
    const ImVec4 bg = background_colour();
    EXPECT_GT(luminance(bg.x, bg.y, bg.z), 0.8f) << "a light page";
    EXPECT_GE(contrast(c[ImGuiCol_Text], bg), 12.0f);
    EXPECT_GE(contrast(c[ImGuiCol_TextDisabled], bg), 4.5f) << "secondary text still reads (WCAG AA)";
    EXPECT_GE(contrast(accent_text(), bg), 3.0f) << "titles and the selected head";
    // The map's low end (most cells) against the page: its edge must show.
    const hs::Rgb8 low = hs::colormap_table(present_colormap(Theme::light))[0];
    EXPECT_GE(contrast(ImVec4(low.r / 255.0f, low.g / 255.0f, low.b / 255.0f, 1), bg), 7.0f);
  }
  apply_style(1.0f, Theme::dark);
  EXPECT_EQ(current_theme(), Theme::dark);
  ImGui::DestroyContext();
}

// The colours that mean something (errors, warnings, the compared blocks' labels, generated
// tokens, the sweep's lines) read on both pages, desktop and presenting.
TEST(ThemeColours, EveryToneReadsOnItsPage) {
  ImGui::CreateContext();
  const Tone text_tones[] = {Tone::accent, Tone::secondary, Tone::error, Tone::warning, Tone::success, Tone::generated};
  const Tone line_tones[] = {Tone::mark, Tone::group, Tone::series_blue, Tone::series_green, Tone::series_orange, Tone::series_grey};
  for (Theme theme : {Theme::dark, Theme::light})
    for (bool present : {false, true}) {
      if (present) apply_presentation_style(1.6f, theme);
      else apply_style(1.0f, theme);
      const ImVec4 bg = background_colour();
      for (Tone t : text_tones)
        EXPECT_GE(contrast(tone(t), bg), 4.5f) << theme_name(theme) << (present ? " presenting" : "") << ", tone " << int(t);
      for (Tone t : line_tones)
        EXPECT_GE(contrast(tone(t), bg), 3.0f) << theme_name(theme) << (present ? " presenting" : "") << ", tone " << int(t);
      // Faint lines are the text colour, so they darken on the light page.
      const ImVec4 ink_colour = ImGui::ColorConvertU32ToFloat4(ink(1.0f));
      EXPECT_GE(contrast(ink_colour, bg), 12.0f);
    }
  apply_style(1.0f, Theme::dark);
  ImGui::DestroyContext();
}

// Review finding: panels drew with colour literals that ignored the light theme (white lines on
// a white page). Colours come from theme.cpp's table; the files below hold the only literals
// left: black or white text chosen against a colormap cell (draw_util.cpp), and two files other
// work had open at the time (the export preview's paper and the heatmap's hover lines).
TEST(ThemeColours, PanelsTakeTheirColoursFromTheTheme) {
  namespace fs = std::filesystem;
  const std::map<std::string, int> allowed = {{"draw_util.cpp", 2}, {"panel_export.cpp", 6}, {"heatmap_widget.cpp", 2}};
  // IM_COL32(number, ...) or ImVec4(number, ...) with a visible alpha: a colour literal.
  const std::regex literal(R"((IM_COL32|ImVec4)\(\s*[0-9.]+f?\s*,\s*[0-9.]+f?\s*,\s*[0-9.]+f?\s*,\s*([0-9.]+)f?\s*\))");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(HEADSCOPE_SOURCE_DIR) / "app" / "gui")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".cpp" || name == "theme.cpp") continue;
    ++files;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int found = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it)
      found += std::stof((*it)[2].str()) > 0;
    if (name == "draw_util.cpp") {
      EXPECT_EQ(found, 2) << "black or white on a colormap cell: the pattern finds literals";
    }
    const auto a = allowed.find(name);
    EXPECT_LE(found, a == allowed.end() ? 0 : a->second) << e.path().string() << ": take the colour from theme.h (tone, ink, page)";
  }
  EXPECT_GT(files, 40);
}

TEST(LightTheme, RememberedInTheSettingsAndFollowedByThePresentationColormap) {
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  AppState saved = default_app_state();
  saved.present.active = true;
  saved.scale.colormap = present_colormap(Theme::dark);
  set_theme(saved, Theme::light);
  EXPECT_EQ(saved.theme, Theme::light);
  EXPECT_EQ(saved.scale.colormap, present_colormap(Theme::light)) << "the presentation default follows the theme";
  register_settings(&saved);
  ImGui::MarkIniSettingsDirty();
  const std::string ini = ImGui::SaveIniSettingsToMemory();
  EXPECT_NE(ini.find("theme=light"), std::string::npos) << ini;
  ImGui::DestroyContext();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  AppState loaded = default_app_state();
  register_settings(&loaded);
  ImGui::LoadIniSettingsFromMemory(ini.c_str(), ini.size());
  EXPECT_EQ(loaded.theme, Theme::light);
  ImGui::DestroyContext();
  Theme t = Theme::dark;
  EXPECT_FALSE(parse_theme("sepia", t));
  EXPECT_TRUE(parse_theme("light", t));
  EXPECT_EQ(t, Theme::light);
}

// Issue 30: after presenting (F5 or --present swaps viridis for the projector colormap), imgui.ini
// keeps the user's own colormap; the next ordinary session opened in cividis.
TEST(LightTheme, PresentingDoesNotOverwriteTheSavedColormap) {
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  AppState state = default_app_state();
  ASSERT_EQ(state.scale.colormap, hs::Colormap::viridis);
  bool was_active = false;
  state.present.active = true;
  follow_presentation_colours(state, was_active);
  EXPECT_EQ(state.scale.colormap, present_colormap(Theme::dark)) << "presenting shows its own colormap";
  register_settings(&state);
  ImGui::MarkIniSettingsDirty();
  const std::string ini = ImGui::SaveIniSettingsToMemory();
  EXPECT_NE(ini.find("colormap=viridis"), std::string::npos) << ini;
  state.scale.colormap = hs::Colormap::magma;  // the user's own pick while presenting is kept
  ImGui::MarkIniSettingsDirty();
  EXPECT_NE(std::string(ImGui::SaveIniSettingsToMemory()).find("colormap=magma"), std::string::npos);
  ImGui::DestroyContext();
}

}  // namespace
