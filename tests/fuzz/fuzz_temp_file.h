#pragma once
// Harness helper: the file-based parsers take paths (checkpoints are memory-mapped), so each
// input is written to a per-process temporary folder first.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace hs::fuzz {

inline std::string temp_dir() {
  static const std::string dir = [] {
    const std::string d = (std::filesystem::temp_directory_path() / ("headscope-fuzz-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes bytes to temp_dir()/name and returns the path ("" when the write fails).
inline std::string write_temp(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = temp_dir() + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

// Texts every tokenizer harness encodes: spaces, contractions, digits, accents, emoji, newlines.
inline const char* const kProbeTexts[] = {"", "Lily saw a cat.", " don't  stop 1234", "naïve café 東京 🐶\n\tend",
                                          "\xff\xfe broken \xc3"};

}  // namespace hs::fuzz
