// Sections, in order: helpers (sizes, little-endian loads, quoting), GgufValue, GgufTensor,
// parsing (GgufParser: header, key/values, tensor infos, bounds), GgufFile (typed getters,
// tensors, dequantizing).
#include "core/formats/gguf.h"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

constexpr uint32_t kTypeCount = 13;   // GgufType values 0 .. 12
constexpr int kMaxArrayDepth = 4;     // arrays of arrays of ... (the format allows nesting; files use 1)
constexpr uint64_t kMaxNestedArrays = uint64_t(1) << 20;  // each costs a GgufValue (~100 bytes) for 12 file bytes
constexpr uint32_t kMaxDims = 4;      // GGML_MAX_DIMS
constexpr uint64_t kDefaultAlignment = 32;

size_t scalar_size(GgufType t) {
  switch (t) {
    case GgufType::u8: case GgufType::i8: case GgufType::boolean: return 1;
    case GgufType::u16: case GgufType::i16: return 2;
    case GgufType::u32: case GgufType::i32: case GgufType::f32: return 4;
    case GgufType::u64: case GgufType::i64: case GgufType::f64: return 8;
    default: return 0;  // string, array: variable
  }
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string quoted_excerpt(std::string_view s) {
  std::string text = utf8_repair(s);
  if (utf8_length(text) > 48) text = utf8_prefix(text, 48) + "...";
  return "'" + text + "'";
}

std::string hex_bytes(const uint8_t* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02X", p[i]);
    out += (i ? " " : "") + std::string(b);
  }
  return out;
}

}  // namespace

const char* gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::u8: return "uint8";
    case GgufType::i8: return "int8";
    case GgufType::u16: return "uint16";
    case GgufType::i16: return "int16";
    case GgufType::u32: return "uint32";
    case GgufType::i32: return "int32";
    case GgufType::f32: return "float32";
    case GgufType::boolean: return "bool";
    case GgufType::string: return "string";
    case GgufType::array: return "array";
    case GgufType::u64: return "uint64";
    case GgufType::i64: return "int64";
    case GgufType::f64: return "float64";
  }
  return "?";
}

// ---- GgufValue ------------------------------------------------------------------------------

bool GgufValue::is_integer() const {
  switch (element_type_) {
    case GgufType::u8: case GgufType::i8: case GgufType::u16: case GgufType::i16:
    case GgufType::u32: case GgufType::i32: case GgufType::u64: case GgufType::i64: return true;
    default: return false;
  }
}

bool GgufValue::is_float() const { return element_type_ == GgufType::f32 || element_type_ == GgufType::f64; }

bool GgufValue::int_at(uint64_t i, int64_t& out) const {
  assert(i < count_ && data_ && is_integer());
  const uint8_t* p = data_ + i * scalar_size(element_type_);
  switch (element_type_) {
    case GgufType::u8: out = load<uint8_t>(p); return true;
    case GgufType::i8: out = load<int8_t>(p); return true;
    case GgufType::u16: out = load<uint16_t>(p); return true;
    case GgufType::i16: out = load<int16_t>(p); return true;
    case GgufType::u32: out = load<uint32_t>(p); return true;
    case GgufType::i32: out = load<int32_t>(p); return true;
    case GgufType::i64: out = load<int64_t>(p); return true;
    case GgufType::u64: {
      const uint64_t u = load<uint64_t>(p);
      if (u > uint64_t(std::numeric_limits<int64_t>::max())) return false;
      out = int64_t(u);
      return true;
    }
    default: return false;
  }
}

double GgufValue::float_at(uint64_t i) const {
  assert(i < count_ && data_);
  if (element_type_ == GgufType::f32) return load<float>(data_ + 4 * i);
  if (element_type_ == GgufType::f64) return load<double>(data_ + 8 * i);
  if (element_type_ == GgufType::u64) return double(load<uint64_t>(data_ + 8 * i));
  int64_t v = 0;
  int_at(i, v);
  return double(v);
}

bool GgufValue::bool_at(uint64_t i) const {
  assert(i < count_ && data_ && element_type_ == GgufType::boolean);
  return data_[i] != 0;
}

std::string_view GgufValue::string_at(uint64_t i) const {
  assert(i < strings_.size());
  const uint8_t* p = strings_[size_t(i)];
  return std::string_view(reinterpret_cast<const char*>(p + 8), size_t(load<uint64_t>(p)));
}

const GgufValue& GgufValue::array_at(uint64_t i) const {
  assert(i < arrays_.size());
  return arrays_[size_t(i)];
}

std::string GgufValue::type_text() const {
  if (!is_array()) return gguf_type_name(type_);
  return "array of " + std::to_string(count_) + " " + gguf_type_name(element_type_);
}

std::string GgufValue::text(size_t max_elements) const {
  auto element = [&](uint64_t i) -> std::string {
    switch (element_type_) {
      case GgufType::string: return quoted_excerpt(string_at(i));
      case GgufType::array: return arrays_[size_t(i)].text(max_elements);
      case GgufType::boolean: return bool_at(i) ? "true" : "false";
      case GgufType::f32: case GgufType::f64: {
        char b[32];
        std::snprintf(b, sizeof b, "%.9g", float_at(i));
        return b;
      }
      case GgufType::u64: return std::to_string(load<uint64_t>(data_ + 8 * i));
      default: {
        int64_t v = 0;
        int_at(i, v);
        return std::to_string(v);
      }
    }
  };
  if (!is_array()) return element(0);
  std::string out = "[";
  for (uint64_t i = 0; i < count_; ++i) {
    if (i == max_elements) {
      out += ", ... (" + std::to_string(count_) + " in all)";
      break;
    }
    out += (i ? ", " : "") + element(i);
  }
  return out + "]";
}

// ---- GgufTensor -----------------------------------------------------------------------------

int64_t GgufTensor::rows() const {
  int64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

int64_t GgufTensor::elements() const { return row_length() * rows(); }

size_t GgufTensor::row_bytes() const {
  const GgmlTypeInfo& info = ggml_type_info(type);
  return size_t(row_length() / info.block_size) * size_t(info.block_bytes);
}

std::string GgufTensor::dims_text() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// ---- parsing --------------------------------------------------------------------------------

struct GgufParser {
  GgufFile& f;
  const std::string& path;
  const uint8_t* base;
  size_t size;
  size_t pos = 0;
  uint64_t nested_arrays = 0;

  [[noreturn]] void fail(const std::string& what) const { throw FormatError(path + ": " + what); }

  size_t left() const { return size - pos; }

  void need(uint64_t bytes, const std::string& what) const {
    if (bytes > left()) {
      fail("truncated at byte " + std::to_string(pos) + " while reading " + what + " (" + std::to_string(bytes) +
           " bytes needed, " + std::to_string(left()) + " left in the file of " + std::to_string(size) + " bytes)");
    }
  }

  uint32_t u32(const std::string& what) {
    need(4, what);
    const uint32_t v = load<uint32_t>(base + pos);
    pos += 4;
    return v;
  }

  uint64_t u64(const std::string& what) {
    need(8, what);
    const uint64_t v = load<uint64_t>(base + pos);
    pos += 8;
    return v;
  }

  // A string; returns a pointer to its length field.
  const uint8_t* string(const std::string& what) {
    const uint8_t* at = base + pos;
    const uint64_t n = u64(what + " length");
    if (n > left()) {
      fail(what + " has length " + std::to_string(n) + ", more than the " + std::to_string(left()) +
           " bytes left in the file (at byte " + std::to_string(pos - 8) + ")");
    }
    pos += size_t(n);
    return at;
  }

  GgufType value_type(const std::string& what) {
    const size_t at = pos;
    const uint32_t t = u32(what);
    if (t >= kTypeCount) {
      fail(what + " is " + std::to_string(t) + " (at byte " + std::to_string(at) +
           "); expected a GGUF value type 0..12 (uint8 .. float64)");
    }
    return static_cast<GgufType>(t);
  }

  void scalar(GgufValue& v, GgufType t, const std::string& where) {
    v.element_type_ = t;
    if (t == GgufType::string) {
      v.strings_.push_back(string(where));
      return;
    }
    const size_t n = scalar_size(t);
    need(n, where);
    v.data_ = base + pos;
    if (t == GgufType::boolean && base[pos] > 1) {
      fail(where + " is a bool stored as " + std::to_string(base[pos]) + "; expected 0 or 1");
    }
    pos += n;
  }

  // The body of an array value (element type, count, elements).
  void array(GgufValue& v, const std::string& where, int depth) {
    if (depth > kMaxArrayDepth) fail(where + " nests arrays deeper than " + std::to_string(kMaxArrayDepth) + " levels");
    const GgufType et = value_type(where + " element type");
    const uint64_t count = u64(where + " element count");
    v.type_ = GgufType::array;
    v.element_type_ = et;
    v.count_ = count;
    // Smallest encoding of one element: a scalar's size, a string's length field, an array's
    // type and count. Checked before anything is reserved, so a bogus count cannot allocate.
    const size_t min_bytes = et == GgufType::string ? 8 : et == GgufType::array ? 12 : scalar_size(et);
    if (count > left() / min_bytes) {
      fail(where + " claims " + std::to_string(count) + " " + gguf_type_name(et) + " elements, but only " +
           std::to_string(left()) + " bytes are left (at least " + std::to_string(min_bytes) + " per element)");
    }
    if (et == GgufType::string) {
      // A vocabulary has 150k-260k strings: the name of an element is only made for its error.
      v.strings_.reserve(size_t(count));
      for (uint64_t i = 0; i < count; ++i) {
        if (left() >= 8 && load<uint64_t>(base + pos) <= left() - 8) {
          v.strings_.push_back(base + pos);
          pos += 8 + size_t(load<uint64_t>(base + pos));
        } else {
          string(where + "[" + std::to_string(i) + "]");  // throws, naming the element
        }
      }
    } else if (et == GgufType::array) {
      nested_arrays += count;
      if (nested_arrays > kMaxNestedArrays) {
        fail(where + " brings the file's arrays of arrays to more than " + std::to_string(kMaxNestedArrays) + " elements");
      }
      v.arrays_.resize(size_t(count));
      for (uint64_t i = 0; i < count; ++i) array(v.arrays_[size_t(i)], where + "[" + std::to_string(i) + "]", depth + 1);
    } else {
      v.data_ = base + pos;
      if (et == GgufType::boolean) {
        for (uint64_t i = 0; i < count; ++i)
          if (base[pos + i] > 1) {
            fail(where + "[" + std::to_string(i) + "] is a bool stored as " + std::to_string(base[pos + i]) + "; expected 0 or 1");
          }
      }
      pos += size_t(count) * min_bytes;
    }
  }

  void parse() {
    if (size < 4) fail("not a GGUF file (" + std::to_string(size) + " bytes; a GGUF file starts with \"GGUF\")");
    if (std::memcmp(base, "GGUF", 4) != 0) {
      fail("not a GGUF file (it starts with bytes " + hex_bytes(base, 4) + "; a GGUF file starts with \"GGUF\", 47 47 55 46)");
    }
    pos = 4;
    const uint32_t version = u32("the version");
    const uint32_t swapped = __builtin_bswap32(version);
    if (version == 1) {
      fail("GGUF version 1 is not supported (it stored 32-bit counts and lengths; convert the model again with a "
           "current llama.cpp); expected version 2 or 3");
    }
    if (version != 2 && version != 3) {
      if (swapped >= 1 && swapped <= 3) {
        fail("a big-endian GGUF file (its version field reads " + std::to_string(version) + ", byte-swapped " +
             std::to_string(swapped) + "); headscope reads little-endian GGUF files");
      }
      fail("GGUF version " + std::to_string(version) + " is not supported; expected version 2 or 3");
    }
    f.version_ = version;
    const uint64_t tensor_count = u64("the tensor count");
    const uint64_t kv_count = u64("the metadata count");
    // Smallest encodings: a key/value is a key length, a type and a one-byte value (13 bytes);
    // a tensor info is a name length, n_dims, type and offset (24 bytes).
    if (kv_count > left() / 13) {
      fail("metadata count " + std::to_string(kv_count) + " cannot fit in the " + std::to_string(left()) +
           " bytes after the header (each entry takes at least 13)");
    }
    if (tensor_count > left() / 24) {
      fail("tensor count " + std::to_string(tensor_count) + " cannot fit in the " + std::to_string(left()) +
           " bytes after the header (each tensor info takes at least 24)");
    }
    for (uint64_t i = 0; i < kv_count; ++i) {
      const uint8_t* key_at = string("metadata key " + std::to_string(i));
      const std::string key(reinterpret_cast<const char*>(key_at + 8), size_t(load<uint64_t>(key_at)));
      const std::string where = "metadata " + quoted_excerpt(key);
      if (f.values_.count(key)) fail(where + " appears twice (entries " + std::to_string(i) + " and an earlier one)");
      const GgufType t = value_type(where + " value type");
      GgufValue v;
      v.type_ = t;
      if (t == GgufType::array) array(v, where, 1);
      else scalar(v, t, where);
      f.keys_.push_back(key);
      f.values_.emplace(key, std::move(v));
    }
    read_alignment();
    for (uint64_t i = 0; i < tensor_count; ++i) tensor_info(i);
    // The data section starts at the next multiple of the alignment.
    const uint64_t data_offset = (uint64_t(pos) + f.alignment_ - 1) / f.alignment_ * f.alignment_;
    f.data_offset_ = data_offset;
    const uint64_t data_size = data_offset < size ? size - data_offset : 0;
    for (const GgufTensor& t : f.tensors_) check_tensor_data(t, data_size);
    check_overlaps();
  }

  void read_alignment() {
    const GgufValue* a = f.find("general.alignment");
    if (!a) return;
    int64_t v = 0;
    if (a->type() != GgufType::u32 || !a->int_at(0, v)) {
      fail("metadata 'general.alignment' is " + a->type_text() + "; expected uint32");
    }
    if (v == 0 || (v & (v - 1)) != 0) {
      fail("metadata 'general.alignment' is " + std::to_string(v) + "; expected a power of two (default " +
           std::to_string(kDefaultAlignment) + ")");
    }
    f.alignment_ = uint64_t(v);
  }

  void tensor_info(uint64_t index) {
    const uint8_t* name_at = string("the name of tensor " + std::to_string(index));
    GgufTensor t;
    t.name.assign(reinterpret_cast<const char*>(name_at + 8), size_t(load<uint64_t>(name_at)));
    const std::string where = "tensor " + quoted_excerpt(t.name);
    if (f.tensor_index_.count(t.name)) fail(where + " appears twice (tensor " + std::to_string(index) + ")");
    const uint32_t n_dims = u32(where + " dimension count");
    if (n_dims > kMaxDims) {
      fail(where + " has " + std::to_string(n_dims) + " dimensions; GGML tensors have at most " + std::to_string(kMaxDims));
    }
    // Each size, and the product of the non-zero ones (so rows() cannot overflow even when
    // another size is 0), must stay far from overflow: the bytes are checked against the file
    // below, so anything above 2^62 is certainly wrong.
    constexpr uint64_t kMaxElements = uint64_t(1) << 62;
    uint64_t product = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t ne = u64(where + " size " + std::to_string(d));
      if (ne > kMaxElements || (ne != 0 && product > kMaxElements / ne)) {
        fail(where + " has size " + std::to_string(ne) + " in dimension " + std::to_string(d) +
             ", which makes the tensor impossibly large (more than 2^62 values)");
      }
      product *= std::max<uint64_t>(ne, 1);
      t.dims.push_back(int64_t(ne));
    }
    const size_t type_at = pos;
    const uint32_t type_id = u32(where + " type");
    const GgmlTypeInfo* info = ggml_type_info(type_id);
    if (!info) {
      fail(where + " has type id " + std::to_string(type_id) + " (at byte " + std::to_string(type_at) +
           "), which is not a GGML type (known ids are 0..41)");
    }
    if (info->block_size == 0) {
      fail(where + " has type " + info->name + " (id " + std::to_string(type_id) +
           "), which GGML removed; convert the model again with a current llama.cpp");
    }
    t.type = static_cast<GgmlType>(type_id);
    if (t.row_length() % info->block_size != 0) {
      fail(where + " " + t.dims_text() + " has rows of " + std::to_string(t.row_length()) + " values; " + info->name +
           " stores blocks of " + std::to_string(info->block_size) + ", so ne[0] must be a multiple of it");
    }
    const uint64_t row_bytes = uint64_t(t.row_length() / info->block_size) * uint64_t(info->block_bytes);
    const uint64_t rows = uint64_t(t.rows());
    if (row_bytes != 0 && rows > uint64_t(size) / row_bytes) {
      fail(where + " " + t.dims_text() + " " + info->name + " needs " + std::to_string(rows) + " rows of " +
           std::to_string(row_bytes) + " bytes, more than the whole file (" + std::to_string(size) + " bytes)");
    }
    t.bytes = size_t(rows * row_bytes);
    t.offset = u64(where + " offset");
    f.tensor_index_.emplace(t.name, f.tensors_.size());
    f.tensors_.push_back(std::move(t));
  }

  void check_tensor_data(const GgufTensor& t, uint64_t data_size) const {
    const std::string where = "tensor " + quoted_excerpt(t.name) + " " + t.dims_text() + " " + ggml_type_name(t.type);
    if (t.offset % f.alignment_ != 0) {
      fail(where + " has offset " + std::to_string(t.offset) + ", not a multiple of the alignment " +
           std::to_string(f.alignment_));
    }
    if (t.offset > data_size || t.bytes > data_size - t.offset) {
      fail(where + " needs bytes [" + std::to_string(t.offset) + ", " + std::to_string(t.offset + t.bytes) +
           ") of the data section, which has " + std::to_string(data_size) + " bytes (is the file truncated?)");
    }
  }

  void check_overlaps() const {
    std::vector<const GgufTensor*> sorted;
    for (const GgufTensor& t : f.tensors_)
      if (t.bytes > 0) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < sorted.size(); ++i) {
      const GgufTensor& a = *sorted[i - 1];
      const GgufTensor& b = *sorted[i];
      if (b.offset < a.offset + a.bytes) {
        fail("tensors " + quoted_excerpt(a.name) + " [" + std::to_string(a.offset) + ", " + std::to_string(a.offset + a.bytes) +
             ") and " + quoted_excerpt(b.name) + " [" + std::to_string(b.offset) + ", " + std::to_string(b.offset + b.bytes) +
             ") overlap in the data section");
      }
    }
  }
};

// ---- GgufFile -------------------------------------------------------------------------------

GgufFile::GgufFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
  static const uint8_t kEmpty[1] = {0};
  GgufParser parser{*this, file_->path(), file_->data() ? file_->data() : kEmpty, file_->size()};
  parser.parse();
}

const GgufValue* GgufFile::find(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

const GgufValue& GgufFile::value(const std::string& key) const {
  const GgufValue* v = find(key);
  if (!v) throw FormatError(path() + ": metadata " + quoted_excerpt(key) + " is missing");
  return *v;
}

void GgufFile::type_error(const std::string& key, const GgufValue& v, const char* expected) const {
  throw FormatError(path() + ": metadata " + quoted_excerpt(key) + " is " + v.type_text() + " " + v.text(4) + "; expected " + expected);
}

std::string GgufFile::get_string(const std::string& key) const {
  const GgufValue& v = value(key);
  if (v.type() != GgufType::string) type_error(key, v, "a string");
  return std::string(v.string_at(0));
}

int64_t GgufFile::get_int(const std::string& key) const {
  const GgufValue& v = value(key);
  int64_t out = 0;
  if (v.is_array() || !v.is_integer()) type_error(key, v, "an integer");
  if (!v.int_at(0, out)) type_error(key, v, "an integer below 2^63");
  return out;
}

double GgufFile::get_float(const std::string& key) const {
  const GgufValue& v = value(key);
  if (v.is_array() || !(v.is_float() || v.is_integer())) type_error(key, v, "a number");
  return v.float_at(0);
}

bool GgufFile::get_bool(const std::string& key) const {
  const GgufValue& v = value(key);
  if (v.type() != GgufType::boolean) type_error(key, v, "a bool");
  return v.bool_at(0);
}

const GgufValue& GgufFile::string_array(const std::string& key) const {
  const GgufValue& v = value(key);
  if (!v.is_array() || v.element_type() != GgufType::string) type_error(key, v, "an array of strings");
  return v;
}

std::vector<std::string> GgufFile::get_string_array(const std::string& key) const {
  const GgufValue& v = string_array(key);
  std::vector<std::string> out;
  out.reserve(size_t(v.size()));
  for (uint64_t i = 0; i < v.size(); ++i) out.emplace_back(v.string_at(i));
  return out;
}

std::vector<int64_t> GgufFile::get_int_array(const std::string& key) const {
  const GgufValue& v = value(key);
  if (!v.is_array() || !v.is_integer()) type_error(key, v, "an array of integers");
  std::vector<int64_t> out(size_t(v.size()));
  for (uint64_t i = 0; i < v.size(); ++i)
    if (!v.int_at(i, out[size_t(i)])) {
      throw FormatError(path() + ": metadata " + quoted_excerpt(key) + "[" + std::to_string(i) + "] does not fit a signed 64-bit integer");
    }
  return out;
}

std::vector<double> GgufFile::get_float_array(const std::string& key) const {
  const GgufValue& v = value(key);
  if (!v.is_array() || !(v.is_float() || v.is_integer())) type_error(key, v, "an array of numbers");
  std::vector<double> out(size_t(v.size()));
  for (uint64_t i = 0; i < v.size(); ++i) out[size_t(i)] = v.float_at(i);
  return out;
}

std::string GgufFile::get_string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? get_string(key) : fallback;
}
int64_t GgufFile::get_int_or(const std::string& key, int64_t fallback) const { return has(key) ? get_int(key) : fallback; }
double GgufFile::get_float_or(const std::string& key, double fallback) const { return has(key) ? get_float(key) : fallback; }
bool GgufFile::get_bool_or(const std::string& key, bool fallback) const { return has(key) ? get_bool(key) : fallback; }

const GgufTensor* GgufFile::find_tensor(const std::string& name) const {
  const auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const GgufTensor& GgufFile::tensor(const std::string& name) const {
  if (const GgufTensor* t = find_tensor(name)) return *t;
  std::string have;
  for (size_t i = 0; i < tensors_.size() && i < 6; ++i) have += (i ? ", " : "") + tensors_[i].name;
  if (tensors_.size() > 6) have += ", ...";
  throw FormatError(path() + ": tensor " + quoted_excerpt(name) + " is missing (the file has " + std::to_string(tensors_.size()) +
                    " tensors" + (have.empty() ? "" : ": " + have) + ")");
}

void GgufFile::require_dequantizable(const GgufTensor& t) const {
  if (!ggml_type_info(t.type).dequantizable) {
    throw FormatError(path() + ": tensor " + quoted_excerpt(t.name) + " " + t.dims_text() + " has type " + ggml_type_name(t.type) +
                      ", which headscope cannot read (it reads " + ggml_dequantizable_names() + ")");
  }
}

void GgufFile::dequantize_rows(const GgufTensor& t, int64_t first, int64_t count, float* dst) const {
  require_dequantizable(t);
  assert(first >= 0 && count >= 0 && first + count <= t.rows() && "rows inside the tensor");
  if (count == 0 || t.row_length() == 0) return;
  dequantize_row(t.type, tensor_data(t) + size_t(first) * t.row_bytes(), dst, count * t.row_length());
}

std::vector<float> GgufFile::dequantize(const GgufTensor& t) const {
  require_dequantizable(t);
  std::vector<float> out(size_t(t.elements()));
  dequantize_rows(t, 0, t.rows(), out.data());
  return out;
}

}  // namespace hs
