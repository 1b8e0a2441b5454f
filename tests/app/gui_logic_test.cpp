// The app's non-drawing logic: model rules, labels, the background worker, export.
#include <gtest/gtest.h>

#include <imgui.h>

#include <cmath>

#include "app/gui/widgets/labels.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/work/worker.h"

namespace {

using namespace hs::gui;

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
  state.view = hs::gui::View::heads;
  hs::gui::StatusInfo status;
  state.exporter.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_FALSE(status.export_failed) << status.last_export;
  EXPECT_TRUE(std::filesystem::exists(dir / "grid.png"));
  EXPECT_NE(status.last_export.find("grid.png"), std::string::npos);
  EXPECT_FALSE(state.exporter.save_requested);

  state.view = hs::gui::View::head;
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
  state.exporter.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_TRUE(status.export_failed);
}

}  // namespace
