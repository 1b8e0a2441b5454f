#pragma once
// Random-weight copies of a model: the "null models" of headscope-cli heads --null N, which score
// the head roles of untrained models of the loaded one's shape (core/analysis/null_roles.h).
//
// Initialisation (kRandomWeightsInit says it in words): every weight matrix (the token embedding;
// each layer's q, k, v, o and the feed-forward's gate, down and up) is drawn from N(0, 0.02^2),
// Hugging Face's initializer_range default for Llama, Qwen and GPT-2; RMSNorm weights (and the
// per-head q/k norms, the sandwich norms) are 1 and attention biases 0, as transformers'
// _init_weights leaves them; the classifier is tied to the embedding (no attention map reads it).
// Shape, vocabulary, RoPE, masks, windows, score scale and soft-caps are the loaded model's.
//
// Draws: matrix `name` of the copy with seed s is filled in row-major order with
// float(0.02 * Rng(hash_text(name, s)).normal()) (core/model/rng.h: SplitMix64 and Box-Muller),
// names "embedding", "layers.<l>.wq", ".wk", ".wv", ".wo", ".w1" (gate), ".w2" (down), ".w3"
// (up): reproducible anywhere (tests/core/analysis/null_roles_reference.py redraws them in numpy).
#include <cstdint>
#include <memory>
#include <string>

#include "core/model/transformer_model.h"
#include "core/util/tensor.h"

namespace hs {

constexpr float kRandomWeightStd = 0.02f;
extern const char* const kRandomWeightsInit;

// One matrix as drawn above: [rows, cols].
Map random_weight_matrix(const std::string& name, int64_t rows, int64_t cols, uint64_t seed);

// A copy of `model` with every weight drawn anew (above). Llama-family decoders only (llama2.c,
// GGUF, Hugging Face llama, qwen2, qwen3, mistral, phi3, gemma*); anything else throws InputError
// naming the model and what is supported. A GGUF model's copy holds float32 weights: 4 bytes per
// parameter of the shape.
std::shared_ptr<const TransformerModel> random_weight_model(const TransformerModel& model, uint64_t seed);

}  // namespace hs
