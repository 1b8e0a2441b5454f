#pragma once
// Attention maps made elsewhere (any framework, any model), read from a file as one run, so every
// view, export and analysis works on them (docs/attention-file.md has the format):
//   FILE.safetensors or FILE.npz holding "attention" [layers, heads, T, T] (also "attentions"), or
//   one [heads, T, T] tensor per layer, "layer.{i}" or "attentions.{i}" (a leading batch of 1 is
//   accepted on either); float32 (safetensors also F16 / BF16; .npz also float64).
//   Tokens: safetensors metadata "tokens" (a JSON list of T strings), else FILE.tokens.json beside
//   it (a list, or an object with "tokens"); optional "name", "token_ids", "special_tokens" (token
//   indices), "segment_b_start", "causal". Without tokens they are numbered "0", "1", ...
// Checked: shapes (every layer [H, T, T] with the same H and T), finite values, no negative
// weight, token count = T, memory. Rows that do not sum to 1 (within 1e-3) are kept and said:
// AttentionRun::rows_sum_to_one is false and a note names the first such rows.
// What needs the model's weights (next tokens, scores and ranks, the head-count sweep) is absent.
#include <memory>
#include <string>

#include "core/model/model_request.h"

namespace hs {

// Throws IoError / FormatError / InputError naming the file and what was found.
AttentionRun read_attention_file(const std::string& path);

// A Prepared whose run() returns the file's maps (read once, here). Long-input mode is refused
// (it needs the model's queries and keys); whole maps only.
std::unique_ptr<Prepared> prepare_attention_file(const std::string& path);

}  // namespace hs
