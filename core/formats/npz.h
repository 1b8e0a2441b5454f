#pragma once
// NumPy .npz archives: a zip file with one .npy entry per array ("name.npy"). numpy.savez stores
// the entries (method 0), numpy.savez_compressed deflates them (method 8, read with zlib); both
// write zip64 extra fields, which are read. The central directory is validated on open (entry
// offsets and sizes inside the file, names); an entry's bytes are checked against its CRC-32
// when read. Encrypted entries, multi-disk archives and other methods are a FormatError.
// Nothing is inflated on trust: the shape comes from the entry's .npy header alone, and an entry
// is inflated whole only when the size its directory declares is what that header's shape needs
// (a 6 MB archive declaring 6 GiB of zeros is refused before inflating; its maps are then checked
// against the memory limit by the caller).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/mapped_file.h"
#include "core/formats/npy.h"

namespace hs {

class NpzFile {
 public:
  // Throws IoError (cannot open) or FormatError (naming the file and what is wrong).
  explicit NpzFile(const std::string& path);

  const std::string& path() const { return file_->path(); }
  // Array names in archive order: entry names without ".npy".
  const std::vector<std::string>& names() const { return names_; }
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  // The array's .npy header (shape, dtype), inflating only the header; FormatError when it is
  // broken or the size the directory declares is not what the shape needs.
  NpyLayout layout(const std::string& name) const;
  // The array `name` (parse_npy: float32 or float64 as float32), checked as layout() first;
  // FormatError if missing or broken.
  NpyArray array(const std::string& name) const;
  // Bytes the array's .npy entry holds once inflated (from the directory; nothing is read).
  uint64_t array_bytes(const std::string& name) const;

 private:
  struct Entry {
    uint16_t method = 0;        // 0 stored, 8 deflate
    uint32_t crc = 0;
    uint64_t compressed = 0;    // bytes in the archive
    uint64_t size = 0;          // bytes once inflated
    uint64_t data = 0;          // offset of the entry's bytes in the file
  };
  // The entry's first `most` bytes, inflated; all of them (checked against the declared size and
  // the CRC-32) when most >= e.size. Callers check e.size before asking for all.
  std::string bytes(const std::string& name, const Entry& e, uint64_t most) const;
  const Entry& entry(const std::string& name) const;

  std::shared_ptr<MappedFile> file_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> names_;
};

}  // namespace hs
