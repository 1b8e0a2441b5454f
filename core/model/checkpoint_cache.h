#pragma once
// The last checkpoint read from disk, kept for the next request on the same, unchanged files.
// The app runs the model again on every edit of the sentence; reading GPT-2 small (500 MB of
// safetensors and a 50,257-entry vocabulary) each time took longer than the forward itself.
// A model and its tokenizer are immutable once loaded, so sharing them between runs is safe.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/model/special_tokens.h"
#include "core/model/transformer_model.h"
#include "core/text/tokenizer_base.h"

namespace hs {

struct LoadedCheckpoint {
  std::shared_ptr<const TransformerModel> model;
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  int bos_id = -1;  // the token an empty sentence starts from, -1 when the model has none
  std::shared_ptr<const SentenceEncoder> sentences;  // encoders: special tokens and sentence pairs; else null
};

class CheckpointCache {
 public:
  // `key` names the request (paths and options); `files` are every file the checkpoint is read
  // from. The cached checkpoint is returned while the key is the same and each file has the
  // same device, inode, size and modification time; otherwise `load` runs and replaces it (one
  // checkpoint is kept, and released before the next is read). A load that throws leaves the
  // cache empty and reaches the caller. Thread-safe.
  LoadedCheckpoint get(const std::string& key, const std::vector<std::string>& files,
                       const std::function<LoadedCheckpoint()>& load);
  // How many times `load` has run (for tests and the benchmark).
  int loads() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::string fingerprint_;
  LoadedCheckpoint loaded_;
  int loads_ = 0;
};

}  // namespace hs
