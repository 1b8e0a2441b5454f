#pragma once
// The weights of a Hugging Face folder: model.safetensors, or the shards listed by
// model.safetensors.index.json ({"weight_map": {tensor: shard file}}), memory-mapped.
// Lookups name the file, the tensor and the expected shape when something is off.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/safetensors.h"

namespace hs {

class HfTensors {
 public:
  // Throws IoError / FormatError; InputError when the folder only has pytorch_model.bin etc.
  explicit HfTensors(const std::string& dir);

  bool has(const std::string& name) const;
  // The stored dtype of a tensor (F32 when it is missing).
  DType dtype(const std::string& name) const;
  // F32 / F16 / BF16 converted to float32; `what` says what the tensor is for in messages.
  Map matrix(const std::string& name, int64_t rows, int64_t cols, const std::string& what) const;
  Vec vector(const std::string& name, int64_t size, const std::string& what) const;
  // Numbers in every tensor of the folder (what loading them all as float32 takes, / 4 bytes).
  int64_t total_elements() const;
  // The first of `names` that exists, or "" (checkpoints differ in prefixes, e.g. "transformer.").
  std::string first_present(const std::vector<std::string>& names) const;

 private:
  const SafetensorsFile& file_for(const std::string& name, int64_t rows, int64_t cols, const std::string& what) const;

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> where_;  // tensor -> file holding it
  std::string description_;                             // "model.safetensors" or "3 shards of ..."
};

}  // namespace hs
