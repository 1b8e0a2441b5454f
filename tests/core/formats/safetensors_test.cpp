// safetensors: a valid file round-trips; every malformed variant is a FormatError that names
// the file (and the tensor, when one is to blame); F16/BF16 convert exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/formats/safetensors.h"
#include "core/util/errors.h"

namespace hs {
namespace {

class Safetensors : public ::testing::Test {
 protected:
  std::string path_ = ::testing::TempDir() + "hs_st_" + std::to_string(::getpid()) + ".safetensors";
  void TearDown() override { std::remove(path_.c_str()); }

  void write_raw(const std::string& bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  // 8-byte little-endian length + header + data.
  void write_parts(const std::string& header, const std::string& data, uint64_t length_override = 0) {
    uint64_t n = length_override ? length_override : header.size();
    std::string b(8, '\0');
    for (int i = 0; i < 8; ++i) b[size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    write_raw(b + header + data);
  }
  // Opening the file throws a FormatError mentioning every string in `mentions`.
  void expect_error(const std::vector<std::string>& mentions) {
    try {
      SafetensorsFile f(path_);
      ADD_FAILURE() << "no FormatError";
    } catch (const FormatError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(path_ + ": ", 0), 0u) << "message does not start with the file: " << msg;
      for (const std::string& m : mentions) EXPECT_NE(msg.find(m), std::string::npos) << "no '" << m << "' in: " << msg;
    }
  }
};

TEST_F(Safetensors, RoundTrip) {
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> t;
  t["a.weight"] = {{2, 3}, {1, 2, 3, 4, 5, 6}};
  t["b"] = {{4}, {-1.5f, 0.0f, 2.5f, 1e-20f}};
  t["empty"] = {{0, 3}, {}};
  write_safetensors(path_, t);
  SafetensorsFile f(path_);
  EXPECT_EQ(f.names(), (std::vector<std::string>{"a.weight", "b", "empty"}));
  EXPECT_TRUE(f.has("b"));
  EXPECT_FALSE(f.has("c"));
  const Map m = f.matrix("a.weight", 2, 3);
  EXPECT_EQ(m(1, 2), 6.0f);
  EXPECT_EQ(m(0, 1), 2.0f);
  EXPECT_EQ(f.vector("b", 4)[3], 1e-20f);
  EXPECT_EQ(f.info("a.weight").shape_text(), "[2, 3]");
  EXPECT_EQ(f.info("empty").elements(), 0);
  EXPECT_EQ(f.floats("b"), t["b"].second);
}

TEST_F(Safetensors, ShapeAndMissingTensorMessages) {
  write_safetensors(path_, {{"w", {{2, 3}, std::vector<float>(6, 1.0f)}}});
  SafetensorsFile f(path_);
  try {
    f.matrix("w", 3, 2);
    ADD_FAILURE();
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), path_ + ": tensor 'w' has shape [2, 3]; expected [3, 2]");
  }
  try {
    f.vector("w", 6);
    ADD_FAILURE();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'w'"), std::string::npos);
  }
  try {
    f.info("nope");
    ADD_FAILURE();
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()), path_ + ": tensor 'nope' is missing (the file has: w)");
  }
}

TEST_F(Safetensors, MissingFileIsAnIoError) {
  EXPECT_THROW(SafetensorsFile{path_ + ".absent"}, IoError);
  EXPECT_THROW(SafetensorsFile{::testing::TempDir()}, IoError);  // a folder
}

TEST_F(Safetensors, Truncated) {
  write_raw("");
  expect_error({"8-byte header length"});
  write_raw(std::string("\x10\x00\x00", 3));
  expect_error({"3 bytes"});
  // A valid file cut short inside its data: the offsets no longer fit.
  write_safetensors(path_, {{"w", {{4, 4}, std::vector<float>(16, 2.0f)}}});
  std::ifstream in(path_, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_raw(bytes.substr(0, bytes.size() - 5));
  expect_error({"'w'", "data_offsets [0, 64]", "59 bytes"});
  // Cut inside the header.
  write_raw(bytes.substr(0, 20));
  expect_error({"header length"});
}

TEST_F(Safetensors, HeaderLengthBeyondTheFile) {
  write_parts("{}", "", 1000);
  expect_error({"header length 1000", "file size 10"});
  write_parts("{}", "", uint64_t(1) << 62);
  expect_error({"100 MiB"});
  write_parts("{}", "", ~uint64_t(0));
  expect_error({"header length"});
}

TEST_F(Safetensors, BadJson) {
  write_parts("{not json", "");
  expect_error({"not valid JSON"});
  write_parts("[1, 2]", "");
  expect_error({"not a JSON object"});
  write_parts("{\"w\": 5}", "");
  expect_error({"'w'", "dtype"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1]}}", "");
  expect_error({"'w'", "data_offsets"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", "1234");
  expect_error({"'w'", "shape"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1.5], \"data_offsets\": [0, 4]}}", "1234");
  expect_error({"'w'", "shape"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, -4]}}", "1234");
  expect_error({"'w'", "data_offsets"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4, 8]}}", "12345678");
  expect_error({"'w'", "data_offsets"});
  write_parts(std::string("{\"w\": \0}", 8), "");
  expect_error({"JSON"});
  // Metadata is allowed and read (string values only).
  write_parts("{\"__metadata__\": {\"format\": \"pt\", \"n\": 3}}", "");
  EXPECT_EQ(SafetensorsFile(path_).metadata().at("format"), "pt");
}

TEST_F(Safetensors, OffsetsOutOfRange) {
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 16]}}", "12345678");
  expect_error({"'w'", "data_offsets [8, 16]", "8 bytes"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}", "12345678");
  expect_error({"'w'", "[8, 4]"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [18446744073709551612, 18446744073709551615]}}", "1234");
  expect_error({"'w'", "outside"});
}

TEST_F(Safetensors, Overlapping) {
  write_parts("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
              " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}", std::string(12, '\0'));
  expect_error({"'a' [0, 8]", "'b' [4, 12]", "overlap"});
  // Touching ranges are fine.
  write_parts("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
              " \"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 12]}}", std::string(12, '\0'));
  EXPECT_NO_THROW(SafetensorsFile{path_});
}

TEST_F(Safetensors, WrongByteCount) {
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 12]}}", std::string(16, '\0'));
  expect_error({"'w'", "[2, 2] F32 needs 16 bytes", "span 12"});
  write_parts("{\"w\": {\"dtype\": \"F16\", \"shape\": [3], \"data_offsets\": [0, 8]}}", std::string(8, '\0'));
  expect_error({"'w'", "needs 6 bytes"});
  write_parts("{\"w\": {\"dtype\": \"F32\", \"shape\": [1099511627776, 1099511627776], \"data_offsets\": [0, 4]}}", "1234");
  expect_error({"'w'", "large"});
}

TEST_F(Safetensors, UnsupportedDtype) {
  write_parts("{\"model.q\": {\"dtype\": \"Q4_K\", \"shape\": [1], \"data_offsets\": [0, 1]}}", std::string(8, '\0'));
  expect_error({"'model.q'", "Q4_K"});
  write_parts("{\"w\": {\"dtype\": 32, \"shape\": [1], \"data_offsets\": [0, 4]}}", "1234");
  expect_error({"'w'", "dtype"});
  // A known but non-float dtype opens; reading it as floats names the tensor.
  write_parts("{\"ids\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [0, 8]}}", std::string(8, '\0'));
  SafetensorsFile f(path_);
  try {
    f.floats("ids");
    ADD_FAILURE();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("'ids' has dtype I64"), std::string::npos) << e.what();
  }
}

TEST_F(Safetensors, HalfPrecisionConversion) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);            // largest normal
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(half_to_float(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xC049), -3.140625f);
  EXPECT_EQ(bf16_to_float(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));

  // Through a file: F16 [1, -2, 0.5] and BF16 [1, 3.140625].
  const uint16_t h[3] = {0x3C00, 0xC000, 0x3800};
  const uint16_t b[2] = {0x3F80, 0x4049};
  write_parts("{\"h\": {\"dtype\": \"F16\", \"shape\": [3], \"data_offsets\": [0, 6]},"
              " \"b\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [6, 10]}}",
              std::string(reinterpret_cast<const char*>(h), 6) + std::string(reinterpret_cast<const char*>(b), 4));
  SafetensorsFile f(path_);
  EXPECT_EQ(f.floats("h"), (std::vector<float>{1.0f, -2.0f, 0.5f}));
  EXPECT_EQ(f.floats("b"), (std::vector<float>{1.0f, 3.140625f}));
  EXPECT_EQ(f.vector("h", 3)[2], 0.5f);
}

// Issue 15: a tensor named twice in the header silently took the last entry. Refused, naming the
// file and the tensor.
TEST_F(Safetensors, ATensorNamedTwiceIsRefused) {
  write_parts(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},)"
              R"( "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
              std::string(8, '\0'));
  expect_error({"\"w\" appears twice"});
}

}  // namespace
}  // namespace hs
