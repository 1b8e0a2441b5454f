#include "core/formats/npy.h"

#include <cstring>

#include "core/formats/mapped_file.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr int64_t kMaxNpyElements = int64_t(1) << 31;

uint32_t read_le(std::string_view b, size_t pos, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[pos + size_t(i)]);
  return v;
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
// A small hand-written scanner (linear, no recursion: std::regex overflows the stack on long
// headers). Values are a quoted string, True/False, or a tuple of non-negative integers.
// At most 120 bytes of a header for a message, on one line and printable.
std::string header_excerpt(const std::string& h) {
  std::string out = h.substr(0, 120);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F) c = ' ';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + (h.size() > 120 ? "..." : "");
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

NpyHeader parse_header(const std::string& h, const std::string& name) {
  size_t i = 0;
  const auto bad = [&](const std::string& what) {
    return FormatError(name + ": .npy header is malformed: " + what + " at byte " + std::to_string(i) +
                       " (header: " + header_excerpt(h) + ")");
  };
  const auto skip_ws = [&] {
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i;
  };
  const auto quoted = [&]() -> std::string {
    if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) throw bad("expected a quoted string");
    const char q = h[i++];
    const size_t close = h.find(q, i);
    if (close == std::string::npos) throw bad("unterminated string");
    std::string out = h.substr(i, close - i);
    i = close + 1;
    return out;
  };
  NpyHeader out;
  skip_ws();
  if (i >= h.size() || h[i] != '{') throw bad("expected '{'");
  ++i;
  for (;;) {
    skip_ws();
    if (i < h.size() && h[i] == '}') break;
    const std::string key = quoted();
    skip_ws();
    if (i >= h.size() || h[i] != ':') throw bad("expected ':' after '" + key + "'");
    ++i;
    skip_ws();
    if (key == "descr") {
      out.descr = quoted();
      out.has_descr = true;
    } else if (key == "fortran_order") {
      if (h.compare(i, 4, "True") == 0) { out.fortran_order = true; i += 4; }
      else if (h.compare(i, 5, "False") == 0) { out.fortran_order = false; i += 5; }
      else throw bad("fortran_order must be True or False");
      out.has_order = true;
    } else if (key == "shape") {
      if (i >= h.size() || h[i] != '(') throw bad("shape must be a tuple");
      ++i;
      for (;;) {
        skip_ws();
        if (i < h.size() && h[i] == ')') { ++i; break; }
        const size_t begin = i;
        while (i < h.size() && h[i] >= '0' && h[i] <= '9') ++i;
        if (i == begin) throw bad("shape entries must be non-negative integers");
        if (i - begin > 12) throw FormatError(name + ": .npy shape entry " + h.substr(begin, i - begin) + " is too large");
        out.shape.push_back(std::stoll(h.substr(begin, i - begin)));
        skip_ws();
        if (i < h.size() && h[i] == ',') ++i;
        else if (i >= h.size() || h[i] != ')') throw bad("expected ',' or ')' in shape");
      }
      out.has_shape = true;
    } else {
      throw FormatError(name + ": .npy header has an unexpected key '" + key + "'");
    }
    skip_ws();
    if (i < h.size() && h[i] == ',') { ++i; continue; }
    skip_ws();
    if (i < h.size() && h[i] == '}') break;
    throw bad("expected ',' or '}'");
  }
  const auto require = [&](bool has, const char* key) {
    if (!has) throw FormatError(name + ": .npy header has no '" + key + "' field (header: " + header_excerpt(h) + ")");
  };
  require(out.has_descr, "descr");
  require(out.has_order, "fortran_order");
  require(out.has_shape, "shape");
  return out;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

NpyLayout parse_npy_layout(std::string_view b, const std::string& name) {
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
  if (header_len > kMaxNpyHeaderBytes || data_start > b.size()) {
    throw FormatError(name + ": .npy header length " + std::to_string(header_len) + " exceeds the file size " +
                      std::to_string(b.size()));
  }
  const NpyHeader header = parse_header(std::string(b.substr(size_t(8 + len_bytes), header_len)), name);
  const std::string& descr = header.descr;
  const std::string shape_text = shape_string(header.shape);
  if (header.fortran_order) throw FormatError(name + ": .npy array is Fortran-ordered; expected C order");
  int elem = 0;
  if (descr == "<f4" || descr == "=f4" || descr == "f4") elem = 4;
  else if (descr == "<f8" || descr == "=f8" || descr == "f8") elem = 8;
  else throw FormatError(name + ": .npy dtype '" + descr + "' is not supported; expected float32 ('<f4')");

  NpyLayout layout;
  for (const int64_t dim : header.shape) {
    if (dim != 0 && layout.count > kMaxNpyElements / dim) {
      throw FormatError(name + ": .npy shape " + shape_text + " exceeds the limit of 2^31 elements");
    }
    layout.count *= dim;
  }
  layout.shape = header.shape;
  layout.value_bytes = elem;
  layout.data_offset = data_start;
  return layout;
}

NpyArray parse_npy(std::string_view b, const std::string& name) {
  const NpyLayout layout = parse_npy_layout(b, name);
  const int64_t count = layout.count;
  const int elem = layout.value_bytes;
  const size_t data_start = layout.data_offset;
  NpyArray arr;
  arr.shape = layout.shape;
  const size_t need = size_t(count) * size_t(elem);
  if (b.size() - data_start < need) {
    const std::string shape_text = shape_string(layout.shape);
    throw FormatError(name + ": .npy data is truncated: shape " + shape_text + " needs " + std::to_string(need) +
                      " bytes, the file has " + std::to_string(b.size() - data_start));
  }
  arr.data.resize(size_t(count));
  if (elem == 4 && need > 0) {  // memcpy into an empty vector's null data() is undefined
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

NpyArray read_npy(const std::string& path) {
  const MappedFile f(path);
  return parse_npy(std::string_view(reinterpret_cast<const char*>(f.data()), f.size()), path);
}

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

std::string npy_header(const std::vector<int64_t>& shape) {
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    shape_text += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
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
  return out;
}

std::string npy_bytes(const float* data, const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (const int64_t n : shape) count *= n;
  std::string out = npy_header(shape);
  out.append(reinterpret_cast<const char*>(data), size_t(count) * sizeof(float));
  return out;
}

void write_npy(const std::string& path, const float* data, const std::vector<int64_t>& shape) {
  write_file_atomic(path, npy_bytes(data, shape));
}

}  // namespace hs
