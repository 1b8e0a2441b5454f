#include "app/gui/state/model_sentence.h"

#include <filesystem>

#include "app/gui/state/app_state.h"

namespace hs::gui {
namespace {

// A TinyStories-like sentence whose every word is one stories260K token (tok512.bin has
// " friend", " happy", " mom"; " girl", " loved", " park" split into pieces).
constexpr const char* kStoriesSentence =
    "Once upon a time, there was a little friend named Lily. She was very happy to play with her mom.";

// "stories260K" by its shipped name, its .bin file, or its folder (trailing slashes ignored).
bool is_stories260k(std::string path) {
  while (path.size() > 1 && (path.back() == '/' || path.back() == '\\')) path.pop_back();
  const std::filesystem::path p(path);
  return p.stem().string() == "stories260K" || p.filename().string() == "stories260K";
}

}  // namespace

std::string model_example_sentence(const std::string& model_path) {
  return is_stories260k(model_path) ? kStoriesSentence : default_app_state().request.sentence;
}

bool is_example_sentence(const std::string& sentence) {
  return sentence == kStoriesSentence || sentence == default_app_state().request.sentence;
}

std::string sentence_for_model(const std::string& sentence, const std::string& model_path) {
  return is_example_sentence(sentence) ? model_example_sentence(model_path) : sentence;
}

}  // namespace hs::gui
