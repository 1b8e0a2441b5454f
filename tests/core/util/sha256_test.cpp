// SHA-256 against the FIPS 180-4 example vectors (NIST's "abc", the 448-bit message, a million 'a's)
// and the empty message; bytes added in any chunking give the same digest; a file's prefix.
#include "core/util/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/errors.h"

namespace hs {
namespace {

TEST(Sha256, FipsExampleVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, AnyChunkingGivesTheSameDigest) {
  std::string text;
  for (int k = 0; k < 300; ++k) text += char('a' + k % 26);
  const std::string whole = sha256_hex(text);
  for (size_t chunk : {1, 3, 55, 56, 63, 64, 65, 128}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += chunk) h.add(text.data() + at, std::min(chunk, text.size() - at));
    EXPECT_EQ(h.hex(), whole) << "chunks of " << chunk;
  }
}

TEST(Sha256, FilePrefix) {
  const std::string path = (std::filesystem::temp_directory_path() / "hs_sha256_test.bin").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << "abcdef";
  }
  EXPECT_EQ(sha256_file_prefix(path, 3), sha256_hex("abc"));
  EXPECT_EQ(sha256_file_prefix(path, 1000), sha256_hex("abcdef"));
  std::remove(path.c_str());
  EXPECT_THROW(sha256_file_prefix(path, 10), IoError);
}

}  // namespace
}  // namespace hs
