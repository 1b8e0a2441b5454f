#pragma once
// GGUF files (llama.cpp's single-file format) of the RoPE decoder families, run by LlamaModel with
// the weights kept compact: every matrix stays in its GGUF encoding in the memory-mapped file
// (QuantizedMatrix), so a Q4_K model needs about its file size, not 4 bytes per weight.
//
// Architectures (general.architecture), computed as llama.cpp computes them:
//   llama   Llama 2 / 3.x, Mistral, SmolLM, TinyLlama. llama.cpp's converter permuted the rows of
//           attn_q / attn_k so that RoPE turns adjacent pairs (2i, 2i+1); the rows are used as
//           stored with adjacent-pair RoPE (the same scores as Hugging Face's rotate_half on the
//           unpermuted rows). Llama 3.x scaling is the rope_freqs tensor; rope.scaling.type linear
//           or yarn; optional attention biases; attention.sliding_window if present (every layer)
//   qwen2   q/k/v biases;  qwen3: per-head attn_q_norm / attn_k_norm
//   phi3    fused attn_qkv (or attn_q/k/v) and ffn_up holding gate | up; partial rotary
//           (rope.dimension_count); LongRoPE from rope_factors_long / rope_factors_short, chosen by
//           the sequence length as transformers does; attention.sliding_window on every layer
//   gemma   GeGLU, embeddings times sqrt(embedding_length); gemma2: soft-caps, even layers local
//           (attention.sliding_window, default 4096), post-attention and post-FFN norms; gemma3:
//           q/k norms, five local layers per global one (or attention.sliding_window_pattern),
//           local RoPE base 10000 unscaled. Gemma's norms were stored as 1 + w by the converter.
//           The score scale is 1/sqrt(key_length), or 1/sqrt(embedding_length / head_count) for
//           the 27B models (46 and 62 layers), as llama.cpp decides it (GGUF has no key for it).
// The rows of core/model/families.h say which of these each architecture has. Anything else is
// refused by name. Every tensor's name, shape and type is checked before any weight is built; the
// tokenizer is the file's own (core/text/gguf_tokenizer.h).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/llama_forward.h"
#include "core/text/tokenizer_base.h"

namespace hs {

// What a model needs in memory for one run, known before its weights are built.
struct GgufMemory {
  int64_t mapped = 0;       // bytes of the file's tensors the forward reads, used in place (mapped)
  int64_t copied = 0;       // float copies the loader makes (norms, biases, RoPE factors)
  int64_t activations = 0;  // one forward over `tokens` positions: activations, every head's map, buffers
  int64_t tokens = 0;
  int64_t total() const { return mapped + copied + activations; }
};

struct GgufModel {
  std::shared_ptr<const LlamaModel> model;
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  int bos_id = -1;  // tokenizer.ggml.bos_token_id, -1 when absent
  GgufMemory memory;
};

// Working memory of one forward of a decoder of shape `c` over T positions with `threads` threads
// (activations, maps and per-thread buffers), in bytes: what check_memory adds to the weights.
int64_t llama_run_bytes(const LlamaConfig& c, int64_t T, int threads);

// The architectures load_gguf_model runs, in the order its messages list them.
const std::vector<std::string>& gguf_architectures();

// Opens `path`, checks the architecture, metadata and every tensor, reads the tokenizer, states
// the memory a run of `sentence` (plus `generate` tokens) needs and refuses with the numbers
// (InputError) when that exceeds the memory available (core/util/memory_info.h); then builds
// the model. IoError / FormatError / InputError name the file, key or tensor.
GgufModel load_gguf_model(const std::string& path, const std::string& sentence = "", int generate = 0);

// True when the file at `path` starts with GGUF's magic bytes.
bool is_gguf_file(const std::string& path);

}  // namespace hs
