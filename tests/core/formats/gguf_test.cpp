// GGUF reader: every metadata value type read back as tests/core/formats/gguf_writer.py wrote it
// (versions 2 and 3), alignment, tensor infos, and broken files: each malformed file of
// make_gguf_test_files.py gives a FormatError naming the problem; every truncation and random
// corruption of a valid file gives a FormatError or a consistent file, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>

#include "core/formats/gguf.h"
#include "core/util/errors.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::path(HEADSCOPE_BINARY_DIR) / "test-scratch" / "gguf";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no FormatError";
}

class GgufMetadata : public ::testing::TestWithParam<int> {};

TEST_P(GgufMetadata, EveryValueTypeRoundTrips) {
  HS_REQUIRE_GGUF_FILE(path, "metadata_v" + std::to_string(GetParam()) + ".gguf");
  const GgufFile f(path);
  EXPECT_EQ(f.version(), uint32_t(GetParam()));
  EXPECT_EQ(f.alignment(), 32u);
  ASSERT_FALSE(f.keys().empty());
  EXPECT_EQ(f.keys().front(), "general.architecture");
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_int("t.u8"), 200);
  EXPECT_EQ(f.get_int("t.i8"), -100);
  EXPECT_EQ(f.get_int("t.u16"), 60000);
  EXPECT_EQ(f.get_int("t.i16"), -30000);
  EXPECT_EQ(f.get_int("t.u32"), 4000000000LL);
  EXPECT_EQ(f.get_int("t.i32"), -2000000000LL);
  EXPECT_EQ(f.get_int("t.u64_small"), 12345678901234LL);
  EXPECT_EQ(f.get_int("t.i64"), -(int64_t(1) << 62));
  EXPECT_EQ(f.value("t.u64").text(), "9223372036854775813");
  EXPECT_NE(error_of([&] { f.get_int("t.u64"); }).find("expected an integer below 2^63"), std::string::npos);
  EXPECT_EQ(f.get_float("t.f32"), 0.15625);
  EXPECT_EQ(f.get_float("t.f64"), -2.5e-300);
  EXPECT_EQ(f.get_float("t.u16"), 60000.0) << "integers read as numbers too";
  EXPECT_TRUE(f.get_bool("t.bool"));
  EXPECT_EQ(f.get_string("t.string"), "h\u00e9llo w\u00f6rld \u2713");
  EXPECT_EQ(f.get_string("t.empty_string"), "");
  EXPECT_EQ(f.get_int_array("t.arr.u8"), (std::vector<int64_t>{0, 1, 255}));
  EXPECT_EQ(f.get_int_array("t.arr.i32"), (std::vector<int64_t>{-1, 0, 7}));
  EXPECT_EQ(f.get_float_array("t.arr.f32"), (std::vector<double>{1.5, -0.25}));
  EXPECT_EQ(f.get_float_array("t.arr.f64"), (std::vector<double>{0.1}));
  EXPECT_EQ(f.get_string_array("t.arr.str"), (std::vector<std::string>{"a", "", "\u00df\u2713"}));
  EXPECT_EQ(f.value("t.arr.bool").text(), "[true, false, true]");
  EXPECT_EQ(f.value("t.arr.u64").text(), "[1, 18446744073709551615]");
  EXPECT_NE(error_of([&] { f.get_int_array("t.arr.u64"); }).find("'t.arr.u64'[1] does not fit"), std::string::npos);
  EXPECT_EQ(f.value("t.arr.empty").size(), 0u);
  EXPECT_EQ(f.value("t.arr.empty").type_text(), "array of 0 int32");
  const GgufValue& nested = f.value("t.arr.nested");
  ASSERT_EQ(nested.element_type(), GgufType::array);
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested.array_at(0).string_at(1), "y");
  EXPECT_EQ(nested.array_at(1).size(), 0u);
  EXPECT_EQ(nested.text(), "[['x', 'y'], [], ['z']]");
  EXPECT_EQ(f.value("t.arr.nested_int").text(), "[[1, 2], [3]]");

  // A value of another type names the key, what it holds and what was expected.
  const std::string wrong = error_of([&] { f.get_int("t.string"); });
  EXPECT_NE(wrong.find(path), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("metadata 't.string' is string 'h\u00e9llo w\u00f6rld \u2713'; expected an integer"), std::string::npos) << wrong;
  EXPECT_NE(error_of([&] { f.get_string_array("t.arr.i32"); }).find("is array of 3 int32 [-1, 0, 7]; expected an array of strings"),
            std::string::npos);
  EXPECT_NE(error_of([&] { f.get_bool("t.u8"); }).find("is uint8 200; expected a bool"), std::string::npos);
  EXPECT_NE(error_of([&] { f.get_string("no.such.key"); }).find("metadata 'no.such.key' is missing"), std::string::npos);
  EXPECT_EQ(f.get_string_or("no.such.key", "fallback"), "fallback");
  EXPECT_EQ(f.get_int_or("t.u8", 7), 200);
  EXPECT_THROW(f.get_int_or("t.string", 7), FormatError) << "only a missing key falls back";

  ASSERT_EQ(f.tensors().size(), 1u);
  const GgufTensor& w = f.tensor("weight");
  EXPECT_EQ(w.dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(w.rows(), 2);
  EXPECT_EQ(w.row_length(), 3);
  EXPECT_EQ(w.dims_text(), "[3, 2]");
  EXPECT_EQ(f.dequantize(w), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_NE(error_of([&] { f.tensor("nope"); }).find("tensor 'nope' is missing (the file has 1 tensors: weight)"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Versions, GgufMetadata, ::testing::Values(2, 3));

TEST(Gguf, AlignmentOtherThanTheDefault) {
  for (const int alignment : {64, 1}) {
    SCOPED_TRACE(alignment);
    HS_REQUIRE_GGUF_FILE(path, "aligned_" + std::to_string(alignment) + ".gguf");
    const GgufFile f(path);
    EXPECT_EQ(f.alignment(), uint64_t(alignment));
    EXPECT_EQ(f.data_offset() % uint64_t(alignment), 0u);
    for (const GgufTensor& t : f.tensors()) EXPECT_EQ(t.offset % uint64_t(alignment), 0u) << t.name;
    std::vector<float> a = f.dequantize(f.tensor("a")), b = f.dequantize(f.tensor("b"));
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], float(i));
    for (size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b[i], -float(i));
    EXPECT_EQ(f.dequantize(f.tensor("q")).size(), 192u);
  }
}

TEST(Gguf, MalformedFilesNameTheProblem) {
  HS_REQUIRE_GGUF_FILE(manifest, "malformed.json");
  const nlohmann::json cases = nlohmann::json::parse(read_file(manifest));
  ASSERT_GT(cases.size(), 25u);
  for (const auto& c : cases) {
    const std::string path = test::gguf_test_dir() + "/" + c["file"].get<std::string>();
    const std::string expect = c["expect"].get<std::string>();
    const std::string what = error_of([&] { GgufFile f(path); });
    EXPECT_NE(what.find(expect), std::string::npos) << path << ": expected a FormatError containing \"" << expect
                                                    << "\", got: " << what;
    EXPECT_EQ(what.rfind(path, 0), 0u) << "the message starts with the file: " << what;
  }
  HS_REQUIRE_GGUF_FILE(valid, "malformed/valid.gguf");
  EXPECT_NO_THROW(GgufFile{valid});
}

TEST(Gguf, EveryTruncationIsAFormatError) {
  HS_REQUIRE_GGUF_FILE(valid, "malformed/valid.gguf");
  const std::string bytes = read_file(valid);
  size_t needed = 0;  // the file is complete once the last tensor's bytes are there
  {
    const GgufFile f(valid);
    for (const GgufTensor& t : f.tensors()) needed = std::max<size_t>(needed, f.data_offset() + t.offset + t.bytes);
  }
  ASSERT_LT(needed, bytes.size()) << "the writer pads the last tensor";
  const std::string path = scratch("truncated.gguf");
  for (size_t n = 0; n < bytes.size(); ++n) {
    write_file(path, bytes.substr(0, n));
    if (n < needed) {
      EXPECT_THROW(GgufFile{path}, FormatError) << "cut to " << n << " of " << bytes.size() << " bytes";
    } else {
      EXPECT_NO_THROW(GgufFile{path}) << "cut to " << n << " bytes (only padding is missing)";
    }
  }
}

TEST(Gguf, RandomCorruptionNeverCrashes) {
  HS_REQUIRE_GGUF_FILE(valid, "malformed/valid.gguf");
  const std::string bytes = read_file(valid);
  const std::string path = scratch("corrupt.gguf");
  std::mt19937 rng(7);
  int opened = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string b = bytes;
    const int flips = 1 + int(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      const size_t at = rng() % b.size();
      b[at] = char(rng() % 3 == 0 ? 0xFF : rng() & 0xFF);
    }
    write_file(path, b);
    try {
      const GgufFile f(path);
      ++opened;
      for (const std::string& k : f.keys()) (void)f.value(k).text();
      for (const GgufTensor& t : f.tensors())
        if (ggml_type_info(t.type).dequantizable) (void)f.dequantize(t);
    } catch (const Error&) {
    }
  }
  EXPECT_GT(opened, 0) << "some corruptions only change values";
}

}  // namespace
}  // namespace hs
