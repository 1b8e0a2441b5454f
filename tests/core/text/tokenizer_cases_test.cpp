// Tokenizers against independent Python implementations of their algorithms: the folders and
// expected ids come from tests/core/text/make_tokenizer_cases.py (run by the fixture test
// text.tokenizer_cases into the build tree): SentencePiece tokenizer.model files (BPE and Unigram,
// byte fallback, precompiled rules, user-defined and unused pieces), Hugging Face Unigram
// (XLM-R style) and WordPiece tokenizer.json files, BERT vocab.txt folders, each Unicode
// normalizer, and Qwen's NFC. A mismatch names the case, the text and the first differing token.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text/tokenizer_folder.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;

const std::string kCasesDir = HEADSCOPE_TOKENIZER_CASES_DIR;

json load_cases() {
  std::ifstream in(kCasesDir + "/cases.json");
  if (!in) return json();
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

std::string show(const std::vector<int>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out + "]";
}

// The first position where two id lists differ, described for a failure message.
std::string first_difference(const std::vector<int>& got, const std::vector<int>& want, const SubwordTokenizer& tok) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  std::string at = "token " + std::to_string(i) + ": ";
  at += i < got.size() ? "headscope " + std::to_string(got[i]) + " '" + tok.label(got[i]) + "'" : "headscope ends";
  at += ", ";
  at += i < want.size() ? "reference " + std::to_string(want[i]) + " '" + tok.label(want[i]) + "'" : "reference ends";
  return at + "\n  headscope " + show(got) + "\n  reference " + show(want);
}

TEST(TokenizerCases, FileExists) {
  ASSERT_FALSE(load_cases().is_null()) << kCasesDir << "/cases.json is missing: the fixture test text.tokenizer_cases writes it";
}

TEST(TokenizerCases, EveryCaseMatchesItsReference) {
  const json cases = load_cases();
  ASSERT_TRUE(cases.contains("cases"));
  int texts = 0;
  for (const json& c : cases["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE("case " + name);
    std::unique_ptr<TokenizerPipeline> tok;
    try {
      tok = load_folder_tokenizer(c["folder"].get<std::string>());
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    for (const json& t : c["texts"]) {
      const std::string a = t["a"];
      const std::vector<int> want = t["ids"];
      Encoding e;
      try {
        e = t.contains("b") ? tok->encode_pair(a, std::string_view(t["b"].get<std::string>())) : tok->encode_pair(a);
      } catch (const Error& err) {
        ADD_FAILURE() << name << " on \"" << a << "\": " << err.what();
        continue;
      }
      ++texts;
      EXPECT_EQ(e.ids, want) << name << " on \"" << a << "\"" << (t.contains("b") ? " + \"" + t["b"].get<std::string>() + "\"" : "")
                             << "\n  " << first_difference(e.ids, want, *tok);
      if (t.contains("type_ids")) {
        EXPECT_EQ(e.type_ids, t["type_ids"].get<std::vector<int>>()) << name << " on \"" << a << "\": type ids";
      }
      if (!t.contains("b")) {
        EXPECT_EQ(tok->encode(a), e.ids) << name << ": encode and encode_pair agree";
      }
      ASSERT_EQ(e.labels.size(), e.ids.size());
      ASSERT_EQ(e.special.size(), e.ids.size());
      ASSERT_EQ(e.sequence_ids.size(), e.ids.size());
      for (const int id : e.ids) ASSERT_TRUE(id >= 0 && id < tok->vocab_size()) << name << ": id " << id;
    }
  }
  EXPECT_GT(texts, 100) << "the reference script wrote fewer texts than expected";
}

}  // namespace
}  // namespace hs
