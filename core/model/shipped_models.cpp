#include "core/model/shipped_models.h"

#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/runtime_config.h"

namespace hs {
namespace {

constexpr const char* kTeaching = "teaching";
constexpr const char* kStories = "stories260K";

}  // namespace

const std::vector<ShippedModel>& shipped_models() {
  static const std::vector<ShippedModel> models = {
      {kTeaching, "hand-wired: 2 layers x 4 heads, each head built for one job (previous, first, who, what, induction, ...)"},
      {kStories, "trained: Karpathy's 260K-parameter TinyStories model, 5 layers x 8 heads (MIT, shipped in assets/models)"},
  };
  return models;
}

bool is_teaching_model(const std::string& path) { return path == kTeaching && !path_exists(path); }

std::vector<std::string> shipped_model_dirs() { return runtime_config().model_dirs; }

std::string resolve_shipped_model(const std::string& path) { return resolve_shipped_model(path, shipped_model_dirs()); }

std::string resolve_shipped_model(const std::string& path, const std::vector<std::string>& dirs) {
  if (path != kStories || path_exists(path)) return path;
  std::string searched;
  for (const std::string& dir : dirs) {
    const std::string file = dir + "/" + kStories + "/" + kStories + ".bin";
    if (is_regular_file(file)) return file;
    searched += (searched.empty() ? "" : ", ") + dir;
  }
  throw IoError(std::string("--model ") + kStories + ": the shipped model's files (" + kStories + "/" + kStories +
                ".bin and tok512.bin) are not in " + (searched.empty() ? "any folder (none is configured)" : searched) +
                "; set HEADSCOPE_SHIPPED_MODELS to the folder that holds " + kStories + "/");
}

}  // namespace hs
