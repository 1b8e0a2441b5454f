#include "pretrained_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace hs::test {

std::string models_dir() {
  if (const char* env = std::getenv("HEADSCOPE_MODELS_DIR"); env && *env) return env;
  return HEADSCOPE_MODELS_DIR_DEFAULT;
}

std::string model_file(const std::string& relative) {
  const std::string path = models_dir() + "/" + relative;
  return std::filesystem::is_regular_file(path) ? path : std::string();
}

std::string scratch_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(HEADSCOPE_BINARY_DIR) / "test-scratch" / "pretrained" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_text(const std::string& path, const std::string& text) {
  write_bytes(path, std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace hs::test
