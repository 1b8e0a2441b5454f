// The app's "Export..." writes the same bytes as `headscope-cli export` with the same settings
// (issue 4): both go through core/export/export.h, and this checks the app builds the same
// ExportSpec and request as the CLI's flags for every exportable view and several formats.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/actions/export_action.h"
#include "app/gui/work/compute.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Case {
  hs::gui::View view;
  int head;
  const char* cli_view_flags;
  const char* file;
  hs::PairMeasure measure = hs::PairMeasure::distance;  // the Head difference view's colour-by choice
  bool per_head_range = false;                           // the grid's "range per head"
  bool layer_range = false;                              // the single head's "layer range"
};

TEST(ExportParity, AppExportEqualsCliExport) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity";
  fs::remove_all(dir);
  fs::create_directories(dir / "app");
  fs::create_directories(dir / "cli");
  hs::gui::AppState state = hs::gui::default_app_state();
  state.request.attention.causal = true;
  state.scale.colormap = hs::Colormap::magma;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  const hs::ModelRequest& r = state.request;
  const std::string model_flags = " --sentence " + quote(r.sentence) + " --d-model " + std::to_string(r.attention.d_model) +
                                  " --heads " + std::to_string(r.attention.n_heads) + " --seed " + std::to_string(r.seed) +
                                  " --causal --colormap magma";
  const Case cases[] = {
      {hs::gui::View::heads, 0, "", "grid.png"},          {hs::gui::View::heads, 0, "", "grid.svg"},
      {hs::gui::View::head, 2, " --head 2", "head2.png"}, {hs::gui::View::head, 2, " --head 2", "head2.csv"},
      {hs::gui::View::head, 1, " --head 1", "head1.npy"},
      {hs::gui::View::difference, 0, " --view distance", "dist.png"},
      {hs::gui::View::difference, 0, " --view distance", "dist.npy"},
      {hs::gui::View::difference, 0, " --view difference", "diff.png", hs::PairMeasure::difference},
      {hs::gui::View::difference, 0, " --view difference", "diff.npy", hs::PairMeasure::difference},
      {hs::gui::View::heads, 0, " --per-head-range", "grid_per_head.png", hs::PairMeasure::distance, true},
      {hs::gui::View::head, 3, " --head 3 --layer-range", "head3_layer.png", hs::PairMeasure::distance, false, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    state.view = c.view;
    state.head = c.head;
    state.difference.measure = c.measure;
    state.grid.per_head_range = c.per_head_range;
    state.head_view.layer_range = c.layer_range;
    state.exporter.folder = (dir / "app").string();
    state.exporter.file_name = c.file;
    state.exporter.save_requested = true;
    hs::gui::StatusInfo status;
    hs::gui::handle_export_requests(state, derived.get(), status);
    ASSERT_FALSE(status.export_failed) << status.last_export;
    const std::string cli = std::string(HEADSCOPE_BINARY_DIR) + "/headscope-cli export" + model_flags + c.cli_view_flags +
                            " --out " + quote((dir / "cli" / c.file).string());
    ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
    std::string a = slurp(dir / "app" / c.file), b = slurp(dir / "cli" / c.file);
    if (fs::path(c.file).extension() == ".svg") {
      // cairo numbers SVG surfaces with a process-wide counter ("surface2" in a fresh CLI,
      // "surface148" in an app that has drawn before): the only difference allowed.
      // The same holds for the ids of embedded images ("image6" / "image159").
      const std::regex surface_id("(surface|image)[0-9]+");
      a = std::regex_replace(a, surface_id, "$1#");
      b = std::regex_replace(b, surface_id, "$1#");
    }
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "the app's " << c.file << " (" << a.size() << " bytes) differs from the CLI's (" << b.size()
                        << " bytes) for: " << cli;
  }
}

// Issue 20: the Export dialog's settings (what, size, DPI, font size, title, colours) give the
// file headscope-cli's flags of the same names give.
TEST(ExportParity, DialogSettingsEqualCliFlags) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity_dialog";
  fs::remove_all(dir);
  fs::create_directories(dir / "app");
  fs::create_directories(dir / "cli");
  hs::gui::AppState state = hs::gui::default_app_state();
  state.request.attention.causal = true;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  const hs::ModelRequest& r = state.request;
  const std::string model_flags = " --sentence " + quote(r.sentence) + " --d-model " + std::to_string(r.attention.d_model) +
                                  " --heads " + std::to_string(r.attention.n_heads) + " --seed " + std::to_string(r.seed) +
                                  " --causal";
  struct DialogCase {
    hs::gui::ExportWhat what;
    const char* size;
    float dpi, font;
    bool show_title;
    const char* title;
    bool magma_log;
    const char* cli_flags;
    const char* file;
  };
  const DialogCase cases[] = {
      {hs::gui::ExportWhat::view, "3.25x3.25in", 144, 0, true, "", false, " --size 3.25x3.25in", "col.pdf"},
      {hs::gui::ExportWhat::view, "3.25x3.25in", 300, 7, false, "", false, " --size 3.25x3.25in --dpi 300 --font-size 7 --no-title", "col.png"},
      {hs::gui::ExportWhat::head, "8x6cm", 144, 0, true, "Figure 2", true,
       " --head 1 --size 8x6cm --title 'Figure 2' --colormap magma --color-scale log", "head.svg"},
      {hs::gui::ExportWhat::overview, "", 144, 0, true, "", false, " --view overview", "overview.png"},
      {hs::gui::ExportWhat::difference, "7x2in", 144, 0, true, "", false, " --view distance --size 7x2in", "dist.pdf"},
  };
  for (const DialogCase& c : cases) {
    SCOPED_TRACE(c.file);
    state.view = hs::gui::View::heads;
    state.head = 1;
    hs::gui::ExportPanelState& e = state.exporter;
    e.what = c.what;
    e.size = c.size;
    e.dpi = c.dpi;
    e.font_size = c.font;
    e.show_title = c.show_title;
    e.title = c.title;
    e.view_colours = !c.magma_log;
    e.colormap = hs::Colormap::magma;
    e.scale_mode = hs::ScaleMode::log;
    e.folder = (dir / "app").string();
    e.file_name = c.file;
    e.save_requested = true;
    hs::gui::StatusInfo status;
    hs::gui::handle_export_requests(state, derived.get(), status);
    ASSERT_FALSE(status.export_failed) << status.last_export;
    const std::string cli = std::string(HEADSCOPE_BINARY_DIR) + "/headscope-cli export" + model_flags + c.cli_flags +
                            " --out " + quote((dir / "cli" / c.file).string());
    ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
    std::string a = slurp(dir / "app" / c.file), b = slurp(dir / "cli" / c.file);
    // SVG: cairo's process-wide surface and image ids; PDF: the creation time (to the second).
    const std::regex varying("(surface|image)[0-9]+|/CreationDate \\(D:[0-9]+Z\\)");
    a = std::regex_replace(a, varying, "#");
    b = std::regex_replace(b, varying, "#");
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "the app's " << c.file << " (" << a.size() << " bytes) differs from the CLI's (" << b.size()
                        << " bytes) for: " << cli;
  }
}

// Issue 20: the font set once in the app's settings (export_font) gives the file a style file's
// "font" gives the CLI; an unknown family fails on the status line, naming it.
TEST(ExportParity, SettingsFontEqualsStyleFileFont) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity_font";
  fs::remove_all(dir);
  fs::create_directories(dir);
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  const hs::ModelRequest& r = state.request;
  std::ofstream(dir / "serif.json") << R"({"font": "DejaVu Serif"})";
  hs::gui::ExportPanelState& e = state.exporter;
  e.what = hs::gui::ExportWhat::difference;
  e.size = "3.25x3.25in";
  e.font = "DejaVu Serif";
  e.folder = dir.string();
  e.file_name = "app.svg";
  e.save_requested = true;
  hs::gui::StatusInfo status;
  hs::gui::handle_export_requests(state, derived.get(), status);
  ASSERT_FALSE(status.export_failed) << status.last_export;
  const std::string cli = std::string(HEADSCOPE_BINARY_DIR) + "/headscope-cli export --sentence " + quote(r.sentence) +
                          " --d-model " + std::to_string(r.attention.d_model) + " --heads " +
                          std::to_string(r.attention.n_heads) + " --seed " + std::to_string(r.seed) +
                          " --view distance --size 3.25x3.25in --style " + quote((dir / "serif.json").string()) +
                          " --out " + quote((dir / "cli.svg").string());
  ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
  const std::regex varying("(surface|image)[0-9]+");
  const std::string a = std::regex_replace(slurp(dir / "app.svg"), varying, "#");
  const std::string b = std::regex_replace(slurp(dir / "cli.svg"), varying, "#");
  EXPECT_NE(a.find("font-family=\"DejaVu Serif, serif\""), std::string::npos);
  EXPECT_TRUE(a == b) << "the app's file differs from the CLI's with the same style";

  e.font = "No Such Family";
  e.file_name = "bad.svg";
  e.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_TRUE(status.export_failed);
  EXPECT_NE(status.last_export.find("font 'No Such Family' is not installed"), std::string::npos) << status.last_export;
  EXPECT_FALSE(fs::exists(dir / "bad.svg"));
}

// Never overwrite silently: a save onto an existing file writes nothing until "Replace".
TEST(ExportParity, ExistingFileIsNotOverwrittenWithoutConsent) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_overwrite";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "mine.png";
  { std::ofstream(target, std::ios::binary) << "precious"; }
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  hs::gui::ExportPanelState& e = state.exporter;
  e.folder = dir.string();
  e.file_name = "mine.png";
  e.save_requested = true;
  hs::gui::StatusInfo status;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_EQ(slurp(target), "precious") << "the file was replaced without asking";
  EXPECT_EQ(e.confirm_path, target.string());
  EXPECT_TRUE(e.dialog_open) << "the dialog asks";
  EXPECT_NE(status.last_export.find("exists"), std::string::npos) << status.last_export;
  // Asking again without consent still writes nothing; a different name is not consent either.
  e.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_EQ(slurp(target), "precious");
  e.overwrite_confirmed = true;
  e.confirm_path = (dir / "other.png").string();
  e.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  EXPECT_EQ(slurp(target), "precious");
  // "Replace": now it is written, and the consent is used up.
  e.overwrite_confirmed = true;
  e.save_requested = true;
  hs::gui::handle_export_requests(state, derived.get(), status);
  ASSERT_FALSE(status.export_failed) << status.last_export;
  EXPECT_EQ(slurp(target).rfind("\x89PNG", 0), 0u) << "replaced after consent";
  EXPECT_FALSE(e.overwrite_confirmed);
  EXPECT_TRUE(e.confirm_path.empty());
}

TEST(ExportParity, DefaultNamesSayWhatIsExported) {
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  state.view = hs::gui::View::heads;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "pdf"), "synthetic_d_model_8_L0_heads.pdf");
  state.view = hs::gui::View::head;
  state.head = 2;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "png"), "synthetic_d_model_8_L0_h2.png");
  state.view = hs::gui::View::difference;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "svg"), "synthetic_d_model_8_L0_distance.svg");
  state.exporter.what = hs::gui::ExportWhat::overview;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "pdf"), "synthetic_d_model_8_overview.pdf");
  state.exporter.what = hs::gui::ExportWhat::sweep;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "csv"), "synthetic_d_model_8_sweep.csv");
}

}  // namespace
