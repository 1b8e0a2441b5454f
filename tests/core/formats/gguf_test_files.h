#pragma once
// Where the GGUF tests find the files tests/core/formats/make_gguf_test_files.py wrote (CTest
// runs it first as the fixture formats.gguf_test_files).
#include <filesystem>
#include <string>

namespace hs::test {

inline std::string gguf_test_dir() { return HEADSCOPE_GGUF_TEST_DIR; }

// The path of a generated file, or "" when it is not there.
inline std::string gguf_test_file(const std::string& name) {
  const std::string path = gguf_test_dir() + "/" + name;
  return std::filesystem::is_regular_file(path) ? path : std::string();
}

}  // namespace hs::test

// Skips the test when a generated file is missing (run through ctest, or run
// make_gguf_test_files.py OUTDIR first).
#define HS_REQUIRE_GGUF_FILE(var, name)                                                              \
  const std::string var = ::hs::test::gguf_test_file(name);                                          \
  if (var.empty())                                                                                   \
  GTEST_SKIP() << name << " not found in " << ::hs::test::gguf_test_dir()                            \
               << " (ctest runs formats.gguf_test_files first; or run tests/core/formats/make_gguf_test_files.py)"
