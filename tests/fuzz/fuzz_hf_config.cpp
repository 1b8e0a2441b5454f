// libFuzzer harness: a Hugging Face folder whose config.json is the input, beside a fixed small
// tokenizer.json and model.safetensors from the seed folder (tests/fuzz/corpus/hf_folder/). Every
// config must load as a model or be refused with an hs::Error before anything large is allocated.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "core/model/hf_folder.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

#ifndef HEADSCOPE_SOURCE_DIR
#define HEADSCOPE_SOURCE_DIR "."
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  const fs::path fixed = fs::path(HEADSCOPE_SOURCE_DIR) / "tests/fuzz/hf_folder";
  const fs::path dir = fs::path(hs::fuzz::temp_dir()) / "folder";
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (const char* name : {"tokenizer.json", "model.safetensors"}) {
    if (!fs::exists(dir / name)) fs::copy_file(fixed / name, dir / name, ec);
  }
  const std::string config = hs::fuzz::write_temp("folder/config.json", data, size);
  try {
    const hs::HfModel m = hs::load_hf_folder(dir.string());
    if (!m.model || !m.tokenizer) __builtin_trap();
  } catch (const hs::Error&) {
  }
  return 0;
}
