// What you export is what you see: the app's export of a log-scaled, first-key-ignored single
// head equals the window's colours cell by cell (issue 13). The window is the real app under
// xvfb-run; the export goes through the app's own "Export..." path (and equals the CLI's file).
#include <gtest/gtest.h>
#include <stb_image.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "app/gui/work/run_commands.h"
#include "app/gui/actions/clipboard_image.h"
#include "app/gui/actions/export_action.h"
#include "app/gui/state/app_state.h"
#include "app/gui/work/compute.h"
#include "core/analysis/run_analysis.h"
#include "core/export/export.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;
using hs::gltest::quote;
using hs::gltest::Shot;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  explicit Image(const std::string& path) {
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &width, &height, &channels, 3);
    if (data) rgb.assign(data, data + size_t(width) * size_t(height) * 3);
    stbi_image_free(data);
  }
  const unsigned char* at(int x, int y) const { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

// The colormap entry a pixel shows (-1: none of the table's colours).
int table_entry(hs::Colormap cm, const unsigned char* p) {
  const auto& table = hs::colormap_table(cm);
  for (int k = 0; k < 256; ++k)
    if (p[0] == table[size_t(k)].r && p[1] == table[size_t(k)].g && p[2] == table[size_t(k)].b) return k;
  return -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ExportScreen, LogScaledFirstKeyIgnoredHeadExportsAsShown) {
  const std::string sentence = "the keys that Priya left on the table were not hers";
  const Shot shot = hs::gltest::take_screenshot(
      "export_screen", {"--sentence", sentence, "--d-model", "8", "--heads", "4", "--causal", "--view", "head", "--head",
                        "2", "--color-scale", "log", "--ignore-first-key", "--colormap", "magma"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;

  // The same state in-process, exported by the app's export action.
  hs::gui::AppState state = hs::gui::default_app_state();
  state.request.sentence = sentence;
  state.request.attention.causal = true;
  state.view = hs::View::head;
  state.head = 2;
  state.scale.mode = hs::ScaleMode::log;
  state.scale.ignore_first_key = true;
  state.scale.colormap = hs::Colormap::magma;
  const auto derived = hs::gui::compute_derived(state.request, 1);
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  fs::remove(dir / "export_screen_app.png");  // an export never replaces a file without asking
  state.exporter.folder = dir.string();
  state.exporter.file_name = "export_screen_app.png";
  state.commands.push(hs::gui::SaveExport{});
  hs::gui::StatusInfo status;
  hs::gui::run_commands(state, status, {derived.get()});
  ASSERT_FALSE(status.export_failed) << status.last_export;

  // headscope-cli with the same settings writes the same file.
  const std::string cli = std::string(HEADSCOPE_BINARY_DIR) + "/headscope-cli export --sentence " + quote(sentence) +
                          " --d-model 8 --heads 4 --causal --head 2 --color-scale log --ignore-first-key "
                          "--colormap magma --out " + quote((dir / "export_screen_cli.png").string());
  ASSERT_EQ(std::system(cli.c_str()), 0) << cli;
  EXPECT_TRUE(slurp(dir / "export_screen_app.png") == slurp(dir / "export_screen_cli.png"))
      << "the app's export differs from headscope-cli's";

  const Image png((dir / "export_screen_app.png").string());
  ASSERT_GT(png.width, 0);
  const hs::Figure fig = hs::heatmap_figure(*derived->analysis, 0, 2, state.scale);
  const hs::FigurePlacement place = hs::figure_placement(fig, hs::FigureFormat::png, {});
  ASSERT_EQ(fig.cells.size(), 1u);
  const hs::CellBlock& cells = fig.cells[0];

  const nlohmann::json* on_screen = nullptr;
  for (const auto& h : shot.layout["heatmaps"])
    if (std::string(h["key"]) == "head view") on_screen = &h;
  ASSERT_NE(on_screen, nullptr) << "no single-head heatmap on screen";
  const auto& h = *on_screen;
  ASSERT_EQ(std::string(h["scale"]), "log");
  ASSERT_EQ(bool(h["skip_first_column"]), true);
  const int rows = h["rows"], cols = h["cols"];
  ASSERT_EQ(rows, cells.rows);
  ASSERT_EQ(cols, cells.cols);
  const float x0 = h["x0"], y0 = h["y0"], x1 = h["x1"], y1 = h["y1"];

  const hs::Map& a = derived->run().attention[0][2];  // [T, T]
  const float linear_max = a.maxCoeff();
  int exact = 0, adjacent = 0, wrong = 0, unlike_linear = 0, masked = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const int sx = int(x0 + (j + 0.5f) * (x1 - x0) / cols), sy = int(y0 + (i + 0.5f) * (y1 - y0) / rows);
      const int ex = int(place.ox + place.k * (cells.x + (j + 0.5) * cells.width / cols));
      const int ey = int(place.oy + place.k * (cells.y + (i + 0.5) * cells.height / rows));
      ASSERT_TRUE(sx >= 0 && sx < shot.width && sy >= 0 && sy < shot.height);
      ASSERT_TRUE(ex >= 0 && ex < png.width && ey >= 0 && ey < png.height);
      const int screen = table_entry(hs::Colormap::magma, shot.at(sx, sy));
      const int file = table_entry(hs::Colormap::magma, png.at(ex, ey));
      // GPU and CPU may round t * 255 + 0.5 differently right at a .5 boundary: the neighbour.
      // Masked cells (causal: key after query) show the masked colour on screen and in the file.
      const hs::Rgb8 mc = hs::masked_colour(hs::Colormap::magma);
      const auto is_masked = [&](const unsigned char* p) { return p[0] == mc.r && p[1] == mc.g && p[2] == mc.b; };
      if (j > i) {
        if (is_masked(shot.at(sx, sy)) && is_masked(png.at(ex, ey))) ++masked;
        else if (++wrong <= 5) ADD_FAILURE() << "cell [" << i << ", " << j << "] is masked: screen and file show the masked colour";
        continue;
      }
      if (screen >= 0 && screen == file) ++exact;
      else if (screen >= 0 && file >= 0 && std::abs(screen - file) == 1) ++adjacent;
      else if (++wrong <= 5)
        ADD_FAILURE() << "cell [" << i << ", " << j << "] weight " << a(i, j) << ": screen entry " << screen
                      << ", exported entry " << file;
      const int linear = int(std::floor(std::min(a(i, j) / linear_max, 1.0f) * 255.0f + 0.5f));
      if (file >= 0 && std::abs(file - linear) > 2) ++unlike_linear;
    }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(masked, rows * (cols - 1) / 2) << "every cell above the diagonal is masked";
  EXPECT_LE(adjacent, rows * cols / 50) << "more than 2% of cells one table entry apart";
  EXPECT_GT(unlike_linear, rows * cols / 5) << "the export looks linear: the log scale was not applied";
}


// Copy the view as an image (issue 20): the PNG goes to the X11 clipboard through xclip, off the
// UI thread, and `xclip -o -selection clipboard -t image/png` gives back the exported PNG byte for
// byte. The copy needs an X server: this test runs itself again under xvfb-run (the child part).
TEST(ClipboardImage, CopiedPngReadsBackFromTheClipboard) {
  if (std::system("command -v xclip >/dev/null 2>&1") != 0) GTEST_SKIP() << "xclip is not installed (apt install xclip)";
  if (!std::getenv("HEADSCOPE_CLIPBOARD_CHILD")) {
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::string cmd = "HEADSCOPE_CLIPBOARD_CHILD=1 xvfb-run -a " + quote(self) +
                            " --gtest_filter=ClipboardImage.CopiedPngReadsBackFromTheClipboard > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return;
  }
  hs::ModelRequest r;
  r.sentence = "the cat sat on the mat";
  r.attention.d_model = 8;
  r.attention.n_heads = 2;
  const auto analysis = hs::analyse(r);
  hs::ExportSpec spec;
  spec.path = "clipboard.png";
  const std::string png = hs::export_bytes(*analysis, nullptr, spec);
  ASSERT_GT(png.size(), 1000u);
  const auto job = hs::gui::start_png_copy(png);  // returns at once; the hand-over runs on its own thread
  ASSERT_TRUE(job);
  while (!job->done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(job->ok) << job->message;
  std::string message;
  ASSERT_NO_THROW(message = hs::gui::copy_png_to_clipboard(png)) << "a second copy replaces the first";
  EXPECT_NE(message.find("copied the view as a"), std::string::npos) << message;
  FILE* in = popen("xclip -o -selection clipboard -t image/png", "r");
  ASSERT_NE(in, nullptr);
  std::string back;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) back.append(buf, n);
  EXPECT_EQ(pclose(in), 0);
  EXPECT_EQ(back.size(), png.size());
  EXPECT_TRUE(back == png) << "the clipboard holds the exported PNG";

  // The app's "Copy image": the request returns at once ("copying..."), a later frame reports.
  hs::gui::AppState state = hs::gui::default_app_state();
  const auto derived = hs::gui::compute_derived(state.request, 1);
  ASSERT_TRUE(derived);
  state.commands.push(hs::gui::CopyExportImage{});
  hs::gui::StatusInfo status;
  hs::gui::run_commands(state, status, {derived.get()});
  EXPECT_FALSE(status.export_failed) << status.last_export;
  for (int i = 0; i < 2000 && status.clipboard_copy; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    hs::gui::run_commands(state, status, {derived.get()});  // as each frame does
  }
  ASSERT_FALSE(status.clipboard_copy) << "the copy finished";
  EXPECT_FALSE(status.export_failed) << status.last_export;
  EXPECT_NE(status.last_export.find("copied the view as a"), std::string::npos) << status.last_export;
  state.exporter.what = std::nullopt;
  const std::string view_png = hs::export_bytes(*derived->analysis, derived->sweep.get(),
                                                hs::gui::export_spec_for(state, *derived, "view.png"));
  in = popen("xclip -o -selection clipboard -t image/png", "r");
  ASSERT_NE(in, nullptr);
  back.clear();
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) back.append(buf, n);
  EXPECT_EQ(pclose(in), 0);
  EXPECT_TRUE(back == view_png) << "the clipboard holds the view's PNG (" << back.size() << " vs " << view_png.size()
                                << " bytes)";
}

}  // namespace
