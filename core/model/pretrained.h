#pragma once
// Pretrained checkpoints behind ModelRequest::model_path (llama2.c .bin + tokenizer.bin,
// Hugging Face gpt2 / llama folders). Filled in by the pretrained-model loaders.
#include <memory>

#include "core/model/model_request.h"

namespace hs {

std::unique_ptr<Prepared> prepare_pretrained(const ModelRequest& request);

}  // namespace hs
