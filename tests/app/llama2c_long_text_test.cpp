// llama2.c's encoder on long texts (found by control_fuzz_test): a sentence past the token
// limit with stories260K loaded kept the app's worker busy for about three minutes, because
// run.c's encoder rescans every pair after each merge (O(n^2) in the text's length). The encoder
// now merges from a heap: it must give exactly run.c's tokens (checked against a copy of run.c's
// loop), and a pasted book must be refused promptly with the model's limit in the message.
// stories260K's tokenizer comes from ${HEADSCOPE_MODELS_DIR}; the test skips when it is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/model/model_request.h"
#include "core/model/synthetic_model.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/util/errors.h"

namespace {

namespace fs = std::filesystem;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

std::vector<int> run_c_encode(const hs::Llama2cTokenizer& tok, std::string_view text) {
  std::unordered_map<std::string, int> ids;
  for (int id = 0; id < tok.vocab_size(); ++id) ids.emplace(tok.piece(id), id);
  const auto lookup = [&](const std::string& p) {
    const auto it = ids.find(p);
    return it == ids.end() ? -1 : it->second;
  };
  text = text.substr(0, text.find('\0'));
  std::vector<int> tokens{hs::Llama2cTokenizer::kBos};
  if (!text.empty()) tokens.push_back(lookup(" "));
  std::string buf;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) buf.clear();
    buf += text[i];
    if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 && buf.size() < 4) continue;
    const int id = lookup(buf);
    if (id >= 0) tokens.push_back(id);
    else
      for (const char b : buf) tokens.push_back(int(static_cast<unsigned char>(b)) + 3);
    buf.clear();
  }
  for (;;) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_idx = 0;
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
      const int id = lookup(tok.piece(tokens[i]) + tok.piece(tokens[i + 1]));
      if (id >= 0 && tok.score(id) > best_score) best_score = tok.score(id), best_id = id, best_idx = i;
    }
    if (best_id < 0) break;
    tokens[best_idx] = best_id;
    tokens.erase(tokens.begin() + std::ptrdiff_t(best_idx) + 1);
  }
  return tokens;
}

TEST(Llama2cLongText, HeapMergesGiveRunCsTokensAndABookIsRefusedPromptly) {
  if (!fs::exists(kStories / "tok512.bin")) GTEST_SKIP() << "stories260K not found in " << kStories;
  const hs::Llama2cTokenizer tok((kStories / "tok512.bin").string(), 512);
  std::mt19937 rng(11);
  const std::vector<std::string> parts = {"Once", " upon", " a", " time", ",", " Lily", " saw", " the", "é", "🙂", " ",
                                          "\n", "aaa", "th", "e", "'s", "\"", "ab", "ing", "\xC3", "\x80"};
  for (int n = 0; n < 400; ++n) {
    std::string text;
    for (int i = int(rng() % 60); i > 0; --i) text += parts[rng() % parts.size()];
    ASSERT_EQ(tok.encode(text), run_c_encode(tok, text)) << "text: \"" << text << "\"";
  }
  std::string book;
  for (int i = 0; i < hs::kMaxTokens + 1; ++i) book += "w ";
  EXPECT_GT(tok.encode(book).size(), size_t(hs::kMaxTokens));
  hs::ModelRequest r;
  r.model_path = (kStories / "stories260K.bin").string();
  r.tokenizer = (kStories / "tok512.bin").string();
  r.sentence = book;
  try {
    hs::prepare(r)->run({});
    ADD_FAILURE() << "a sentence past the model's positions must be refused";
  } catch (const hs::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("positions"), std::string::npos) << e.what();
  }
}

}  // namespace
