#pragma once
// safetensors files: 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the tensor bytes (offsets relative to the end of the header). Everything is validated
// on open: header size, JSON, dtypes, shapes, offsets inside the file, byte counts, overlaps.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/mapped_file.h"
#include "core/util/tensor.h"

namespace hs {

enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, BOOL };

const char* dtype_name(DType t);
size_t dtype_size(DType t);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  size_t begin = 0;  // absolute byte offsets into the file
  size_t end = 0;

  int64_t elements() const;
  std::string shape_text() const;  // "[768, 2304]"
};

class SafetensorsFile {
 public:
  // Throws IoError (cannot open) or FormatError (naming the file and what is wrong).
  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const;  // FormatError if missing
  std::vector<std::string> names() const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // Tensor converted to float32 (F32, F16 and BF16 are accepted; anything else is a FormatError).
  // A NaN or infinity is a FormatError naming the tensor and the element (core/util/finite.h).
  std::vector<float> floats(const std::string& name) const;
  // A 2-D tensor as a Map [rows, cols], or a 1-D tensor as a Vec; shapes are checked.
  Map matrix(const std::string& name, int64_t rows, int64_t cols) const;
  Vec vector(const std::string& name, int64_t size) const;

 private:
  std::shared_ptr<MappedFile> file_;
  std::map<std::string, TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

// Half-precision conversions (IEEE binary16 and bfloat16) to float.
float half_to_float(uint16_t h);
float bf16_to_float(uint16_t b);

// Writes a safetensors file of float32 tensors (used by tests and exports), atomically.
void write_safetensors(const std::string& path, const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>& tensors);

}  // namespace hs
