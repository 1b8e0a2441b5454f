// The synthetic model's tokenizer: words, punctuation, apostrophes, Unicode, invalid UTF-8.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/util/utf8.h"
#include "core/text/word_tokenizer.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using Tokens = std::vector<std::string>;

Tokens words(const std::string& s) { return token_texts(tokenize_words(s)); }

TEST(WordTokenizer, WordsAndPunctuation) {
  EXPECT_EQ(words("The cat sat on the mat."), (Tokens{"The", "cat", "sat", "on", "the", "mat", "."}));
  EXPECT_EQ(words("  hello,   world!!  "), (Tokens{"hello", ",", "world", "!", "!"}));
  EXPECT_EQ(words("a-b (c) \"d\""), (Tokens{"a", "-", "b", "(", "c", ")", "\"", "d", "\""}));
  EXPECT_EQ(words("x1 42 3.14"), (Tokens{"x1", "42", "3", ".", "14"}));
  EXPECT_EQ(words("tab\tnew\nline"), (Tokens{"tab", "new", "line"}));
}

TEST(WordTokenizer, Apostrophes) {
  EXPECT_EQ(words("don't Priya's rock'n'roll"), (Tokens{"don't", "Priya's", "rock'n'roll"}));
  EXPECT_EQ(words("don\xE2\x80\x99t"), (Tokens{"don\xE2\x80\x99t"}));  // U+2019
  EXPECT_EQ(words("'quoted' dogs'"), (Tokens{"'", "quoted", "'", "dogs", "'"}));
}

TEST(WordTokenizer, NonAsciiLetters) {
  EXPECT_EQ(words("caf\xC3\xA9 na\xC3\xAFve"), (Tokens{"caf\xC3\xA9", "na\xC3\xAFve"}));
  EXPECT_EQ(words("\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, \xD0\xBC\xD0\xB8\xD1\x80"),
            (Tokens{"\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82", ",", "\xD0\xBC\xD0\xB8\xD1\x80"}));
  // A decomposed accent (e + U+0301) stays inside its word.
  EXPECT_EQ(words("cafe\xCC\x81 ok"), (Tokens{"cafe\xCC\x81", "ok"}));
  // Han characters are letters: one run without spaces is one token.
  EXPECT_EQ(words("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"), (Tokens{"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"}));
  // A non-breaking space separates words like a space.
  EXPECT_EQ(words("a\xC2\xA0" "b"), (Tokens{"a", "b"}));
}

TEST(WordTokenizer, EmojiAreOneTokenPerGraphemeCluster) {
  EXPECT_EQ(words("hi \xF0\x9F\x98\x80!"), (Tokens{"hi", "\xF0\x9F\x98\x80", "!"}));
  // Thumbs up + skin tone modifier.
  EXPECT_EQ(words("\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"), (Tokens{"\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"}));
  // Family: man ZWJ woman ZWJ girl.
  const std::string family = "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7";
  EXPECT_EQ(words(family + " ok"), (Tokens{family, "ok"}));
  // Flag: two regional indicators.
  EXPECT_EQ(words("\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7"), (Tokens{"\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7"}));
  // Two emoji side by side are two tokens.
  EXPECT_EQ(words("\xF0\x9F\x98\x80\xF0\x9F\x98\x81"), (Tokens{"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x81"}));
}

TEST(WordTokenizer, InvalidUtf8IsRepaired) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(words("ab\xFF" "cd"), (Tokens{"ab", fffd, "cd"}));
  EXPECT_EQ(words("caf\xC3 ok"), (Tokens{"caf", fffd, "ok"}));
  EXPECT_EQ(words("\xC0\xAF"), (Tokens{fffd, fffd}));
  for (const std::string& t : words("\x80\x81 \xED\xA0\x80 x\xF4\x90"))
    EXPECT_TRUE(utf8_is_valid(t)) << ::testing::PrintToString(t);
  // Offsets index the repaired sentence.
  const std::vector<WordToken> toks = tokenize_words("a \xFF b");
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[1].byte_begin, 2u);
  EXPECT_EQ(toks[1].byte_end, 5u);
  EXPECT_EQ(toks[2].byte_begin, 6u);
}

TEST(WordTokenizer, EmptyIsAnInputError) {
  for (const std::string& s : {std::string(""), std::string("   "), std::string("\t\n \r"), std::string("\xC2\xA0\xE2\x80\x83")}) {
    try {
      tokenize_words(s);
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(s);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
  }
  // NUL bytes are not spaces: they are kept as tokens rather than silently ending the text.
  EXPECT_EQ(words(std::string("a\0b", 3)).size(), 3u);
}

TEST(WordTokenizer, LongInputIsLinear) {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "word, ";
  EXPECT_EQ(words(s).size(), 40000u);
}

}  // namespace
}  // namespace hs
