// byte_piece_value: the one decoder of SentencePiece's "<0xHH>" byte pieces (the SentencePiece,
// SPM and llama2.c tokenizers call it), and ends_with (core/util/format.h), shared the same way.
#include <gtest/gtest.h>

#include "core/text/byte_piece.h"
#include "core/util/format.h"

namespace hs {
namespace {

TEST(BytePiece, UpperCaseHexIsAByte) {
  EXPECT_EQ(byte_piece_value("<0x00>"), 0);
  EXPECT_EQ(byte_piece_value("<0x0A>"), 10);
  EXPECT_EQ(byte_piece_value("<0xFF>"), 255);
  EXPECT_EQ(byte_piece_value("<0xE2>", true), 0xE2);
}

TEST(BytePiece, LowerCaseHexOnlyWhenAsked) {
  EXPECT_EQ(byte_piece_value("<0xab>"), -1) << "SentencePiece: an ordinary piece";
  EXPECT_EQ(byte_piece_value("<0xab>", true), 0xab) << "llama2.c's tokenizer.bin";
  EXPECT_EQ(byte_piece_value("<0xAb>", true), 0xab);
}

TEST(BytePiece, AnythingElseIsNoByte) {
  for (const char* p : {"", "<0x>", "<0xA>", "<0xABC>", "<0xAB", "0xAB>", "<0XAB>", "<0xG0>", "<0x+1>", "<0x 1>", "a"}) {
    EXPECT_EQ(byte_piece_value(p), -1) << p;
    EXPECT_EQ(byte_piece_value(p, true), -1) << p;
  }
}

TEST(EndsWith, Suffixes) {
  EXPECT_TRUE(ends_with("model.gguf", ".gguf"));
  EXPECT_TRUE(ends_with("x", ""));
  EXPECT_TRUE(ends_with("", ""));
  EXPECT_FALSE(ends_with("gguf", ".gguf"));
  EXPECT_FALSE(ends_with("model.gguf.bak", ".gguf"));
  EXPECT_FALSE(ends_with("", "a"));
}

}  // namespace
}  // namespace hs
