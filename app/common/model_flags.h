#pragma once
// The input and model flags that `headscope-cli maps`, `headscope-cli export` and `headscope`
// all take (../shared/CLI_CONTRACT.md), bound to one ModelRequest.
#include <CLI/CLI.hpp>

#include "core/model/model_request.h"

namespace hs {

struct ModelFlags {
  ModelRequest request;
  int window = -1;  // bound separately: absent = no window
  CLI::Option* window_option = nullptr;
  CLI::Option* sentence_option = nullptr;  // given but empty: "the sentence is empty"
  CLI::Option* kv_heads_option = nullptr;  // given as 0: an error (absent means "= heads")
  CLI::Option* d_head_option = nullptr;    // given as 0: an error (absent means "d_model / heads")
};

// Adds --sentence, --input, --d-model, --heads, --kv-heads, --d-head, --seed, --causal,
// --window, --temperature, --weights, --model, --tokenizer, --generate.
void add_model_flags(CLI::App& app, ModelFlags& flags);

// The request after parsing (window folded in).
ModelRequest model_request(const ModelFlags& flags);

}  // namespace hs
