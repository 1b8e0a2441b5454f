#pragma once
// The engine's vectors out (`headscope-cli export --what scores|q|k|v --out FILE.npy`): what every
// layer's attention computed before its maps, as the observer hook announces it
// (core/model/observer.h), float32 .npy in C order:
//   q       [layers, heads, T, d_head]     the queries each head used (after RoPE where the model
//                                          has it, after Qwen 3 / Gemma 3's per-head norm)
//   k, v    [layers, kv_heads, T, d_head]  keys (after RoPE) and values of each key/value head;
//                                          query head h reads key/value head h / (heads / kv_heads)
//   scores  [layers, heads, T, T]          row = query, column = key: q_h . k_g times the score scale
//                                          (1/sqrt(d_head) unless the model sets its own), soft-capped
//                                          where the model caps (Gemma 2), divided by the synthetic
//                                          layer's temperature; masked cells (keys a causal or windowed
//                                          query cannot see) -inf. softmax of each row is the map.
// One layer (--layer L): the same with a first axis of 1.
#include <string>

#include "core/model/model_request.h"

namespace hs {

class CheckpointCache;

enum class VectorKind { scores, queries, keys, values };

// "scores", "q", "k", "v"; InputError listing them.
VectorKind parse_vector_kind(const std::string& name);
const char* vector_kind_name(VectorKind kind);

// Runs `request` with whole maps and returns the .npy bytes of `kind` for every layer, or for
// `layer` alone (>= 0). InputError for a layer out of range, and for maps read from a file
// (--attention: there are no vectors behind them).
std::string vectors_npy(const ModelRequest& request, VectorKind kind, int layer = -1, int threads = 0,
                        CheckpointCache* cache = nullptr);

}  // namespace hs
