// .npy reading: round trips, and every malformed variant is a FormatError naming the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/formats/npy.h"
#include "core/util/errors.h"

namespace hs {
namespace {

std::string header_bytes(const std::string& dict, int version = 1) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  if (version == 1) {
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  }
  return out + h;
}

std::string floats(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 0.5f * float(i) - 1.0f;
  return std::string(reinterpret_cast<const char*>(v.data()), n * 4);
}

// The FormatError message for these bytes; fails the test when none is thrown.
std::string error_for(const std::string& bytes) {
  try {
    parse_npy(bytes, "in.npy");
  } catch (const FormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no FormatError for " << ::testing::PrintToString(bytes.substr(0, 80));
  return "";
}

void expect_error(const std::string& bytes, const std::string& mention) {
  const std::string msg = error_for(bytes);
  EXPECT_EQ(msg.rfind("in.npy: ", 0), 0u) << "message does not start with the file name: " << msg;
  EXPECT_NE(msg.find(mention), std::string::npos) << "message does not mention '" << mention << "': " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "message spans lines: " << msg;
}

const std::string kGood = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";

TEST(Npy, RoundTrip) {
  const std::string path = ::testing::TempDir() + "hs_npy_" + std::to_string(::getpid()) + ".npy";
  std::vector<float> data(12);
  for (size_t i = 0; i < data.size(); ++i) data[i] = float(i) * 0.25f - 1.0f;
  write_npy(path, data.data(), {3, 4});
  const Map m = read_npy_matrix(path);
  ASSERT_EQ(m.rows(), 3);
  ASSERT_EQ(m.cols(), 4);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(m(i, j), data[size_t(i * 4 + j)]) << i << ", " << j;
  const std::string bytes = npy_bytes(data.data(), {12});
  EXPECT_EQ(bytes.size() % 64, (12 * 4) % 64) << "header padded to 64 bytes";
  const NpyArray a = parse_npy(bytes, "x");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{12}));
  EXPECT_EQ(a.data, data);
  // Scalars and empty arrays.
  EXPECT_EQ(parse_npy(npy_bytes(data.data(), {}), "x").data.size(), 1u);
  EXPECT_EQ(parse_npy(npy_bytes(data.data(), {0, 4}), "x").shape, (std::vector<int64_t>{0, 4}));
  std::remove(path.c_str());
}

TEST(Npy, AcceptsWhatNumpyWrites) {
  // Version 2 and 3 headers, double quotes, no trailing comma, float64 (converted).
  EXPECT_EQ(parse_npy(header_bytes(kGood, 2) + floats(12), "x").data.size(), 12u);
  EXPECT_EQ(parse_npy(header_bytes(kGood, 3) + floats(12), "x").data.size(), 12u);
  EXPECT_EQ(parse_npy(header_bytes("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3, 4)}") + floats(12), "x").shape,
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(parse_npy(header_bytes("{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}") + floats(2), "x").shape,
            (std::vector<int64_t>{2}));
  std::vector<double> d = {1.5, -2.25, 3.0};
  const NpyArray a = parse_npy(header_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }") +
                                   std::string(reinterpret_cast<const char*>(d.data()), 24), "x");
  EXPECT_EQ(a.data, (std::vector<float>{1.5f, -2.25f, 3.0f}));
  // Trailing bytes after the data are ignored.
  EXPECT_EQ(parse_npy(header_bytes(kGood) + floats(13), "x").data.size(), 12u);
}

TEST(Npy, BadMagic) {
  expect_error("", "not a .npy file");
  expect_error("hello world, this is text", "not a .npy file");
  expect_error("\x93NUMPX\x01\x00\x10\x00{}", "not a .npy file");
  expect_error(std::string("\x93NUMPY\x09\x00\x10\x00", 10) + "{}", "version 9");
}

TEST(Npy, TruncatedHeader) {
  const std::string full = header_bytes(kGood) + floats(12);
  expect_error(full.substr(0, 9), "not a .npy file");
  expect_error(full.substr(0, 11), "header length");
  expect_error(full.substr(0, 40), "header length");
  expect_error(header_bytes(kGood, 2).substr(0, 11), "truncated");
}

TEST(Npy, HugeHeaderLength) {
  std::string b = "\x93NUMPY\x02";
  b += '\0';
  b += std::string("\xF0\xFF\xFF\xFF", 4);
  expect_error(b + "{", "header length 4294967280");
  // A long header with an unterminated string must not crash (std::regex used to overflow the stack).
  std::string longh = "{'descr': '" + std::string(600000, 'a');
  std::string v2 = "\x93NUMPY\x02";
  v2 += '\0';
  const uint32_t n = uint32_t(longh.size());
  v2 += std::string(reinterpret_cast<const char*>(&n), 4);
  expect_error(v2 + longh, "unterminated");
}

TEST(Npy, MalformedHeader) {
  expect_error(header_bytes("not a dict"), "malformed");
  expect_error(header_bytes("{'descr': '<f4', 'shape': (3, 4), }") + floats(12), "fortran_order");
  expect_error(header_bytes("{'fortran_order': False, 'shape': (3, 4), }") + floats(12), "descr");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, }") + floats(12), "shape");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3, 4), }"), "fortran_order");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': [3, 4], }"), "tuple");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, x), }"), "integers");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 4), }"), "non-negative");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4"), "shape");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}"), "extra");
}

TEST(Npy, WrongDtype) {
  for (const char* descr : {"<f2", "<i4", "|u1", ">f4", "<c8", "|b1"}) {
    const std::string h = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (3, 4), }";
    expect_error(header_bytes(h) + floats(24), descr);
  }
  expect_error(header_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }"), "quoted string");
}

TEST(Npy, FortranOrder) {
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }") + floats(12), "Fortran");
}

TEST(Npy, TruncatedData) {
  expect_error(header_bytes(kGood) + floats(11), "needs 48 bytes, the file has 44");
  expect_error(header_bytes(kGood), "truncated");
  expect_error(header_bytes(kGood) + floats(12).substr(0, 47), "truncated");
}

TEST(Npy, HugeShape) {
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }"), "2^31");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }"), "2^31");
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 1), }"), "too large");
  // Within the element limit but far beyond the file: truncated, found before allocating.
  expect_error(header_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000), }"), "truncated");
}

TEST(Npy, MatrixNeeds2D) {
  const std::string path = ::testing::TempDir() + "hs_npy3_" + std::to_string(::getpid()) + ".npy";
  std::vector<float> data(8, 1.0f);
  write_npy(path, data.data(), {2, 2, 2});
  try {
    read_npy_matrix(path);
    ADD_FAILURE() << "a 3-D array was read as a matrix";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2-D"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_npy(path), IoError);  // missing file
}

}  // namespace
}  // namespace hs
