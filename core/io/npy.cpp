#include "core/io/npy.h"

#include <cstring>
#include <regex>

#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr int64_t kMaxNpyElements = int64_t(1) << 31;

uint32_t read_le(const std::string& b, size_t pos, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[pos + size_t(i)]);
  return v;
}

std::string header_field(const std::string& header, const std::string& key, const std::string& name) {
  // Values are a quoted string, True/False, or a tuple.
  const std::regex re("['\"]" + key + "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|True|False|\\([^)]*\\))");
  std::smatch m;
  if (!std::regex_search(header, m, re)) {
    throw FormatError(name + ": .npy header has no '" + key + "' field (header: " + header.substr(0, 120) + ")");
  }
  return m[1].str();
}

}  // namespace

NpyArray parse_npy(const std::string& b, const std::string& name) {
  static const char kMagic[] = "\x93NUMPY";
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0) {
    throw FormatError(name + ": not a .npy file (expected the magic bytes \\x93NUMPY at the start)");
  }
  const int major = static_cast<uint8_t>(b[6]);
  if (major < 1 || major > 3) throw FormatError(name + ": .npy format version " + std::to_string(major) + " is not 1, 2 or 3");
  const int len_bytes = major == 1 ? 2 : 4;
  if (b.size() < size_t(8 + len_bytes)) throw FormatError(name + ": .npy file is truncated inside its header");
  const size_t header_len = read_le(b, 8, len_bytes);
  const size_t data_start = size_t(8 + len_bytes) + header_len;
  if (header_len > 1 << 20 || data_start > b.size()) {
    throw FormatError(name + ": .npy header length " + std::to_string(header_len) + " exceeds the file size " +
                      std::to_string(b.size()));
  }
  const std::string header = b.substr(size_t(8 + len_bytes), header_len);
  std::string descr = header_field(header, "descr", name);
  descr = descr.substr(1, descr.size() - 2);
  const std::string order = header_field(header, "fortran_order", name);
  const std::string shape_text = header_field(header, "shape", name);
  if (order != "False") throw FormatError(name + ": .npy array is Fortran-ordered; expected C order");
  int elem = 0;
  if (descr == "<f4" || descr == "=f4" || descr == "f4") elem = 4;
  else if (descr == "<f8" || descr == "=f8" || descr == "f8") elem = 8;
  else throw FormatError(name + ": .npy dtype '" + descr + "' is not supported; expected float32 ('<f4')");

  NpyArray arr;
  int64_t count = 1;
  const std::regex num_re("\\s*(-?[0-9]+)\\s*,?");
  std::string inner = shape_text.substr(1, shape_text.size() - 2);
  for (std::sregex_iterator it(inner.begin(), inner.end(), num_re), end; it != end; ++it) {
    const std::string digits = (*it)[1].str();
    if (digits.size() > 12 || digits[0] == '-') throw FormatError(name + ": .npy shape " + shape_text + " is invalid");
    const int64_t dim = std::stoll(digits);
    arr.shape.push_back(dim);
    if (dim != 0 && count > kMaxNpyElements / dim) {
      throw FormatError(name + ": .npy shape " + shape_text + " exceeds the limit of 2^31 elements");
    }
    count *= dim;
  }
  const size_t need = size_t(count) * size_t(elem);
  if (b.size() - data_start < need) {
    throw FormatError(name + ": .npy data is truncated: shape " + shape_text + " needs " + std::to_string(need) +
                      " bytes, the file has " + std::to_string(b.size() - data_start));
  }
  arr.data.resize(size_t(count));
  if (elem == 4) {
    std::memcpy(arr.data.data(), b.data() + data_start, need);
  } else {
    for (int64_t i = 0; i < count; ++i) {
      double v;
      std::memcpy(&v, b.data() + data_start + size_t(i) * 8, 8);
      arr.data[size_t(i)] = static_cast<float>(v);
    }
  }
  return arr;
}

NpyArray read_npy(const std::string& path) { return parse_npy(read_file(path), path); }

Map read_npy_matrix(const std::string& path) {
  NpyArray a = read_npy(path);
  if (a.shape.size() != 2) {
    throw FormatError(path + ": expected a 2-D float32 array [T, d_model]; got " + std::to_string(a.shape.size()) +
                      " dimensions");
  }
  Map m(a.shape[0], a.shape[1]);
  if (m.size()) std::memcpy(m.data(), a.data.data(), a.data.size() * sizeof(float));
  return m;
}

std::string npy_bytes(const float* data, const std::vector<int64_t>& shape) {
  std::string shape_text = "(";
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    shape_text += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
    count *= shape[i];
  }
  shape_text += ")";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Pad with spaces so magic + length + header + '\n' is a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>((header.size() >> 8) & 0xFF);
  out += header;
  out.append(reinterpret_cast<const char*>(data), size_t(count) * sizeof(float));
  return out;
}

void write_npy(const std::string& path, const float* data, const std::vector<int64_t>& shape) {
  write_file_atomic(path, npy_bytes(data, shape));
}

}  // namespace hs
