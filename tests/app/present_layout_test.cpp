// Issues 30 and 46's layout check, headless (ImGui context, no renderer; part of
// presentation_test): every step of every shipped lesson, presenting at 1280x720, 1366x768 and
// 1920x1080 in both themes, through app/gui/panels/lesson_check.h (the rules are
// app/gui/widgets/layout_rules.h's: texts read back from the draw lists, none cut, shortened,
// overlapping or under 24 px in the lesson panel / 20 px elsewhere; captions of two lines and 30
// words at most; no hints; no scrolling; colour bars with a scale; maps of 35% (40% at 1080)).
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "headless_imgui.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"
#include "app/gui/panels/lesson_check.h"
#include "app/gui/widgets/drawn_text.h"
#include "app/gui/widgets/layout_rules.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/work/compute.h"
#include "core/analysis/sweep_analysis.h"

namespace {

using namespace hs::gui;
using hs::View;

struct Size {
  int w, h;
  float map_floor;  // the subject maps' share of the window
};
constexpr Size kSizes[] = {{1280, 720, 0.35f}, {1366, 768, 0.35f}, {1920, 1080, 0.40f}};

class PresentLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    ui_.images = &images_;
    ui_.report = &report_;
    for (const std::string& name : shipped_lessons()) lessons_.push_back(find_lesson(name));
    ui_.lessons = &lessons_;
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // The window and fonts the app would have presenting at `size` in `theme`.
  void present_at(const Size& size, Theme theme) {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(size.w), float(size.h));
    io.Fonts->Clear();
    const float scale = present_font_factor(PresentationState{}.font_scale, float(size.h));
    ranges_ = font_ranges({});  // the atlas reads them when it builds
    ui_.fonts = load_fonts(scale, ranges_);
    apply_presentation_style(scale, theme);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }

  const Derived* derived_for(const AppState& state, const std::string& key) {
    auto& d = derived_[key];
    if (!d) {
      d = compute_derived(state.request, 1);
      d->compare = compute_compare(compare_requests(state), 1);
      if (!state.contrast.sentence.empty())  // a minimal pair's sentence B, as the worker computes it
        d->contrast = compute_contrast(state.request, state.contrast.sentence, *d->analysis, 1);
      if (state.view == View::width) d->sweep = hs::analyse_sweep(state.request, d->run().tokens);
    }
    return d.get();
  }

  FontRanges ranges_;
  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
  std::vector<std::shared_ptr<const hs::Lesson>> lessons_;
  std::map<std::string, std::shared_ptr<Derived>> derived_;
};

// Every step of every shipped lesson (stories260K's too) through app/gui/panels/lesson_check.h,
// as `headscope --check-lesson` runs it: at 1280x720 every lesson-panel text is 24 px or more,
// every other 20 px or more, every caption two lines at most and 30 words at most, no keyboard
// or mouse hint on the slide; nothing cut, overlapping or scrolling at any of the three sizes.
// No exceptions: every problem fails.
TEST_F(PresentLayout, EveryStepFitsEveryProjectorInBothThemes) {
  ASSERT_FALSE(lessons_.empty());
  std::map<std::string, int> counts;
  int frames = 0;
  for (const auto& lesson : lessons_) {
    const LessonCheck check = check_lesson(lesson, lesson_check_screens());
    frames += check.frames;
    for (const LessonProblem& p : check.problems) {
      const std::string kind = p.text.substr(0, p.text.find(':'));
      ++counts[kind];
      if (std::getenv("HS_LAYOUT_ALL")) std::printf("%s: %s\n", lesson->title.c_str(), format_lesson_problem(*lesson, p).c_str());
      ADD_FAILURE() << lesson->title << ", " << format_lesson_problem(*lesson, p);
    }
  }
  std::printf("%d frames checked;", frames);
  for (const auto& [kind, n] : counts) std::printf(" %s %d;", kind.c_str(), n);
  std::printf("\n");
  size_t steps = 0;
  for (const auto& lesson : lessons_) steps += lesson->steps.size();
  EXPECT_EQ(size_t(frames), 6 * steps) << "every step of every lesson on three screens in two themes";
}

// A teacher's own lesson gets the same checks: a step on the Difference view, whose labels are
// 11 px in the explorer, is reported with its step and size (issue 46's reproduction).
TEST_F(PresentLayout, ACheckedLessonReportsSmallLabelsWithTheirStep) {
  const std::string text = R"({"format": "headscope-lesson", "version": 1, "title": "Mine", "steps": [
    {"title": "1. Short", "caption": "Four heads.", "session": {"model": {"heads": 4}}},
    {"title": "2. Pairs", "caption": "Which heads look alike?",
     "session": {"model": {"heads": 4}, "view": {"panel": "difference"}}}]})";
  const auto lesson = std::make_shared<const hs::Lesson>(hs::parse_lesson(text, "mine.json"));
  const LessonCheck check = check_lesson(lesson, {lesson_check_screens()[0]}, {Theme::light});
  EXPECT_EQ(check.frames, 2);
  int small_in_step2 = 0;
  std::string line;
  for (const LessonProblem& p : check.problems) {
    if (p.text.rfind("small:", 0) != 0) continue;
    EXPECT_EQ(p.step, 2) << format_lesson_problem(*lesson, p);
    if (p.text.find("11.0px") != std::string::npos && ++small_in_step2 == 1) line = format_lesson_problem(*lesson, p);
  }
  EXPECT_GT(small_in_step2, 0) << "the difference step's 11 px labels";
  EXPECT_EQ(line.rfind("step 2 \"2. Pairs\" at 1280x720 light: small: ", 0), 0u) << line;
  EXPECT_NE(line.find("(under 20 px)"), std::string::npos) << line;
  // A caption of 31 words, reported without drawing anything.
  std::string words;
  for (int i = 0; i < 31; ++i) words += "word ";
  const std::string longer = R"({"format": "headscope-lesson", "version": 1, "title": "Long", "steps": [
    {"title": "1. Long", "caption": ")" + words + R"(", "session": {"model": {"heads": 4}}}]})";
  const auto long_lesson = std::make_shared<const hs::Lesson>(hs::parse_lesson(longer, "long.json"));
  const LessonCheck long_check = check_lesson(long_lesson, {}, {});
  ASSERT_EQ(long_check.problems.size(), 1u);
  EXPECT_EQ(format_lesson_problem(*long_lesson, long_check.problems[0]),
            "step 1 \"1. Long\": caption: 31 words, at most 30 (move the rest to the step's \"notes\")");
}

// The rules themselves: a hint is several words naming a key or the mouse; caption lines are
// counted from the drawn texts, wrapped lines of one caption.
TEST(LayoutRules, HintsAndCaptionLines) {
  EXPECT_TRUE(is_input_hint("click a token; Ctrl+click adds it"));
  EXPECT_TRUE(is_input_hint("wheel: zoom"));
  EXPECT_FALSE(is_input_hint("click"));  // a token
  EXPECT_FALSE(is_input_hint("Scores 0 to 1; a tick marks chance."));
  std::vector<DrawnText> texts(3);
  for (int i = 0; i < 3; ++i) {
    texts[i].window = "##lesson";
    texts[i].px = 24;
    texts[i].min = ImVec2(10, 100 + 24 * float(i) + (i == 1 ? 3 : 0));
    texts[i].max = ImVec2(300, texts[i].min.y + 18);
  }
  EXPECT_EQ(text_lines_in(texts, "##lesson", ImVec2(0, 90), ImVec2(400, 200)), 3);
  EXPECT_EQ(text_lines_in(texts, "##lesson", ImVec2(0, 90), ImVec2(400, 140)), 2);
  EXPECT_EQ(text_lines_in(texts, "##views", ImVec2(0, 90), ImVec2(400, 200)), 0);
}

// The problems of one kind ("unlabelled:") a frame of `report` and `texts` has at 1280x720, one a line.
std::string problems_of_kind(const FrameReport& report, const std::vector<DrawnText>& texts, const char* kind) {
  LayoutRules rules;
  rules.display = ImVec2(1280, 720);
  std::string out;
  for (const std::string& p : layout_problems(report, texts, {}, rules))
    if (p.rfind(kind, 0) == 0) out += p + "\n";
  return out;
}

// Issue 46: a map of up to 24 tokens that draws labels labels every row and column; every k-th
// is a problem naming the rows, and the columns are counted as words (the read-back joins the
// labels of one line into one text).
TEST(LayoutRules, AMapOfFewTokensLabelsEveryRowAndColumn) {
  FrameReport report;
  report.heatmaps.reserve(2);  // `m` stays valid while a second map comes and goes
  DrawnHeatmap& m = report.heatmaps.emplace_back();
  m.key = "grid L0 h0", m.rows = m.cols = m.tokens = 4, m.row_labels = m.col_labels = true;
  m.min = ImVec2(100, 100), m.max = ImVec2(200, 200);  // cells of 25 px
  const auto text = [](const char* s, ImVec2 a, ImVec2 b) {
    DrawnText t;
    t.text = s, t.window = "##views", t.px = 20, t.min = a, t.max = b;
    return t;
  };
  std::vector<DrawnText> texts;
  for (int r = 0; r < 4; ++r) texts.push_back(text("tok", ImVec2(60, 104 + 25 * float(r)), ImVec2(94, 120 + 25 * float(r))));
  texts.push_back(text("a b c d", ImVec2(104, 204), ImVec2(196, 222)));
  const auto unlabelled = [&](const std::vector<DrawnText>& t) { return problems_of_kind(report, t, "unlabelled:"); };
  EXPECT_EQ(unlabelled(texts), "");
  std::vector<DrawnText> thinned = texts;
  thinned.erase(thinned.begin() + 1), thinned.erase(thinned.begin() + 2);  // rows 1 and 3
  thinned.back().text = "a c";
  const std::string found = unlabelled(thinned);
  EXPECT_NE(found.find("unlabelled: rows 1, 3 of the 4x4 map"), std::string::npos) << found;
  EXPECT_NE(found.find("unlabelled: columns (2 labels for 4)"), std::string::npos) << found;
  // A thumbnail drawn without labels beside a labelled map of the same tokens, or a map of 25
  // tokens, is not held to it.
  DrawnHeatmap average = m;
  average.key = "average", average.min = ImVec2(400, 300), average.max = ImVec2(500, 400);  // another band and column
  m.row_labels = m.col_labels = false;
  report.heatmaps.push_back(average);
  const std::string with_average = unlabelled({});
  EXPECT_EQ(with_average.find("(grid L0 h0)"), std::string::npos) << with_average;
  report.heatmaps.pop_back();
  // Without that labelled map, unlabelled tiles (the Head width view's heads, lesson 1 step 7)
  // and a map with column labels only (step 5's width-8 head) are held to every row and column.
  const std::string tiles = unlabelled({});
  EXPECT_NE(tiles.find("unlabelled: rows 0, 1, 2, 3 of the 4x4 map"), std::string::npos) << tiles;
  EXPECT_NE(tiles.find("unlabelled: columns (0 labels for 4)"), std::string::npos) << tiles;
  m.col_labels = true;
  std::vector<DrawnText> columns_only = {texts.back()};
  const std::string cols_only = unlabelled(columns_only);
  EXPECT_NE(cols_only.find("unlabelled: rows 0, 1, 2, 3 of the 4x4 map"), std::string::npos) << cols_only;
  EXPECT_EQ(cols_only.find("unlabelled: columns"), std::string::npos) << cols_only;
  m.row_labels = m.col_labels = true, m.rows = m.cols = m.tokens = 25;
  EXPECT_EQ(unlabelled({}), "");
}

// Issue 46: a map's title is no smaller than the row labels beside its band of maps (at
// 1920x1080 the labels grew to 27 px and the heads' names stayed at 20).
TEST(LayoutRules, ATileTitleIsNoSmallerThanItsRowLabels) {
  FrameReport report;
  for (int k = 0; k < 2; ++k) {
    DrawnHeatmap& m = report.heatmaps.emplace_back();
    m.key = "grid L0 h" + std::to_string(k), m.rows = m.cols = m.tokens = 4, m.row_labels = k == 0, m.col_labels = true;
    m.min = ImVec2(100 + 110 * float(k), 100), m.max = ImVec2(200 + 110 * float(k), 200);
  }
  const auto text = [](const char* s, float px, ImVec2 a, ImVec2 b) {
    DrawnText t;
    t.text = s, t.window = "##views", t.px = px, t.min = a, t.max = b;
    return t;
  };
  std::vector<DrawnText> texts;
  for (int r = 0; r < 4; ++r) texts.push_back(text("tok", 24, ImVec2(60, 102 + 25 * float(r)), ImVec2(94, 122 + 25 * float(r))));
  const auto titles = [&](float px) {
    std::vector<DrawnText> t = texts;
    t.push_back(text("L0 h0", px, ImVec2(102, 100 - px - 3), ImVec2(150, 97)));
    t.push_back(text("L0 h1", px, ImVec2(212, 100 - px - 3), ImVec2(260, 97)));
    return problems_of_kind(report, t, "title:");
  };
  EXPECT_EQ(titles(24), "");
  EXPECT_EQ(titles(27), "");
  const std::string found = titles(20);
  EXPECT_NE(found.find("title: \"L0 h0\""), std::string::npos) << found;
  EXPECT_NE(found.find("title: \"L0 h1\""), std::string::npos) << "the second map shares the first's row labels\n" << found;
  EXPECT_NE(found.find("smaller than its row labels (24.0 px)"), std::string::npos) << found;
}

// Issue 46: a map too small for every label labels the rows its step names (the step's queries),
// on a map of any size; a named row without its label is a problem.
TEST(LayoutRules, TheRowsAStepNamesAreLabelled) {
  FrameReport report;
  DrawnHeatmap& m = report.heatmaps.emplace_back();
  m.key = "overview L0 h0", m.rows = m.cols = m.tokens = 32, m.row_labels = m.col_labels = true;
  m.min = ImVec2(100, 100), m.max = ImVec2(196, 196);  // cells of 3 px
  m.named = {14, 0}, m.named_only = true;
  const auto label_at_row = [&m](int r) {  // beside the middle of row r
    const float mid = m.min.y + (m.max.y - m.min.y) / float(m.rows) * (float(r) + 0.5f);
    DrawnText t;
    t.text = "tok", t.window = "##views", t.px = 20, t.min = ImVec2(60, mid - 10), t.max = ImVec2(94, mid + 10);
    return t;
  };
  const auto unlabelled = [&](const std::vector<DrawnText>& t) { return problems_of_kind(report, t, "unlabelled:"); };
  EXPECT_EQ(unlabelled({label_at_row(0), label_at_row(14)}), "");
  const std::string found = unlabelled({label_at_row(0)});
  EXPECT_NE(found.find("unlabelled: rows 14 of the 32x32 map"), std::string::npos) << found;
  EXPECT_NE(found.find("the step names them"), std::string::npos) << found;
  // Labelled with its named tokens alone, a map of up to 24 tokens is held to those, not to every row.
  m.rows = m.cols = m.tokens = 16, m.named = {3};
  EXPECT_EQ(unlabelled({label_at_row(3)}), "");
  m.named_only = false;  // every k-th label: every row again
  EXPECT_NE(unlabelled({label_at_row(3)}).find("unlabelled: rows 0, 1, 2, 4"), std::string::npos);
}

// What heads do, step 6: each block labels the repeat's two 'Lily' rows, found by word and
// occurrence in its own tokens (stories260K's "▁Lily" after <s>, the teaching model's "Lily").
TEST_F(PresentLayout, TheInductionStepLabelsBothLilyRowsInEachBlock) {
  present_at(kSizes[0], Theme::light);
  const auto heads = std::find_if(lessons_.begin(), lessons_.end(), [](const auto& l) { return l->title.find("What heads do") == 0; });
  ASSERT_NE(heads, lessons_.end());
  AppState state = default_app_state();
  state.present.active = true;
  start_lesson(state, *heads, 5);
  ui_.derived = derived_for(state, "induction step");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
  const std::vector<int> stories_rows = {10, 1}, teaching_rows = {7, 0};  // the second 'Lily', then the first
  int stories = 0, teaching = 0;
  for (const DrawnHeatmap& m : report_.heatmaps) {
    if (m.key.rfind("grid ", 0) == 0) {
      EXPECT_EQ(m.named, stories_rows) << m.key;
      EXPECT_TRUE(m.named_only || !m.row_labels) << m.key << ": 19 tokens in a map of about 130 px";
      ++stories;
    }
    if (m.key.rfind("compare1 ", 0) == 0) {
      EXPECT_EQ(m.named, teaching_rows) << m.key;
      ++teaching;
    }
  }
  EXPECT_EQ(stories, 8);
  EXPECT_EQ(teaching, 4);
  const auto& run = ui_.derived->run();
  EXPECT_EQ(run.tokens.at(10), "\xE2\x96\x81Lily");
  EXPECT_EQ(ui_.derived->compare.at(0).analysis->run.tokens.at(7), "Lily");
}

// The words on screen (issue 30, findings 3, 5 and 8), read back from the draw lists.
std::string all_text() {
  std::string out;
  for (const DrawnText& t : collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts)) out += t.text + "\n";
  return out;
}

TEST_F(PresentLayout, TheWordsOnScreenAreForTheClass) {
  present_at(kSizes[0], Theme::dark);
  // Lesson 1 step 1 (the teaching model's small vocabulary) named no prediction: '"<unk>" next'.
  AppState state = default_app_state();
  state.present.active = true;
  start_lesson(state, lessons_[0], 0);
  ui_.derived = derived_for(state, "words l1s1");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
  EXPECT_EQ(all_text().find("<unk>"), std::string::npos) << all_text();
  // The single-head side text in plain words, not "rank of Q K^T ...; ... with the mask's cells as 0".
  const auto lesson2 = lessons_.at(1);
  start_lesson(state, lesson2, 1);
  ASSERT_EQ(state.view, View::head);
  ui_.derived = derived_for(state, "words l2s2");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
  const std::string head_text = all_text();
  EXPECT_EQ(head_text.find("Q K^T"), std::string::npos) << head_text;
  // Lesson 2 step 6 frames the head its caption names: L1 h0, the teaching model's induction head.
  start_lesson(state, lesson2, 5);
  EXPECT_NE(active_step(state)->caption.find("L1 h0"), std::string::npos);
  EXPECT_EQ(state.layer, 1);
  EXPECT_EQ(state.head, 0);
  // The minimal-pairs lesson's first step: sentence B leaves the teaching model with no word it
  // knows to predict; "<unk>" alone would be jargon.
  const auto pairs = std::find_if(lessons_.begin(), lessons_.end(), [](const auto& l) { return l->title.find("Change one word") == 0; });
  ASSERT_NE(pairs, lessons_.end());
  start_lesson(state, *pairs, 0);
  ui_.derived = derived_for(state, "words pairs s1");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
  const std::string pair_text = all_text();
  EXPECT_NE(pair_text.find("<unk>"), std::string::npos) << "sentence B's prediction, as this step shows it";
  for (size_t at = pair_text.find("<unk>"); at != std::string::npos; at = pair_text.find("<unk>", at + 1))
    EXPECT_EQ(pair_text.compare(at, 24, "<unk> (no word it knows)"), 0) << pair_text;
  // The synthetic layer, when asked for (--seed, the Model panel's synthetic switch; the first
  // screen is the teaching model): its random weights said where the maps are.
  AppState first = default_app_state();
  ui_.derived = derived_for(first, "first screen");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(first, ui_, report_);
  const std::string first_text = all_text();
  EXPECT_NE(first_text.find("Random weights"), std::string::npos) << first_text;
  EXPECT_NE(first_text.find("stories260K"), std::string::npos) << first_text;
}

// Issue 46: the Contrast and Difference views' blocks name their model and layer, as every other
// block does ("(teaching model, layer 1)", "(stories260K, layer 2)"), in a lesson and in the app.
TEST_F(PresentLayout, ContrastAndDifferenceBlocksNameTheirModelAndLayer) {
  const auto pairs = std::find_if(lessons_.begin(), lessons_.end(), [](const auto& l) { return l->title.find("Change one word") == 0; });
  ASSERT_NE(pairs, lessons_.end());
  const auto count = [](std::string text, const std::string& what) {  // a title wrapped over two lines counts too
    std::replace(text.begin(), text.end(), '\n', ' ');
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (bool present : {true, false}) {
    present_at(kSizes[0], Theme::light);
    AppState state = default_app_state();
    state.present.active = present;
    start_lesson(state, *pairs, 0);  // the teaching model, sentence A against B, layer 1
    ASSERT_EQ(state.view, View::contrast);
    ui_.derived = derived_for(state, "names pairs s1");
    for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
    EXPECT_EQ(count(all_text(), "(teaching model, layer 1)"), 2) << "A and B, presenting " << present << ":\n" << all_text();
    start_lesson(state, *pairs, 1);  // stories260K, layer 2
    ui_.derived = derived_for(state, "names pairs s2");
    for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
    EXPECT_EQ(count(all_text(), "(stories260K, layer 2)"), 2) << "A and B, presenting " << present << ":\n" << all_text();
    // The Difference view of the teaching model outside a lesson, and of the synthetic layer.
    AppState app = default_app_state();
    app.present.active = present;
    app.view = View::difference;
    ui_.derived = derived_for(app, "synthetic");
    for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(app, ui_, report_);
    EXPECT_EQ(count(all_text(), "head 0 vs head 1 (random weights, seed 0)"), 1) << "presenting " << present << ":\n" << all_text();
    app.request.model_path = "teaching";
    ui_.derived = derived_for(app, "teaching");
    for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(app, ui_, report_);
    EXPECT_EQ(count(all_text(), "L0 h0 vs L0 h1 (teaching model, layer 0)"), 1) << "presenting " << present << ":\n" << all_text();
  }
}

// Lesson 2 step 4 says the Head roles table opens sorted by the previous column, highest first:
// its first row is the head with the highest previous score.
TEST_F(PresentLayout, TheRolesTableOpensSortedAsTheCaptionSays) {
  present_at(kSizes[2], Theme::dark);
  AppState state = default_app_state();
  state.present.active = true;
  start_lesson(state, lessons_.at(1), 3);
  ASSERT_EQ(state.view, View::roles);
  EXPECT_EQ(state.roles.sort, int(hs::HeadRole::previous));
  ui_.derived = derived_for(state, "roles sorted");
  for (int f = 0; f < 3; ++f) hs::gui::test::app_frame(state, ui_, report_);
  // The first row's layer and head: the texts nearest under the "layer" and "head" headers (a
  // table draws column by column, so drawing order is not row order).
  // Presenting, the table does not scroll, so it has no window of its own: its cells are the view's.
  std::vector<DrawnText> cells;
  for (const DrawnText& t : collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
    if (t.window.find("##views") == 0) cells.push_back(t);
  const auto under = [&](const std::string& header) {
    const auto h = std::find_if(cells.begin(), cells.end(), [&](const DrawnText& t) { return t.text == header; });
    if (h == cells.end()) return std::string("no header ") + header;
    const DrawnText* best = nullptr;
    for (const DrawnText& t : cells)
      if (std::abs(t.min.x - h->min.x) < 2 && t.min.y > h->max.y && (!best || t.min.y < best->min.y)) best = &t;
    return best ? best->text : std::string("nothing under ") + header;
  };
  const std::vector<hs::HeadIndex> ranked = hs::rank_heads(ui_.derived->shown_roles(), int(hs::HeadRole::previous), true);
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(under("layer"), std::to_string(ranked[0].layer));
  EXPECT_EQ(under("head"), std::to_string(ranked[0].head));
  // Presenting, it shows the heads that fit and says how many there are and how to see them all.
  EXPECT_NE(all_text().find("of 40 heads, highest previous first"), std::string::npos) << all_text();
  EXPECT_NE(all_text().find("leave presenting"), std::string::npos) << all_text();
}

// A map whose labels are thinned to every other token still labels its highlighted row and
// column, in place of their neighbours: drawn beside them they overlapped ("L0" over "L1" in the
// Head roles maps at 1440x900).
TEST_F(PresentLayout, AHighlightedLabelTakesItsThinnedNeighboursPlace) {
  present_at(kSizes[0], Theme::dark);
  const hs::Map map = hs::Map::Constant(5, 8, 0.5f);  // [layers, heads], as in the Head roles maps
  const std::vector<std::string> rows = {"L0", "L1", "L2", "L3", "L4"};
  const std::vector<std::string> cols = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"};
  hs::ScaleRange range;
  range.lo = 0, range.hi = 1;
  HeatmapSpec spec = heatmap_spec("thinned", 1, map, range, hs::Colormap::viridis);
  spec.row_labels = &rows, spec.col_labels = &cols;
  spec.label_font_min = spec.label_font_max = present_label_min();
  spec.highlight_row = 1, spec.highlight_col = 3;
  const ImVec2 box(140, 100);
  ImGui::NewFrame();
  EXPECT_GT(layout_heatmap(spec, box, ImGui::GetFont(), ImGui::GetFontSize()).label_step, 1) << "a box where labels thin out";
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(400, 300));
  ImGui::Begin("thinned labels");
  draw_heatmap(ui_, spec, box);
  ImGui::End();
  ImGui::Render();
  const std::vector<DrawnText> texts = collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
  const auto drawn = [&](const std::string& s) {
    return std::any_of(texts.begin(), texts.end(), [&](const DrawnText& t) { return t.text == s; });
  };
  EXPECT_TRUE(drawn("L1") && drawn("h3")) << "the highlighted row and column keep their labels";
  for (size_t i = 0; i < texts.size(); ++i)
    for (size_t j = i + 1; j < texts.size(); ++j)
      EXPECT_FALSE(texts_overlap(texts[i], texts[j])) << texts[i].text << " and " << texts[j].text;
}

}  // namespace
