#pragma once
// Helpers for the pretrained-model tests: where the shared models are, scratch files.
#include <cstdint>
#include <string>
#include <vector>

namespace hs::test {

// ${HEADSCOPE_MODELS_DIR} from the environment, else the CMake cache value.
std::string models_dir();

// models_dir() + "/" + relative, or "" when that file does not exist.
std::string model_file(const std::string& relative);

// A fresh scratch folder under the build tree for this test.
std::string scratch_dir(const std::string& name);

std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text(const std::string& path, const std::string& text);

}  // namespace hs::test
