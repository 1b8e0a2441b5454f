#pragma once
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), float32 little-endian, C order.
// Reading validates magic, version, header length, dtype, order and shape against the bytes
// present; float64 input is accepted and converted. Limits are checked before allocating.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/tensor.h"

namespace hs {

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // C order
};

// The longest .npy header read (numpy writes a few hundred bytes).
constexpr size_t kMaxNpyHeaderBytes = size_t(1) << 20;

// What a .npy header says, checked as parse_npy checks it: magic, version, dtype (float32 or
// float64), C order, shape of at most 2^31 elements. The data follows at data_offset.
struct NpyLayout {
  std::vector<int64_t> shape;
  int64_t count = 1;    // elements
  int value_bytes = 4;  // 4 (float32) or 8 (float64)
  size_t data_offset = 0;
  uint64_t file_bytes() const { return uint64_t(data_offset) + uint64_t(count) * uint64_t(value_bytes); }
};

// The header alone: `bytes` needs to hold the magic and the header (at most 12 +
// kMaxNpyHeaderBytes), not the data. FormatError naming `name` when it is broken.
NpyLayout parse_npy_layout(std::string_view bytes, const std::string& name);

// Parses .npy bytes; `name` is used in error messages (usually the file path).
NpyArray parse_npy(std::string_view bytes, const std::string& name);
// Memory-maps the file (a regular file only: devices and FIFOs are refused with what they are)
// and parses it; nothing is read beyond what the header's shape needs.
NpyArray read_npy(const std::string& path);

// A 2-D array as a Map; throws FormatError naming the file when it is not 2-D.
Map read_npy_matrix(const std::string& path);

// The magic, version and header of a .npy file (version 1.0, '<f4', C order) of that shape: the
// float32 data follows it (for writers that stream the data instead of holding it twice).
std::string npy_header(const std::vector<int64_t>& shape);

// .npy bytes (version 1.0, '<f4', C order) for data of the given shape.
std::string npy_bytes(const float* data, const std::vector<int64_t>& shape);

// Atomic write.
void write_npy(const std::string& path, const float* data, const std::vector<int64_t>& shape);

}  // namespace hs
