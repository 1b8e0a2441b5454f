// UTF-8 decoding and repair: one U+FFFD per maximal invalid subpart (Unicode 15, 3.9).
#include <gtest/gtest.h>

#include <string>

#include "core/util/utf8.h"

namespace hs {
namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

std::string rep(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFFFD;
  return s;
}

TEST(Utf8, DecodesValidSequences) {
  size_t len = 0;
  EXPECT_EQ(utf8_decode("A", 0, len), 0x41);
  EXPECT_EQ(len, 1u);
  EXPECT_EQ(utf8_decode("\xC3\xA9", 0, len), 0xE9);
  EXPECT_EQ(len, 2u);
  EXPECT_EQ(utf8_decode("\xE2\x82\xAC", 0, len), 0x20AC);
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(utf8_decode("\xF0\x9F\x98\x80", 0, len), 0x1F600);
  EXPECT_EQ(len, 4u);
  EXPECT_EQ(utf8_decode("\xF4\x8F\xBF\xBF", 0, len), 0x10FFFF);
  EXPECT_EQ(utf8_decode(std::string_view("\0", 1), 0, len), 0);
  for (const char* ok : {"", "plain", "caf\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"})
    EXPECT_TRUE(utf8_is_valid(ok)) << ok;
}

TEST(Utf8, RepairEdgeCases) {
  struct Case { std::string in, out; size_t replaced; };
  const Case cases[] = {
      {"abc", "abc", 0},
      {"", "", 0},
      {"\x80", rep(1), 1},                                  // lone continuation byte
      {"a\x80\x80z", "a" + rep(2) + "z", 2},                // two stray continuations: two U+FFFD
      {"\xC0\xAF", rep(2), 2},                              // overlong '/': C0 is never valid
      {"\xE0\x80\xAF", rep(3), 3},                          // overlong 3-byte: E0 needs A0..BF next
      {"\xED\xA0\x80", rep(3), 3},                          // UTF-16 surrogate D800
      {"\xF4\x90\x80\x80", rep(4), 4},                      // above U+10FFFF
      {"\xF5\x80", rep(2), 2},                              // F5.. never valid
      {"\xFF", rep(1), 1},
      {"\xE2\x82", rep(1), 1},                              // truncated at the end: one maximal subpart
      {"\xE2\x82z", rep(1) + "z", 1},                       // truncated before ASCII
      {"\xF0\x9F\x98", rep(1), 1},                          // truncated 4-byte
      {"\xF0\x9F\x98\xF0\x9F\x98\x80", rep(1) + "\xF0\x9F\x98\x80", 1},
      {"caf\xC3", "caf" + rep(1), 1},
      {"\xC3\xA9\xC3", "\xC3\xA9" + rep(1), 1},
  };
  for (const Case& c : cases) {
    size_t replaced = 99;
    const std::string got = utf8_repair(c.in, &replaced);
    EXPECT_EQ(got, c.out) << "input bytes " << ::testing::PrintToString(c.in);
    EXPECT_EQ(replaced, c.replaced) << "input bytes " << ::testing::PrintToString(c.in);
    EXPECT_TRUE(utf8_is_valid(got));
    EXPECT_EQ(utf8_is_valid(c.in), c.replaced == 0);
    EXPECT_EQ(utf8_repair(got), got) << "repair is idempotent";
  }
  // Embedded NUL is valid UTF-8 and kept.
  const std::string nul("a\0b", 3);
  EXPECT_EQ(utf8_repair(nul), nul);
}

TEST(Utf8, RepairNeverReadsPastTheEnd) {
  // Every prefix of a multi-byte sequence, and every single byte, repairs without crashing.
  const std::string s = "\xF0\x9F\x98\x80\xE2\x82\xAC\xC3\xA9";
  for (size_t n = 0; n <= s.size(); ++n) EXPECT_TRUE(utf8_is_valid(utf8_repair(std::string_view(s).substr(0, n))));
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    EXPECT_TRUE(utf8_is_valid(utf8_repair(one))) << b;
    EXPECT_TRUE(utf8_is_valid(utf8_repair(one + one + one + one))) << b;
  }
}

TEST(Utf8, LengthPrefixAndAppend) {
  EXPECT_EQ(utf8_length("caf\xC3\xA9"), 4u);
  EXPECT_EQ(utf8_length("\xF0\x9F\x98\x80!"), 2u);
  EXPECT_EQ(utf8_prefix("caf\xC3\xA9s", 4), "caf\xC3\xA9");
  EXPECT_EQ(utf8_prefix("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 1), "\xF0\x9F\x98\x80");
  EXPECT_EQ(utf8_prefix("ab", 10), "ab");
  for (uint32_t cp : {0x41u, 0xE9u, 0x7FFu, 0x800u, 0x20ACu, 0xFFFDu, 0x10000u, 0x1F600u, 0x10FFFFu}) {
    std::string s;
    utf8_append(s, cp);
    size_t len = 0;
    EXPECT_EQ(utf8_decode(s, 0, len), int32_t(cp));
    EXPECT_EQ(len, s.size());
  }
}

}  // namespace
}  // namespace hs
