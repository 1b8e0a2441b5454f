#pragma once
// llama2.c checkpoints, legacy version-0 layout (karpathy/llama2.c export.py --version 0):
// a 28-byte header of 7 little-endian int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
// vocab_size, seq_len), then float32 arrays with no padding, matrices row-major [out][in]:
//   token_embedding [V][d], rms_att [L][d], wq [L][d][d], wk [L][kv][d], wv [L][kv][d],
//   wo [L][d][d], rms_ffn [L][d], w1 [L][hidden][d], w2 [L][d][hidden], w3 [L][hidden][d],
//   rms_final [d], freq_cis_real [seq][dh/2], freq_cis_imag [seq][dh/2] (unused),
//   and wcls [V][d] only when vocab_size is stored negative (an untied classifier).
// The file size must be exactly what the header implies.
#include <memory>
#include <string>

#include "core/model/llama_forward.h"

namespace hs {

// Loads the whole checkpoint (RoPE on adjacent pairs, RMSNorm eps 1e-5, theta 10000).
std::unique_ptr<LlamaModel> load_llama2c(const std::string& path);

}  // namespace hs
