// The models that come with headscope (issue 19): stories260K in assets/models with its licence
// and provenance, byte for byte the shared copy, opened by name; the teaching model by name; a
// file of the same name wins; a shipped name whose files are gone is an error naming the folders.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/runtime_config.h"
#include "core/model/model_request.h"
#include "core/model/shipped_models.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const fs::path kAssets = fs::path(HEADSCOPE_SOURCE_DIR) / "assets" / "models" / "stories260K";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ShippedModels, Stories260KIsInTheAssetsWithItsLicenceAndProvenance) {
  EXPECT_EQ(fs::file_size(kAssets / "stories260K.bin"), 1056540u);
  EXPECT_EQ(fs::file_size(kAssets / "tok512.bin"), 6227u);
  EXPECT_NE(read_text(kAssets / "LICENSE").find("MIT License"), std::string::npos);
  const std::string provenance = read_text(kAssets / "PROVENANCE.md");
  EXPECT_NE(provenance.find("b0a507e7ad0f626624f17112325e66691f9076d622e1d3274d103d00299f2696"), std::string::npos);
  EXPECT_NE(provenance.find("karpathy/tinyllamas"), std::string::npos);
  for (const char* name : {"stories260K/stories260K.bin", "stories260K/tok512.bin"}) {
    const std::string shared = test::model_file(name);
    if (shared.empty()) continue;  // the shared copy is optional; the sizes above still hold
    EXPECT_EQ(test::read_bytes(shared), test::read_bytes((kAssets.parent_path() / name).string())) << name;
  }
}

TEST(ShippedModels, OpenedByName) {
  EXPECT_EQ(resolve_shipped_model("stories260K"), (kAssets / "stories260K.bin").string());
  EXPECT_EQ(resolve_shipped_model("/some/model.bin"), "/some/model.bin") << "other paths pass through";
  ModelRequest r;
  r.model_path = "stories260K";
  r.sentence = "Once upon a time, there was a little girl named Lily.";
  const AttentionRun run = prepare(r)->run({});
  EXPECT_EQ(run.info.name, "stories260K");
  EXPECT_EQ(run.n_layers(), 5);
  EXPECT_EQ(run.n_heads(), 8);
  EXPECT_EQ(run.tokens[0], "<s>") << "its tokenizer was found beside it";
  r.model_path = "teaching";
  const AttentionRun t = prepare(r)->run({});
  EXPECT_EQ(t.info.kind, "teaching");
  EXPECT_EQ(t.n_layers(), 2);
  EXPECT_EQ(t.n_heads(), 4);
  ASSERT_EQ(shipped_models().size(), 2u);
}

// A file called "teaching" in the current folder is what the user named: opened as a checkpoint.
TEST(ShippedModels, AFileOfTheSameNameWins) {
  const std::string dir = test::scratch_dir("shipped_same_name");
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  test::write_text("teaching", "not a checkpoint");
  ModelRequest r;
  r.model_path = "teaching";
  r.sentence = "cat";
  EXPECT_FALSE(is_teaching_model("teaching"));
  try {
    prepare(r);
    ADD_FAILURE() << "a file named teaching was not read as a checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("teaching"), std::string::npos) << e.what();
  }
  fs::current_path(before);
}

TEST(ShippedModels, MissingFilesAreAnErrorNamingTheFolders) {
  const std::string empty = test::scratch_dir("shipped_empty");
  RuntimeConfig config = default_runtime_config();
  config.model_dirs.insert(config.model_dirs.begin(), empty);  // as the programs do with HEADSCOPE_SHIPPED_MODELS
  set_runtime_config(config);
  EXPECT_EQ(shipped_model_dirs().front(), empty);
  EXPECT_EQ(resolve_shipped_model("stories260K"), (kAssets / "stories260K.bin").string()) << "the next folder has it";
  set_runtime_config(default_runtime_config());
  for (const std::vector<std::string>& dirs : {std::vector<std::string>{empty}, std::vector<std::string>{}}) {
    try {
      resolve_shipped_model("stories260K", dirs);
      ADD_FAILURE() << "found in no folder";
    } catch (const IoError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("stories260K"), std::string::npos) << m;
      EXPECT_NE(m.find("HEADSCOPE_SHIPPED_MODELS"), std::string::npos) << m;
      if (!dirs.empty()) {
        EXPECT_NE(m.find(empty), std::string::npos) << m;
      }
    }
  }
}

}  // namespace
}  // namespace hs
