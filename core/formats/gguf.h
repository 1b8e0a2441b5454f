#pragma once
// GGUF, llama.cpp's single-file model format, versions 2 and 3 (little-endian):
//   header:   "GGUF", uint32 version, uint64 tensor count, uint64 metadata count
//   metadata: key string, uint32 value type, value. A string is a uint64 byte length and the
//             bytes; an array is a uint32 element type, a uint64 count and the elements (which
//             may be arrays themselves)
//   tensors:  name string, uint32 n_dims (<= 4), n_dims uint64 sizes ne[0], ne[1], ... (ne[0]
//             counts the values of one row: a PyTorch weight [out, in] is stored as [in, out]),
//             uint32 GGML type (ggml_types.h), uint64 offset from the start of the data section
//   data:     begins at the first multiple of `general.alignment` (uint32, default 32) after the
//             tensor infos; every tensor offset is a multiple of the alignment
// The file is memory-mapped. Every count, length, size and offset is checked against the file
// before it is used; anything inconsistent is a FormatError naming the file, the key or tensor,
// what was found and what was expected. Values are read in place (no copy of the vocabulary).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/formats/ggml_types.h"
#include "core/formats/mapped_file.h"

namespace hs {

enum class GgufType : uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
  u64 = 10, i64 = 11, f64 = 12,
};

// "uint8", "int32", "float32", "bool", "string", "array", ...
const char* gguf_type_name(GgufType type);

// One metadata value, read in place from the mapped file (valid while its GgufFile lives).
// Scalars are arrays of one element; element accessors assume the caller checked the type.
class GgufValue {
 public:
  GgufType type() const { return type_; }
  GgufType element_type() const { return element_type_; }  // the scalar's own type, or the array's elements'
  bool is_array() const { return type_ == GgufType::array; }
  uint64_t size() const { return count_; }                 // 1 for a scalar

  bool is_integer() const;  // elements are uint8 .. int64 (not bool)
  bool is_float() const;    // elements are float32 or float64

  // Element i (0 for a scalar) as a signed integer; false when it does not fit int64.
  bool int_at(uint64_t i, int64_t& out) const;
  double float_at(uint64_t i) const;  // integer or float elements
  bool bool_at(uint64_t i) const;
  std::string_view string_at(uint64_t i) const;
  const GgufValue& array_at(uint64_t i) const;  // arrays of arrays

  // "array of 3 string", "uint32", "array of 2 array" (for messages).
  std::string type_text() const;
  // The value as short text: 7, -1.5, true, "text", [1, 2, ...] (at most `max_elements` per array).
  std::string text(size_t max_elements = 8) const;

 private:
  friend class GgufFile;
  friend struct GgufParser;
  GgufType type_ = GgufType::u8;
  GgufType element_type_ = GgufType::u8;
  uint64_t count_ = 1;
  const uint8_t* data_ = nullptr;              // first element (numbers and bools)
  std::vector<const uint8_t*> strings_;        // each string's length field (strings)
  std::vector<GgufValue> arrays_;              // nested arrays
};

struct GgufTensor {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<int64_t> dims;  // ne[0] first: ne[0] values per row
  uint64_t offset = 0;        // from the start of the data section
  size_t bytes = 0;

  int64_t row_length() const { return dims.empty() ? 1 : dims[0]; }
  int64_t rows() const;       // product of ne[1..]
  int64_t elements() const;
  size_t row_bytes() const;
  std::string dims_text() const;  // "[896, 151936]" (ne[0] first, as GGUF stores them)
};

class GgufFile {
 public:
  // Throws IoError (cannot open) or FormatError (naming the file and what is wrong).
  explicit GgufFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute, where tensor offsets start
  uint64_t file_size() const { return file_->size(); }

  // Metadata, in file order.
  const std::vector<std::string>& keys() const { return keys_; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  const GgufValue* find(const std::string& key) const;
  const GgufValue& value(const std::string& key) const;  // FormatError when missing

  // Typed access. A missing key, or one of another type, is a FormatError naming the key, what
  // it holds and what was expected. The _or variants return `fallback` for a missing key only.
  std::string get_string(const std::string& key) const;
  int64_t get_int(const std::string& key) const;       // any integer type
  double get_float(const std::string& key) const;      // float32/float64 (or an integer)
  bool get_bool(const std::string& key) const;
  std::vector<std::string> get_string_array(const std::string& key) const;
  // The array itself, read in place (string_at views into the mapped file): no copy of 150k strings.
  const GgufValue& string_array(const std::string& key) const;
  std::vector<int64_t> get_int_array(const std::string& key) const;
  std::vector<double> get_float_array(const std::string& key) const;
  std::string get_string_or(const std::string& key, const std::string& fallback) const;
  int64_t get_int_or(const std::string& key, int64_t fallback) const;
  double get_float_or(const std::string& key, double fallback) const;
  bool get_bool_or(const std::string& key, bool fallback) const;

  // Tensors, in file order.
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  const GgufTensor* find_tensor(const std::string& name) const;
  const GgufTensor& tensor(const std::string& name) const;  // FormatError when missing
  const uint8_t* tensor_data(const GgufTensor& t) const { return file_->data() + data_offset_ + t.offset; }

  // Throws FormatError naming the tensor and its type when headscope cannot dequantize it.
  void require_dequantizable(const GgufTensor& t) const;
  // Rows [first, first + count) of a tensor (viewed as rows() x row_length()) as floats into
  // dst (count * row_length() floats). Throws FormatError for a type headscope cannot read.
  void dequantize_rows(const GgufTensor& t, int64_t first, int64_t count, float* dst) const;
  std::vector<float> dequantize(const GgufTensor& t) const;  // the whole tensor, row after row

 private:
  friend struct GgufParser;
  [[noreturn]] void type_error(const std::string& key, const GgufValue& v, const char* expected) const;

  std::shared_ptr<MappedFile> file_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<std::string> keys_;
  std::map<std::string, GgufValue> values_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, size_t> tensor_index_;
};

}  // namespace hs
