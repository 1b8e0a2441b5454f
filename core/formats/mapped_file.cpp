#include "core/formats/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>

#include "core/formats/mapped_guard.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const OpenedFile f(path);  // a regular file, or an IoError saying what it is instead
  size_ = static_cast<size_t>(f.reported_size());
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd(), 0);
    if (p == MAP_FAILED) {
      const std::string why = std::strerror(errno);
      throw IoError("cannot map " + path + " (" + std::to_string(size_) + " bytes): " + why);
    }
    data_ = static_cast<const uint8_t*>(p);
    register_mapping(path, f.fd(), data_, size_);  // its identity, checked before and after each run
  }
}

MappedFile::~MappedFile() {
  if (!data_) return;
  unregister_mapping(data_);  // before unmapping: the SIGBUS handler must not patch a freed range
  ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace hs
