#pragma once
// The sentence shown with a model. The app opens on the synthetic layer's sentence ("the keys
// that Priya left on the table were not hers"); stories260K, trained on TinyStories with a
// 512-token vocabulary, splits it into 28 fragments ("Pri", "y", "a", ...), so opening it shows a
// sentence in its own words instead. The user's own text is never replaced: only one of these
// example sentences follows the model.
#include <string>

namespace hs::gui {

// stories260K's example (it tokenizes into whole words); the app's default sentence for others.
std::string model_example_sentence(const std::string& model_path);

// True for the example sentences above (the app's default and stories260K's).
bool is_example_sentence(const std::string& sentence);

// The sentence after switching to `model_path` ("" = the synthetic layer): that model's example
// when `sentence` is one of the examples, else `sentence` unchanged (also an empty one: a
// checkpoint may generate from nothing).
std::string sentence_for_model(const std::string& sentence, const std::string& model_path);

}  // namespace hs::gui
