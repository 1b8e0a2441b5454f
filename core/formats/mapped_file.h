#pragma once
// A read-only memory-mapped regular file (checkpoints can be hundreds of megabytes: map, don't
// copy). Devices, FIFOs and folders are refused with what they are (core/util/file_read.h); a
// /proc file maps as empty (its size says 0), which every parser then refuses as too short.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

class MappedFile {
 public:
  // Throws IoError naming the path when it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace hs
