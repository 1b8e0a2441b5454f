#pragma once
// Pretrained checkpoints behind ModelRequest::model_path (llama2.c .bin + tokenizer.bin,
// Hugging Face gpt2 / llama folders). Filled in by the pretrained-model loaders.
#include <memory>

#include "core/model/checkpoint_cache.h"
#include "core/model/model_request.h"

namespace hs {

// With a cache, a checkpoint whose files have not changed since the last request is not read again.
std::unique_ptr<Prepared> prepare_pretrained(const ModelRequest& request, CheckpointCache* cache = nullptr);

}  // namespace hs
