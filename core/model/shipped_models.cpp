#include "core/model/shipped_models.h"

#include "core/util/errors.h"
#include "core/util/file_read.h"

#ifndef HEADSCOPE_ASSETS_DIR
#define HEADSCOPE_ASSETS_DIR ""
#endif

namespace hs {
namespace {

constexpr const char* kTeaching = "teaching";
constexpr const char* kStories = "stories260K";

// set_shipped_models_dir's folder ("" none).
std::string& extra_dir() {
  static std::string dir;
  return dir;
}

std::vector<std::string>& program_model_dirs() {
  static std::vector<std::string> dirs = {*HEADSCOPE_ASSETS_DIR ? std::string(HEADSCOPE_ASSETS_DIR) + "/models" : ""};
  return dirs;
}

}  // namespace

void set_shipped_models_dir(const std::string& dir) { extra_dir() = dir; }

const std::vector<ShippedModel>& shipped_models() {
  static const std::vector<ShippedModel> models = {
      {kTeaching, "hand-wired: 2 layers x 4 heads, each head built for one job (previous, first, who, what, induction, ...)"},
      {kStories, "trained: Karpathy's 260K-parameter TinyStories model, 5 layers x 8 heads (MIT, shipped in assets/models)"},
  };
  return models;
}

bool is_teaching_model(const std::string& path) { return path == kTeaching && !path_exists(path); }

std::vector<std::string> shipped_model_dirs() {
  std::vector<std::string> dirs;
  if (!extra_dir().empty()) dirs.push_back(extra_dir());
  for (const std::string& dir : program_model_dirs())
    if (!dir.empty()) dirs.push_back(dir);
  return dirs;
}

void set_program_model_dirs(std::vector<std::string> dirs) { program_model_dirs() = std::move(dirs); }

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
