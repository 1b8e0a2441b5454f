#pragma once
// Models that come with headscope, opened by name wherever a checkpoint path goes (`--model
// NAME`, a session's or lesson's "checkpoint": "NAME", the app's model panel):
//   teaching     the hand-wired teaching model, built in code (core/model/teaching_model.h)
//   stories260K  Karpathy's 260K-parameter TinyStories model (MIT), shipped as
//                assets/models/stories260K/ with its tokenizer, licence and provenance
// A file or folder of that name in the current folder is opened as a checkpoint instead (it is
// what the user named; write a path such as ./teaching for it to be read as a file anyway).
//
// stories260K is looked for in the runtime configuration's model_dirs (core/util/runtime_config.h):
// the programs put $HEADSCOPE_SHIPPED_MODELS (a folder holding stories260K/) first, then their own
// folders (app/common/environment.h); by default (the tests) the source tree's assets/models this
// build was made from.
#include <string>
#include <vector>

namespace hs {

struct ShippedModel {
  std::string name;         // what --model takes
  std::string description;  // one line for menus and --help
};

// teaching, stories260K.
const std::vector<ShippedModel>& shipped_models();

// True when `path` names the built-in teaching model (no file or folder of that name exists).
bool is_teaching_model(const std::string& path);

// The checkpoint file a shipped model's name stands for, or `path` unchanged when it is not a
// shipped name (or a file or folder of that name exists). Throws IoError naming the folders
// searched when the name is shipped but its files are not found.
std::string resolve_shipped_model(const std::string& path);
// The same, searching `dirs` (each a folder holding stories260K/).
std::string resolve_shipped_model(const std::string& path, const std::vector<std::string>& dirs);

// The folders searched for shipped checkpoints, in order (runtime_config().model_dirs).
std::vector<std::string> shipped_model_dirs();

}  // namespace hs
