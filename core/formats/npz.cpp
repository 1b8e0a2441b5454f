#include "core/formats/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr size_t kMaxEntries = 1 << 16;

uint64_t le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

NpzFile::NpzFile(const std::string& path) : file_(std::make_shared<MappedFile>(path)) {
  const uint8_t* p = file_->data();
  const uint64_t size = file_->size();
  const auto fail = [&](const std::string& what) { throw FormatError(path + ": not a readable .npz (zip) archive: " + what); };
  // End of central directory: 22 bytes + a comment of up to 65535, at the end of the file.
  if (size < 22) fail("the file has " + std::to_string(size) + " bytes, fewer than a zip's end record (22)");
  int64_t eocd = -1;
  for (int64_t at = int64_t(size) - 22; at >= 0 && at >= int64_t(size) - 22 - 65535; --at)
    if (le(p + at, 4) == kEndOfDirectory && uint64_t(at) + 22 + le(p + at + 20, 2) == size) {
      eocd = at;
      break;
    }
  if (eocd < 0) fail("no end-of-central-directory record");
  const uint8_t* e = p + eocd;
  if (le(e + 4, 2) != 0 || le(e + 6, 2) != 0) fail("multi-disk archives are not supported");
  uint64_t count = le(e + 10, 2), dir_size = le(e + 12, 4), dir_offset = le(e + 16, 4);
  if (count == 0xFFFF || dir_size == 0xFFFFFFFF || dir_offset == 0xFFFFFFFF) {
    // Zip64: the locator sits just before the end record and points at the zip64 end record.
    if (eocd < 20 || le(p + eocd - 20, 4) != kZip64Locator) fail("zip64 sizes without a zip64 end-of-directory locator");
    const uint64_t at = le(p + eocd - 20 + 8, 8);
    if (at > size || size - at < 56 || le(p + at, 4) != kZip64End) fail("the zip64 end-of-directory record is missing");
    count = le(p + at + 32, 8);
    dir_size = le(p + at + 40, 8);
    dir_offset = le(p + at + 48, 8);
  }
  if (count > kMaxEntries) fail(std::to_string(count) + " entries (the limit is " + std::to_string(kMaxEntries) + ")");
  if (dir_offset > size || dir_size > size - dir_offset) fail("the central directory lies outside the file");
  uint64_t at = dir_offset;
  const uint64_t dir_end = dir_offset + dir_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (dir_end - at < 46 || le(p + at, 4) != kCentralHeader) fail("central directory entry " + std::to_string(i) + " is broken");
    const uint8_t* h = p + at;
    const uint64_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    if (dir_end - at - 46 < name_len + extra_len + comment_len) fail("central directory entry " + std::to_string(i) + " is truncated");
    const std::string name(reinterpret_cast<const char*>(h + 46), name_len);
    Entry en;
    const uint64_t flags = le(h + 8, 2);
    en.method = uint16_t(le(h + 10, 2));
    en.crc = uint32_t(le(h + 16, 4));
    en.compressed = le(h + 20, 4);
    en.size = le(h + 24, 4);
    uint64_t local = le(h + 42, 4);
    // Zip64 extra field (id 1): 8-byte values for whichever 32-bit fields are 0xFFFFFFFF, in this order.
    for (const uint8_t* x = h + 46 + name_len; x + 4 <= h + 46 + name_len + extra_len;) {
      const uint64_t id = le(x, 2), len = le(x + 2, 2);
      const uint8_t* body = x + 4;
      if (body + len > h + 46 + name_len + extra_len) fail("entry '" + name + "' has a truncated extra field");
      if (id == 1) {
        const uint8_t* v = body;
        const auto take = [&](uint64_t& field) {
          if (field != 0xFFFFFFFF) return;
          if (v + 8 > body + len) fail("entry '" + name + "' has a short zip64 extra field");
          field = le(v, 8);
          v += 8;
        };
        take(en.size);
        take(en.compressed);
        take(local);
      }
      x = body + len;
    }
    if (flags & 1) fail("entry '" + name + "' is encrypted");
    if (en.method != 0 && en.method != 8) {
      fail("entry '" + name + "' uses compression method " + std::to_string(en.method) + " (stored and deflate are read)");
    }
    if (en.method == 0 && en.compressed != en.size) fail("stored entry '" + name + "' has different sizes");
    if (local > size || size - local < 30 || le(p + local, 4) != kLocalHeader) fail("entry '" + name + "' has no local header");
    en.data = local + 30 + le(p + local + 26, 2) + le(p + local + 28, 2);
    if (en.data > size || en.compressed > size - en.data) fail("entry '" + name + "' runs past the end of the file");
    if (ends_with(name, ".npy")) {
      const std::string array = name.substr(0, name.size() - 4);
      if (!entries_.emplace(array, en).second) fail("two entries are named '" + name + "'");
      names_.push_back(array);
    }
    at += 46 + name_len + extra_len + comment_len;
  }
}

const NpzFile::Entry& NpzFile::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string have;
    for (size_t i = 0; i < names_.size() && i < 8; ++i) have += (i ? ", " : "") + names_[i];
    if (names_.size() > 8) have += ", ...";
    throw FormatError(path() + ": no array '" + name + "' (the archive has: " + (have.empty() ? "none" : have) + ")");
  }
  return it->second;
}

uint64_t NpzFile::array_bytes(const std::string& name) const { return entry(name).size; }

std::string NpzFile::bytes(const std::string& name, const Entry& e, uint64_t most) const {
  const std::string where = path() + ": array '" + name + "'";
  const uint8_t* src = file_->data() + e.data;
  const bool whole = most >= e.size;
  std::string out;
  // Room for what the entry can inflate to: deflate makes at most 1032 bytes of each byte.
  out.reserve(size_t(std::min({most, e.size, e.compressed * 1032 + 64})));
  if (e.method == 0) {
    out.assign(reinterpret_cast<const char*>(src), size_t(std::min(most, e.size)));
  } else {
    // Raw deflate (no zlib header), inflated a block at a time, never past the declared size.
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw FormatError(where + ": zlib could not start inflating");
    uint64_t consumed = 0;
    int status = Z_OK;
    std::vector<unsigned char> block(1 << 16);
    while (status != Z_STREAM_END && (whole || out.size() < most)) {
      const uInt in = uInt(std::min<uint64_t>(e.compressed - consumed, 1u << 30));
      z.next_in = const_cast<Bytef*>(src + consumed);
      z.avail_in = in;
      z.next_out = block.data();
      z.avail_out = uInt(block.size());
      status = inflate(&z, Z_NO_FLUSH);
      consumed += in - z.avail_in;
      const size_t produced = block.size() - z.avail_out;
      if (status == Z_BUF_ERROR || (status == Z_OK && produced == 0 && consumed == e.compressed)) {
        inflateEnd(&z);
        throw FormatError(where + ": the deflated data ends early");
      }
      if (status != Z_OK && status != Z_STREAM_END) {
        const std::string why = z.msg ? z.msg : "error " + std::to_string(status);
        inflateEnd(&z);
        throw FormatError(where + ": the deflated data is corrupt (zlib: " + why + ")");
      }
      if (out.size() + produced > e.size) {
        inflateEnd(&z);
        throw FormatError(where + ": inflates to more than its declared " + std::to_string(e.size) + " bytes");
      }
      out.append(reinterpret_cast<const char*>(block.data()), produced);
    }
    inflateEnd(&z);
    if (!whole) {
      out.resize(std::min<size_t>(out.size(), size_t(most)));
      return out;
    }
    if (out.size() != e.size) {
      throw FormatError(where + ": inflates to " + std::to_string(out.size()) + " bytes; the directory says " +
                        std::to_string(e.size));
    }
  }
  if (!whole) return out;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t off = 0; off < out.size(); off += 1u << 30)
    crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data() + off), uInt(std::min<size_t>(out.size() - off, 1u << 30)));
  if (uint32_t(crc) != e.crc) throw FormatError(where + ": CRC-32 mismatch (the archive is damaged)");
  return out;
}

NpyLayout NpzFile::layout(const std::string& name) const {
  const Entry& e = entry(name);
  const std::string where = path() + ": array '" + name + "'";
  const NpyLayout layout = parse_npy_layout(bytes(name, e, 12 + kMaxNpyHeaderBytes), where);
  if (layout.file_bytes() != e.size) {
    std::string shape;
    for (size_t i = 0; i < layout.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(layout.shape[i]);
    throw FormatError(where + " declares " + std::to_string(e.size) + " bytes once inflated, but its .npy header (shape [" +
                      shape + "], " + (layout.value_bytes == 4 ? "float32" : "float64") + ") needs " +
                      std::to_string(layout.file_bytes()));
  }
  return layout;
}

NpyArray NpzFile::array(const std::string& name) const {
  const Entry& e = entry(name);
  layout(name);  // the declared size is what the header's shape needs (at most 2^31 values)
  return parse_npy(bytes(name, e, e.size), path() + ": array '" + name + "'");
}

}  // namespace hs
