#include "core/model/checkpoint_cache.h"

#include <sys/stat.h>

namespace hs {
namespace {

// The key, then one line per file: what stat() says about it now, or that it is missing.
std::string fingerprint(const std::string& key, const std::vector<std::string>& files) {
  std::string f = key + '\n';
  for (const std::string& path : files) {
    struct stat st {};
    f += path;
    if (::stat(path.c_str(), &st) != 0) {
      f += " missing\n";
      continue;
    }
    f += ' ' + std::to_string(st.st_dev) + ' ' + std::to_string(st.st_ino) + ' ' + std::to_string(st.st_size) + ' ' +
         std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec) + '\n';
  }
  return f;
}

}  // namespace

LoadedCheckpoint CheckpointCache::get(const std::string& key, const std::vector<std::string>& files,
                                      const std::function<LoadedCheckpoint()>& load) {
  const std::string now = fingerprint(key, files);
  std::lock_guard<std::mutex> lock(mutex_);
  if (loaded_.model && now == fingerprint_) return loaded_;
  loaded_ = {};  // the old model is released before the new one is read: one in memory at a time
  fingerprint_.clear();
  LoadedCheckpoint fresh = load();
  ++loads_;
  loaded_ = fresh;
  fingerprint_ = now;
  return fresh;
}

int CheckpointCache::loads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return loads_;
}

void CheckpointCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  loaded_ = {};
  fingerprint_.clear();
}

}  // namespace hs
