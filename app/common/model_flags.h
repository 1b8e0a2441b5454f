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
  CLI::Option* sentence_b_option = nullptr;  // given but empty: "the second sentence is empty"
  std::string input_ids;       // --input-ids "101,7592,102" (parsed into request.input_ids)
  std::string token_type_ids;  // --token-type-ids "0,0,0"
  CLI::Option* input_ids_option = nullptr;
  CLI::Option* token_type_ids_option = nullptr;
  CLI::Option* attention_option = nullptr;
};

// Adds --sentence, --sentence-b, --input, --input-ids, --token-type-ids, --attention, --d-model,
// --heads, --kv-heads, --d-head, --seed, --causal, --window, --temperature, --weights, --model,
// --tokenizer, --generate.
void add_model_flags(CLI::App& app, ModelFlags& flags);

// The request after parsing (window folded in, id lists parsed).
ModelRequest model_request(const ModelFlags& flags);

// "101,7592,102" or "101 7592 102" -> ids; InputError naming `flag` and the bad entry.
std::vector<int> parse_id_list(const std::string& text, const std::string& flag);

}  // namespace hs
