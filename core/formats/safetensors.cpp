#include "core/formats/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/formats/json_strict.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/finite.h"
#include "core/util/format.h"

namespace hs {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // as the reference implementation

DType parse_dtype(const std::string& s, const std::string& where) {
  static const std::pair<const char*, DType> kTable[] = {
      {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16}, {"F64", DType::F64}, {"I64", DType::I64},
      {"I32", DType::I32}, {"I16", DType::I16}, {"I8", DType::I8},     {"U8", DType::U8},   {"BOOL", DType::BOOL}};
  for (const auto& [name, t] : kTable)
    if (s == name) return t;
  throw FormatError(where + " has dtype '" + excerpt(s) + "', which headscope does not read (quantized formats are not supported; expected F32, F16 or BF16)");
}

}  // namespace

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F64: return "F64";
    case DType::I64: return "I64";
    case DType::I32: return "I32";
    case DType::I16: return "I16";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::BOOL: return "BOOL";
  }
  return "?";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F64: case DType::I64: return 8;
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: return 2;
    default: return 1;
  }
}

int64_t TensorInfo::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorInfo::shape_text() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400u)) { mant <<= 1; --exp; }
      mant &= 0x3FFu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
  const uint8_t* p = file_->data();
  const size_t size = file_->size();
  if (size < 8) throw FormatError(path + ": not a safetensors file (" + std::to_string(size) + " bytes; the 8-byte header length is missing)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | p[i];
  if (n > kMaxHeaderBytes || n > size - 8) {
    throw FormatError(path + ": safetensors header length " + std::to_string(n) + " exceeds " +
                      (n > kMaxHeaderBytes ? "the 100 MiB limit" : "the file size " + std::to_string(size)));
  }
  // A tensor named twice is refused (nlohmann alone keeps the last one silently).
  const nlohmann::json header = parse_json_strict(reinterpret_cast<const char*>(p + 8),
                                                  reinterpret_cast<const char*>(p + 8 + n), path + ": safetensors header");
  if (!header.is_object()) throw FormatError(path + ": safetensors header is not a JSON object");
  const size_t data_start = 8 + n;
  const size_t data_size = size - data_start;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> ranges;  // data_offsets and the tensor
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") {
      if (it->is_object())
        for (auto m = it->begin(); m != it->end(); ++m)
          if (m->is_string()) metadata_[m.key()] = m->get<std::string>();
      continue;
    }
    const std::string where = path + ": tensor '" + excerpt(name) + "'";
    const auto& t = it.value();
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets") ||
        !t["dtype"].is_string() || !t["shape"].is_array() || !t["data_offsets"].is_array() || t["data_offsets"].size() != 2) {
      throw FormatError(where + " must have a string dtype, a shape list and two data_offsets");
    }
    TensorInfo info;
    info.name = name;
    info.dtype = parse_dtype(t["dtype"].get<std::string>(), where);
    int64_t count = 1;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_unsigned()) throw FormatError(where + " has a shape entry that is not a non-negative integer");
      const uint64_t dim = d.get<uint64_t>();
      if (dim > (uint64_t(1) << 40) || (dim != 0 && uint64_t(count) > (uint64_t(1) << 40) / dim)) {
        throw FormatError(where + " has an impossibly large shape");
      }
      info.shape.push_back(int64_t(dim));
      count *= int64_t(dim);
    }
    const auto& off = t["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      throw FormatError(where + " has data_offsets that are not non-negative integers");
    const uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    if (b > e || e > data_size) {
      throw FormatError(where + " has data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                        "] outside the data section of " + std::to_string(data_size) + " bytes");
    }
    const uint64_t expected = uint64_t(count) * dtype_size(info.dtype);
    if (e - b != expected) {
      throw FormatError(where + " " + info.shape_text() + " " + dtype_name(info.dtype) + " needs " +
                        std::to_string(expected) + " bytes; its data_offsets span " + std::to_string(e - b));
    }
    info.begin = data_start + b;
    info.end = data_start + e;
    ranges.emplace_back(b, e, name);
    tensors_[name] = std::move(info);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    const auto& [b0, e0, n0] = ranges[i - 1];
    const auto& [b1, e1, n1] = ranges[i];
    if (b1 < e0) {
      throw FormatError(path + ": tensors '" + excerpt(n0) + "' [" + std::to_string(b0) + ", " + std::to_string(e0) + "] and '" + excerpt(n1) +
                        "' [" + std::to_string(b1) + ", " + std::to_string(e1) + "] have overlapping data_offsets");
    }
  }
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    std::string have;
    int shown = 0;
    for (const auto& [n, _] : tensors_) {
      if (shown++ == 6) { have += ", ..."; break; }
      have += (have.empty() ? "" : ", ") + excerpt(n);
    }
    throw FormatError(path() + ": tensor '" + name + "' is missing (the file has: " + (have.empty() ? "none" : have) + ")");
  }
  return it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  for (const auto& [n, _] : tensors_) out.push_back(n);
  return out;
}

std::vector<float> SafetensorsFile::floats(const std::string& name) const {
  const TensorInfo& t = info(name);
  const uint8_t* src = file_->data() + t.begin;
  const size_t n = size_t(t.elements());
  std::vector<float> out(n);
  switch (t.dtype) {
    case DType::F32: if (n) std::memcpy(out.data(), src, n * 4); break;  // no memcpy to null
    case DType::F16:
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, src + 2 * i, 2);
        out[i] = t.dtype == DType::F16 ? half_to_float(h) : bf16_to_float(h);
      }
      break;
    default:
      throw FormatError(path() + ": tensor '" + name + "' has dtype " + dtype_name(t.dtype) + "; expected F32, F16 or BF16");
  }
  if (const int64_t i = first_non_finite(out.data(), int64_t(n)); i >= 0) {
    throw FormatError(path() + ": tensor '" + name + "' " + t.shape_text() + " has " + non_finite_name(out[size_t(i)]) +
                      " at " + element_text(i, t.shape) + "; weights must be finite numbers");
  }
  return out;
}

Map SafetensorsFile::matrix(const std::string& name, int64_t rows, int64_t cols) const {
  const TensorInfo& t = info(name);
  if (t.shape.size() != 2 || t.shape[0] != rows || t.shape[1] != cols) {
    throw FormatError(path() + ": tensor '" + name + "' has shape " + t.shape_text() + "; expected [" +
                      std::to_string(rows) + ", " + std::to_string(cols) + "]");
  }
  const std::vector<float> v = floats(name);
  Map m(rows, cols);
  if (m.size()) std::memcpy(m.data(), v.data(), v.size() * sizeof(float));
  return m;
}

Vec SafetensorsFile::vector(const std::string& name, int64_t size) const {
  const TensorInfo& t = info(name);
  if (t.shape.size() != 1 || t.shape[0] != size) {
    throw FormatError(path() + ": tensor '" + name + "' has shape " + t.shape_text() + "; expected [" + std::to_string(size) + "]");
  }
  const std::vector<float> v = floats(name);
  Vec out(size);
  if (size) std::memcpy(out.data(), v.data(), v.size() * sizeof(float));
  return out;
}

void write_safetensors(const std::string& path,
                       const std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const size_t bytes = t.second.size() * sizeof(float);
    header[name] = {{"dtype", "F32"}, {"shape", t.first}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  write_file_atomic(path, [&](std::ostream& out) {
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
    out << h;
    for (const auto& [name, t] : tensors) out.write(reinterpret_cast<const char*>(t.second.data()), std::streamsize(t.second.size() * sizeof(float)));
  });
}

}  // namespace hs
