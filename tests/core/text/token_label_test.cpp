// Token labels on axes, one rule for the screen and the figures (issue 36, finding 7): a thin dot
// or nothing for a space, never SentencePiece's "▁" bar; byte-fallback pieces shown as the
// character they spell, on the token that completes it; characters no font draws named "U+1F600".
#include <gtest/gtest.h>

#include "core/text/token_label.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using Tokens = std::vector<std::string>;

TEST(TokenLabel, SpaceIsAThinDotOrNothingNeverTheBar) {
  const Tokens t = {"<s>", "\xE2\x96\x81Once", "\xE2\x96\x81", "time", " up"};
  EXPECT_EQ(token_label(t, 1), "\xC2\xB7Once");
  EXPECT_EQ(token_label(t, 4), "\xC2\xB7up") << "a plain space too";
  TokenLabelOptions none;
  none.space = SpaceMark::none;
  EXPECT_EQ(token_label(t, 1, none), "Once");
  EXPECT_EQ(token_label(t, 2, none), "\xE2\x90\xA3") << "a token of spaces only is an open box, not a dot like \".\"";
  EXPECT_EQ(token_label(t, 2), "\xE2\x90\xA3");
  EXPECT_NE(token_label({"."}, 0), token_label({"\xE2\x96\x81"}, 0));
  EXPECT_EQ(token_label(t, 3, none), "time");
  for (const std::string& s : token_labels(t)) EXPECT_EQ(s.find("\xE2\x96\x81"), std::string::npos) << s;
}

TEST(TokenLabel, SpaceMarkNamesParseAndBadNamesSayTheChoices) {
  EXPECT_EQ(parse_space_mark("dot"), SpaceMark::dot);
  EXPECT_EQ(parse_space_mark("none"), SpaceMark::none);
  EXPECT_STREQ(space_mark_name(SpaceMark::none), "none");
  try {
    parse_space_mark("bar");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dot, none"), std::string::npos) << e.what();
  }
}

TEST(TokenLabel, ByteFallbackShowsTheCharacterOnTheTokenThatCompletesIt) {
  // "我" = E6 88 91, one byte piece per token (SentencePiece's byte fallback).
  const Tokens t = {"\xE2\x96\x81" "I", "<0xE6>", "<0x88>", "<0x91>", "\xE2\x96\x81" "am"};
  EXPECT_EQ(token_label(t, 1), "\xE2\x80\xA6") << "starts the character: a continuation mark";
  EXPECT_EQ(token_label(t, 2), "\xE2\x80\xA6");
  EXPECT_EQ(token_label(t, 3), "\xE6\x88\x91");
  EXPECT_EQ(token_label(t, 4), "\xC2\xB7" "am");
  const std::string note = token_bytes_note(t, 2);
  EXPECT_NE(note.find("<0xE6><0x88><0x91>"), std::string::npos) << note;
  EXPECT_NE(note.find("tokens 1-3"), std::string::npos) << note;
  EXPECT_NE(note.find("\xE6\x88\x91"), std::string::npos) << note;
  EXPECT_EQ(token_bytes_note(t, 0), "") << "no bytes, no note";
  // Within one token, and text around the bytes (GPT-2-style pieces split inside a character).
  EXPECT_EQ(token_label({"<0xE6><0x88><0x91>"}, 0), "\xE6\x88\x91");
  const Tokens mixed = {"ab<0xC3>", "<0xA4>cd"};
  EXPECT_EQ(token_label(mixed, 0), "ab\xE2\x80\xA6");
  EXPECT_EQ(token_label(mixed, 1), "\xC3\xA4" "cd");
  // Bytes that spell nothing stay bytes; a newline byte is the newline mark.
  EXPECT_EQ(token_label({"<0xE6>", "x"}, 0), "<0xE6>");
  EXPECT_EQ(token_label({"<0x0A>"}, 0), "\xE2\x86\xB5");
}

TEST(TokenLabel, EmojiAreNamedAndTwoDifferentOnesNeverLookTheSame) {
  // U+1F600 and U+1F601, as whole tokens and as byte pieces (F0 9F 98 80 / 81).
  const Tokens whole = {"\xF0\x9F\x98\x80", "\xF0\x9F\x98\x81"};
  EXPECT_EQ(token_label(whole, 0), "U+1F600");
  EXPECT_EQ(token_label(whole, 1), "U+1F601");
  const Tokens bytes = {"<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "<0xF0>", "<0x9F>", "<0x98>", "<0x81>"};
  EXPECT_EQ(token_label(bytes, 3), "U+1F600");
  EXPECT_EQ(token_label(bytes, 7), "U+1F601");
  EXPECT_EQ(token_label(bytes, 4), "\xE2\x80\xA6");
  EXPECT_EQ(token_label({"\xF0\x9F\x98\x80\xF0\x9F\x98\x81"}, 0), "U+1F600 U+1F601");
  // A character the fonts lack is named too; one they have is itself.
  TokenLabelOptions o;
  o.drawable = [](uint32_t cp) { return cp != 0x2B50; };
  EXPECT_EQ(token_label({"\xE2\xAD\x90"}, 0, o), "U+2B50");
  EXPECT_EQ(token_label({"\xE2\x98\x80"}, 0, o), "\xE2\x98\x80");
  // Invisible characters (zero-width joiner, variation selector) are named, not lost.
  EXPECT_EQ(token_label({"a\xE2\x80\x8D" "b"}, 0), "aU+200Db");
}

TEST(TokenLabel, ControlsAndEmptyTokensAreVisible) {
  EXPECT_EQ(token_label({""}, 0), "\xE2\x88\x85");
  EXPECT_EQ(token_label({"a\nb\t"}, 0), "a\xE2\x86\xB5" "b\xE2\x87\xA5");
  EXPECT_EQ(token_label({"\x1B"}, 0), "\xE2\x90\x9B");
  EXPECT_EQ(token_label({"x"}, 5), "") << "out of range";
}

}  // namespace
}  // namespace hs
