#pragma once
// Pretrained checkpoints behind ModelRequest::model_path: llama2.c .bin + tokenizer.bin, Hugging
// Face folders (core/model/hf_folder.h), GGUF files (core/model/gguf_loader.h, recognised by their
// magic bytes or the .gguf extension).
#include <memory>
#include <string>

#include "core/model/checkpoint_cache.h"
#include "core/model/model_request.h"

namespace hs {

// With a cache, a checkpoint whose files have not changed since the last request is not read again.
std::unique_ptr<Prepared> prepare_pretrained(const ModelRequest& request, CheckpointCache* cache = nullptr);

// The llama2.c tokenizer that goes with a checkpoint file, by llama2.c's names: tokenizer.bin
// beside it, else tok<vocab>.bin (vocab from the checkpoint's header when `vocab` is 0).
// "" when there is none, for folders, or when the checkpoint cannot be read.
std::string find_llama2c_tokenizer(const std::string& checkpoint, int vocab = 0);

}  // namespace hs
