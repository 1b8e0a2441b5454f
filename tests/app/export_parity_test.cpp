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

#include "app/gui/work/run_commands.h"
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/actions/export_action.h"
#include "app/gui/actions/export_preview.h"
#include "app/gui/work/compute.h"
#include "core/analysis/head_ablation.h"
#include "core/analysis/long_input.h"
#include "core/export/block_maxima_export.h"
#include "core/render/heatmap_figure.h"
#include "core/render/png_pixels.h"
#include "core/util/errors.h"

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
  hs::View view;
  int head;
  const char* cli_view_flags;
  const char* file;
  bool per_head_range = false;                           // the grid's "range per head"
  bool layer_range = false;                              // the single head's "layer range"
};

// Presses Save in the Export dialog for `file` (in `folder`, or the dialog's own when empty) and
// returns what the app's export of that frame reported.
hs::gui::StatusInfo save_as(hs::gui::AppState& state, const hs::gui::Derived* derived, const std::string& file,
                            const fs::path& folder = {}) {
  if (!folder.empty()) state.exporter.folder = folder.string();
  state.exporter.file_name = file;
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::StatusInfo status;
  hs::gui::run_commands(state, status, {derived});
  return status;
}

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
      {hs::View::heads, 0, "", "grid.png"},          {hs::View::heads, 0, "", "grid.svg"},
      {hs::View::head, 2, " --head 2", "head2.png"}, {hs::View::head, 2, " --head 2", "head2.csv"},
      {hs::View::head, 1, " --head 1", "head1.npy"},
      {hs::View::difference, 0, " --view distance", "dist.png"},
      {hs::View::difference, 0, " --view distance", "dist.npy"},
      {hs::View::difference, 0, " --view difference", "diff.png"},
      {hs::View::difference, 0, " --view difference", "diff.npy"},
      {hs::View::heads, 0, " --per-head-range", "grid_per_head.png", true},
      {hs::View::head, 3, " --head 3 --layer-range", "head3_layer.png", false, true},
      // File > Export... > html: the CLI's page, provenance included (issue 53).
      {hs::View::heads, 0, "", "grid.html"},         {hs::View::head, 2, " --head 2", "head2.html"},
      {hs::View::difference, 0, " --view difference", "diff.html"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    state.view = c.view;
    state.head = c.head;
    state.grid.per_head_range = c.per_head_range;
    state.head_view.layer_range = c.layer_range;
    const hs::gui::StatusInfo status = save_as(state, derived.get(), c.file, dir / "app");
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
    std::optional<hs::View> what;
    const char* size;
    float dpi, font;
    bool show_title;
    const char* title;
    bool magma_log;
    const char* cli_flags;
    const char* file;
    bool slide = false;  // issue 46: the dialog's "slide (16:9)" is --preset slide
  };
  const DialogCase cases[] = {
      {std::nullopt, "3.25x3.25in", 144, 0, true, "", false, " --size 3.25x3.25in", "col.pdf"},
      {std::nullopt, "3.25x3.25in", 300, 7, false, "", false, " --size 3.25x3.25in --dpi 300 --font-size 7 --no-title", "col.png"},
      {hs::View::head, "8x6cm", 144, 0, true, "Figure 2", true,
       " --head 1 --size 8x6cm --title 'Figure 2' --colormap magma --color-scale log", "head.svg"},
      {hs::View::overview, "", 144, 0, true, "", false, " --view overview", "overview.png"},
      {hs::View::difference, "7x2in", 144, 0, true, "", false, " --view distance --size 7x2in", "dist.pdf"},
      {std::nullopt, "", 144, 0, true, "", false, " --preset slide", "slide.pdf", true},
      {hs::View::head, "", 144, 20, true, "", false, " --head 1 --preset slide --font-size 20", "slide_head.pdf", true},
  };
  for (const DialogCase& c : cases) {
    SCOPED_TRACE(c.file);
    state.view = hs::View::heads;
    state.head = 1;
    hs::gui::ExportPanelState& e = state.exporter;
    e.what = c.what;
    e.size = c.size;
    e.dpi = c.dpi;
    e.font_size = c.font;
    e.slide = c.slide;
    e.show_title = c.show_title;
    e.title = c.title;
    e.view_colours = !c.magma_log;
    e.colormap = hs::Colormap::magma;
    e.scale_mode = hs::ScaleMode::log;
    const hs::gui::StatusInfo status = save_as(state, derived.get(), c.file, dir / "app");
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
  e.what = hs::View::difference;
  e.size = "3.25x3.25in";
  e.font = "DejaVu Serif";
  hs::gui::StatusInfo status = save_as(state, derived.get(), "app.svg", dir);
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
  status = save_as(state, derived.get(), "bad.svg");
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
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::StatusInfo status;
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_EQ(slurp(target), "precious") << "the file was replaced without asking";
  EXPECT_EQ(e.confirm_path, target.string());
  EXPECT_TRUE(e.dialog_open) << "the dialog asks";
  EXPECT_NE(status.last_export.find("exists"), std::string::npos) << status.last_export;
  // Asking again without consent still writes nothing; a different name is not consent either.
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_EQ(slurp(target), "precious");
  e.overwrite_confirmed = true;
  e.confirm_path = (dir / "other.png").string();
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_EQ(slurp(target), "precious");
  // "Replace": now it is written, and the consent is used up.
  e.overwrite_confirmed = true;
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::run_commands(state, status, {derived.get()});
  ASSERT_FALSE(status.export_failed) << status.last_export;
  EXPECT_EQ(slurp(target).rfind("\x89PNG", 0), 0u) << "replaced after consent";
  EXPECT_FALSE(e.overwrite_confirmed);
  EXPECT_TRUE(e.confirm_path.empty());
}

TEST(ExportParity, DefaultNamesSayWhatIsExported) {
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  state.view = hs::View::heads;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "pdf"), "synthetic_d_model_8_L0_heads.pdf");
  state.view = hs::View::head;
  state.head = 2;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "png"), "synthetic_d_model_8_L0_h2.png");
  state.view = hs::View::difference;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "svg"), "synthetic_d_model_8_L0_difference.svg");
  state.exporter.what = hs::View::overview;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "pdf"), "synthetic_d_model_8_overview.pdf");
  // The Head width view as shown: the sweep and the layer's singular values (a view of one layer,
  // named with its layer as every such view is).
  state.exporter.what = hs::View::width;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "csv"), "synthetic_d_model_8_L0_width.csv");
  state.exporter.what = hs::View::sweep;  // the sweep alone
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "csv"), "synthetic_d_model_8_sweep.csv");
}

// Saves through the dialog's path (run_commands) into dir/app/FILE and runs the CLI with
// `cli_flags` into dir/cli/FILE; returns {app bytes, cli bytes} with cairo's varying ids and the
// PDF creation time masked.
std::pair<std::string, std::string> app_and_cli(hs::gui::AppState& state, const hs::gui::Derived& derived,
                                                const fs::path& dir, const std::string& file, const std::string& cli_flags) {
  const hs::gui::StatusInfo status = save_as(state, &derived, file, dir / "app");
  EXPECT_FALSE(status.export_failed) << status.last_export;
  const std::string cli = std::string(HEADSCOPE_BINARY_DIR) + "/headscope-cli export" + cli_flags + " --out " +
                          quote((dir / "cli" / file).string());
  EXPECT_EQ(std::system(cli.c_str()), 0) << cli;
  const std::regex varying("(surface|image)[0-9]+|/CreationDate \\(D:[0-9]+Z\\)");
  return {std::regex_replace(slurp(dir / "app" / file), varying, "#"),
          std::regex_replace(slurp(dir / "cli" / file), varying, "#")};
}

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

// Empty dir/app and dir/cli, and the app on stories260K with the opening of its story, in magma.
hs::gui::AppState stories_state(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir / "app");
  fs::create_directories(dir / "cli");
  hs::gui::AppState state = hs::gui::default_app_state();
  state.request.model_path = (kStories / "stories260K.bin").string();
  state.request.tokenizer = (kStories / "tok512.bin").string();
  state.request.sentence = "Once upon a time, there was a little girl named Lily.";
  state.scale.colormap = hs::Colormap::magma;
  return state;
}

// Issue 18/20: the dialog exports the head roles (one role's layers x heads map; every role as
// data) and the attention rollout, byte for byte as headscope-cli export --view roles / rollout.
TEST(ExportParity, RolesAndRolloutEqualCliExport) {
  if (!fs::exists(kStories / "stories260K.bin") || !fs::exists(kStories / "tok512.bin"))
    GTEST_SKIP() << "stories260K not found in " << kStories;
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity_roles";
  hs::gui::AppState state = stories_state(dir);
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  ASSERT_FALSE(derived->analysis->roles.induction_measured) << "the app analyses without the probe";
  const std::string model = " --model " + quote(state.request.model_path) + " --tokenizer " +
                            quote(state.request.tokenizer) + " --sentence " + quote(state.request.sentence) +
                            " --colormap magma";
  struct RoleCase {
    std::optional<hs::View> what;
    int role;
    const char* cli_flags;
    const char* file;
  };
  const RoleCase cases[] = {
      {hs::View::roles, 0, " --view roles --role previous", "previous.png"},
      {hs::View::roles, 0, " --view roles --role previous", "previous.npy"},
      {hs::View::roles, 6, " --view roles --role induction", "induction.png"},  // measured on its probe
      {hs::View::roles, 6, " --view roles --role induction", "induction.npy"},
      {hs::View::roles, 2, " --view roles --role bos", "bos.pdf"},
      {hs::View::roles, -1, " --view roles", "all_roles.npy"},
      {hs::View::roles, -1, " --view roles", "all_roles.csv"},
      {hs::View::roles, -1, " --view roles", "all_roles.png"},  // every role of every head (issue 36)
      {hs::View::rollout, 0, " --view rollout", "rollout.png"},
      {hs::View::rollout, 0, " --view rollout", "rollout.npy"},
  };
  for (const RoleCase& c : cases) {
    SCOPED_TRACE(c.file);
    state.exporter.what = c.what;
    state.exporter.role = c.role;
    const auto [a, b] = app_and_cli(state, *derived, dir, c.file, model + c.cli_flags);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "the app's " << c.file << " (" << a.size() << " bytes) differs from the CLI's (" << b.size()
                        << " bytes)";
  }
  // Every role as .npy: [8, n_layers, n_heads]; the shape in its header.
  const std::string all = slurp(dir / "app" / "all_roles.npy");
  const std::string shape = "(8, " + std::to_string(derived->run().n_layers()) + ", " +
                            std::to_string(derived->run().n_heads()) + ")";
  EXPECT_NE(all.find(shape), std::string::npos) << all.substr(0, 120);
  state.exporter.what = hs::View::roles;
  // The default names say what they are.
  state.exporter.role = 0;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "pdf"), "stories260K_roles_previous_token.pdf");
  state.exporter.role = -1;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "npy"), "stories260K_roles_all.npy");
  state.exporter.what = hs::View::rollout;
  EXPECT_EQ(hs::gui::default_export_name(state, *derived, "png"), "stories260K_rollout.png");
}

// Issue 20: in long-input mode the dialog exports the block maxima, labelled as such, and
// headscope-cli export --long-input writes the same files.
TEST(ExportParity, LongInputExportsLabelledBlockMaximaAsTheCli) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity_long";
  fs::remove_all(dir);
  fs::create_directories(dir / "app");
  fs::create_directories(dir / "cli");
  hs::gui::AppState state = hs::gui::default_app_state();
  std::string words;
  for (int i = 0; i < hs::kLongInputTokens + 100; ++i) words += "w" + std::to_string(i % 97) + " ";
  state.request.sentence = words;
  state.request.attention.d_model = 16;
  state.request.attention.n_heads = 2;
  state.request.attention.causal = true;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  ASSERT_TRUE(derived->run().compact());
  ASSERT_EQ(derived->run().map_factor, 3);
  const std::string model = " --long-input --sentence " + quote(words) + " --d-model 16 --heads 2 --seed " +
                            std::to_string(state.request.seed) + " --causal";
  // Two CLI runs (each analyses 2148 tokens): the grid's figure and its numbers with the sidecar.
  state.view = hs::View::heads;
  for (const char* file : {"grid.png", "grid.npy"}) {
    SCOPED_TRACE(file);
    const auto [a, b] = app_and_cli(state, *derived, dir, file, model);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "the app's " << file << " (" << a.size() << " bytes) differs from the CLI's (" << b.size()
                        << " bytes)";
  }
  for (const char* file : {"grid.csv"}) {  // the app's alone: the same core call as above
    const hs::gui::StatusInfo saved = save_as(state, derived.get(), file, dir / "app");
    ASSERT_FALSE(saved.export_failed) << saved.last_export;
    EXPECT_NE(saved.last_export.find("(block maxima)"), std::string::npos) << saved.last_export;
  }
  // Labelled: the CSV's first line, the .npy's sidecar, the figure's title (the .json is maps
  // --long-input --json's object, tested with the CLI).
  const std::string csv = slurp(dir / "app" / "grid.csv");
  EXPECT_EQ(csv.rfind("# block maximum of 3 x 3 cells (long-input mode: ", 0), 0u) << csv.substr(0, 100);
  const std::string sidecar = slurp(dir / "app" / "grid.blocks.json");
  EXPECT_NE(sidecar.find("\"block_size\":3"), std::string::npos) << sidecar.substr(0, 200);
  EXPECT_EQ(sidecar, slurp(dir / "cli" / "grid.blocks.json"));
  const std::string npy = slurp(dir / "app" / "grid.npy");
  const int p = int(derived->run().attention[0][0].rows());
  EXPECT_NE(npy.find("(1, 2, " + std::to_string(p) + ", " + std::to_string(p) + ")"), std::string::npos);
  const hs::RunAnalysis blocks = hs::block_maxima_run(*derived->analysis);
  const hs::Figure fig = hs::heatmap_figure(blocks, 0, -1, hs::ColourScale{});
  EXPECT_NE(fig.title.find("block maxima of 3 x 3 tokens"), std::string::npos) << fig.title;
  // Views that need whole maps still say so.
  state.view = hs::View::difference;
  const hs::gui::StatusInfo status = save_as(state, derived.get(), "diff.png");
  EXPECT_TRUE(status.export_failed);
  EXPECT_NE(status.last_export.find("long-input mode"), std::string::npos) << status.last_export;
}

// Issue 20: the dialog's preview is the export's own render: its PNG is the file a PNG export
// at 72 dpi writes, and it is re-rendered only once the settings rest.
TEST(ExportParity, PreviewIsTheExportRender) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_preview";
  fs::remove_all(dir);
  fs::create_directories(dir);
  hs::gui::AppState state = hs::gui::default_app_state();
  state.request.attention.causal = true;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  hs::gui::ExportPanelState& e = state.exporter;
  e.size = "3.25x2in";
  e.title = "Figure 1";
  e.dpi = 72;
  hs::gui::update_export_preview(state, *derived, 10.0);
  ASSERT_TRUE(e.preview);
  ASSERT_TRUE(e.preview->error.empty()) << e.preview->error;
  // 3.25 x 2 in at 72 dpi: 234 x 144 pixels, one a point.
  EXPECT_EQ(e.preview->pixels.width, 234);
  EXPECT_EQ(e.preview->pixels.height, 144);
  hs::gui::StatusInfo status = save_as(state, derived.get(), "at72.png", dir);
  ASSERT_FALSE(status.export_failed) << status.last_export;
  const std::string file = slurp(dir / "at72.png");
  EXPECT_TRUE(file == e.preview->png) << "the preview (" << e.preview->png.size() << " bytes) is not the export ("
                                      << file.size() << " bytes)";
  const hs::RgbaPixels pixels = hs::decode_png(file);
  EXPECT_TRUE(pixels.rgba == e.preview->pixels.rgba);
  // Decoded as straight RGBA: the page's corner is opaque white; not a PNG is a FormatError.
  ASSERT_EQ(pixels.rgba.size(), size_t(234 * 144 * 4));
  EXPECT_EQ(int(pixels.rgba[0]), 255);
  EXPECT_EQ(int(pixels.rgba[1]), 255);
  EXPECT_EQ(int(pixels.rgba[2]), 255);
  EXPECT_EQ(int(pixels.rgba[3]), 255);
  EXPECT_THROW(hs::decode_png("not a png"), hs::FormatError);
  EXPECT_THROW(hs::decode_png(file.substr(0, file.size() / 2)), hs::FormatError);
  // Typing: the preview waits until the settings rest, then shows the new title.
  const uint64_t version = e.preview->version;
  e.title = "Figure 2";
  hs::gui::update_export_preview(state, *derived, 10.05);
  EXPECT_EQ(e.preview->version, version) << "re-rendered on a keystroke";
  hs::gui::update_export_preview(state, *derived, 10.10);
  EXPECT_EQ(e.preview->version, version);
  hs::gui::update_export_preview(state, *derived, 10.05 + hs::gui::kPreviewRestSeconds + 0.01);
  EXPECT_EQ(e.preview->version, version + 1);
  EXPECT_EQ(e.preview->key, hs::gui::export_preview_key(state, *derived, 0));
  // Unchanged settings: the cached preview.
  hs::gui::update_export_preview(state, *derived, 20.0);
  EXPECT_EQ(e.preview->version, version + 1);
  // A box smaller than the 72-dpi figure: drawn at the resolution that fits, the export at that DPI.
  hs::gui::update_export_preview(state, *derived, 40.0, 117);
  hs::gui::update_export_preview(state, *derived, 41.0, 117);  // once the settings have rested
  ASSERT_TRUE(e.preview->error.empty()) << e.preview->error;
  EXPECT_EQ(e.preview->pixels.width, 117);
  EXPECT_EQ(e.preview->pixels.height, 72);
  EXPECT_DOUBLE_EQ(e.preview->width_pt, 234);
  e.dpi = float(72 * 117.0 / 234);  // 36 dpi
  status = save_as(state, derived.get(), "at36.png");
  ASSERT_FALSE(status.export_failed) << status.last_export;
  EXPECT_TRUE(slurp(dir / "at36.png") == e.preview->png) << "the small preview is not the export at 36 dpi";
  // A setting the export refuses shows its reason instead of a picture.
  e.size = "3x";
  hs::gui::update_export_preview(state, *derived, 30.0);
  hs::gui::update_export_preview(state, *derived, 31.0);
  EXPECT_FALSE(e.preview->error.empty());
}

}  // namespace

namespace {

// Every app view, exported through the Export dialog as shown, equals `headscope-cli export --view
// V` with V the view's own --view name (the app's vocabulary is the CLI's), figure and data alike;
// the Contrast view (two runs) equals `headscope-cli compare --contrast B --out`.
TEST(ExportParity, EveryAppViewEqualsTheCliViewOfItsName) {
  if (!fs::exists(kStories / "stories260K.bin") || !fs::exists(kStories / "tok512.bin"))
    GTEST_SKIP() << "stories260K not found in " << kStories;
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "export_parity_views";
  hs::gui::AppState state = stories_state(dir);
  state.layer = 1, state.head = 3;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  state.contrast.sentence = "Lily saw a big red dog.";  // the Contrast view's sentence B
  derived->contrast = hs::gui::compute_contrast(state.request, state.contrast.sentence, *derived->analysis, 1);
  ASSERT_TRUE(derived->contrast->analysis) << derived->contrast->error;
  const hs::HeadAblation ablation = hs::ablate_heads(state.request);
  const std::string model = " --model " + quote(state.request.model_path) + " --tokenizer " + quote(state.request.tokenizer) +
                            " --sentence " + quote(state.request.sentence) + " --colormap magma";
  for (const hs::View tab : hs::tab_views()) {
    const hs::ViewDescriptor& v = hs::view_descriptor(tab);
    state.view = v.view;
    std::string flags = model + " --view " + v.name;
    const bool contrast = v.view == hs::View::contrast;
    // Roles and ablation cover every layer; the other views show layer 1, and export it alone.
    if (v.view != hs::View::roles && v.view != hs::View::ablation) flags += " --layer 1";
    if (v.view == hs::View::head) flags += " --head 3";
    for (const char* ext : {"png", "npy"}) {
      const std::string file = std::string(v.name) + "." + ext;
      SCOPED_TRACE(file);
      state.exporter.what = std::nullopt;
      state.exporter.file_name = file;
      state.exporter.folder = (dir / "app").string();
      state.commands.push(hs::gui::SaveExport{});
      hs::gui::StatusInfo status;
      hs::gui::run_commands(state, status, {derived.get(), v.view == hs::View::ablation ? &ablation : nullptr});
      ASSERT_FALSE(status.export_failed) << status.last_export;
      const std::string cli =
          std::string(HEADSCOPE_BINARY_DIR) +
          (contrast ? "/headscope-cli compare" + model + " --contrast " + quote(state.contrast.sentence) + " --head 3"
                    : "/headscope-cli export" + flags) +
          (contrast ? " --layer 1" : "") + " --out " + quote((dir / "cli" / file).string());
      ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
      const std::string a = slurp(dir / "app" / file), b = slurp(dir / "cli" / file);
      ASSERT_FALSE(a.empty());
      EXPECT_TRUE(a == b) << "the app's " << v.name << " view as " << ext << " (" << a.size()
                          << " bytes) differs from the CLI's (" << b.size() << " bytes): " << cli;
    }
  }
}

}  // namespace
