#pragma once
// NumPy .npz archives: a zip file with one .npy entry per array ("name.npy"). numpy.savez stores
// the entries (method 0), numpy.savez_compressed deflates them (method 8, read with zlib); both
// write zip64 extra fields, which are read. The central directory is validated on open (entry
// offsets and sizes inside the file, names); an entry's bytes are checked against its CRC-32
// when read. Encrypted entries, multi-disk archives and other methods are a FormatError.
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
  // The array `name` (parse_npy: float32 or float64 as float32); FormatError if missing or broken.
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
  // The entry's bytes, inflated and checked against its size and CRC-32.
  std::string bytes(const std::string& name, const Entry& e) const;
  const Entry& entry(const std::string& name) const;

  std::shared_ptr<MappedFile> file_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> names_;
};

}  // namespace hs
