#pragma once
// SHA-256 (FIPS 180-4) of bytes in memory or of a file's first bytes, as lowercase hex: what an
// export's provenance records of the model file (core/export/provenance.h).
#include <cstdint>
#include <string>

namespace hs {

// Incremental: add() any number of times, then hex() once.
class Sha256 {
 public:
  Sha256();
  void add(const void* data, size_t size);
  std::string hex();  // the digest of everything added, 64 lowercase hex digits

 private:
  void block(const uint8_t* p);  // one 64-byte block into state_
  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t total_ = 0;  // bytes added
};

std::string sha256_hex(const std::string& bytes);
// The digest of the file's first `limit` bytes (all of it when shorter); IoError when unreadable.
std::string sha256_file_prefix(const std::string& path, uint64_t limit);

}  // namespace hs
