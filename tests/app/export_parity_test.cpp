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
      const std::regex surface_id("surface[0-9]+");
      a = std::regex_replace(a, surface_id, "surface#");
      b = std::regex_replace(b, surface_id, "surface#");
    }
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "the app's " << c.file << " (" << a.size() << " bytes) differs from the CLI's (" << b.size()
                        << " bytes) for: " << cli;
  }
}

}  // namespace
