#pragma once
// The RoPE decoder families, one row each: the Hugging Face model_type, the GGUF architecture
// (general.architecture), transformers' config-class defaults and what the family does
// differently. Both file formats read their keys into one LlamaConfig (hf_decoder_loader.cpp,
// gguf_loader.cpp) that check_decoder_shape checks; tensor names stay with each format.
//
// Adding a family: one row in families.cpp, its tensor names in the two loaders when they are
// new, and its forward quirks in llama_forward.h when it has new ones.
#include <functional>
#include <string>
#include <vector>

#include "core/model/llama_forward.h"

namespace hs {

enum class Family { llama, qwen2, qwen3, mistral, phi3, gemma, gemma2, gemma3 };

// What a family does differently (bits of DecoderFamily::quirks).
enum FamilyQuirk : unsigned {
  kGemma = 1u << 0,          // GeGLU, embeddings times sqrt(d_model), RMSNorm times (1 + w), output tied
  kQkNorm = 1u << 1,         // per-head RMSNorm of q and k before RoPE (Qwen 3, Gemma 3)
  kSandwichNorms = 1u << 2,  // RMSNorm of the attention and the MLP outputs too (Gemma 2 / 3)
  kFused = 1u << 3,          // fused q|k|v and gate|up projections, partial rotary (Phi-3)
  kQueryScalar = 1u << 4,    // score scale 1/sqrt(query_pre_attn_scalar), soft-caps (Gemma 2 / 3)
  kLocalRope = 1u << 5,      // local layers rotate with their own base, unscaled (Gemma 3)
  kWindowSwitch = 1u << 6,   // Hugging Face: use_sliding_window turns the window on, for layers
                             // from max_window_layers on (Qwen)
  kPatternKey = 1u << 7,     // Hugging Face: sliding_window_pattern may set local_period (Gemma 3)
  kPermutedRope = 1u << 8,   // GGUF: the converter permuted q/k rows for adjacent-pair RoPE over
                             // the whole head (llama)
};

// Which attention biases a file of the family holds.
enum class Biases {
  none,        // never
  qkv,         // q, k and v always, o never (Qwen 2)
  configured,  // as the file says: Hugging Face attention_bias (q, k, v and o); GGUF the tensors present
};

// How a file states the sliding window S (a query sees itself and the S - 1 keys before it).
struct WindowKey {
  bool read = false;      // false: no window in this format
  int fallback = 0;       // S when the key is absent; 0: none
  bool required = false;  // the key must be there
};

// transformers' config-class defaults of the keys that change the computation.
struct FamilyDefaults {
  int vocab, hidden, inter, layers, heads;
  int kv_heads;  // 0: = heads
  int head_dim;  // 0: hidden / heads
  int max_positions;
  double norm_eps, rope_theta;
  bool tied;
};

struct DecoderFamily {
  Family family;
  const char* hf_type;        // config.json's model_type
  const char* hf_outer_type;  // a multimodal model_type whose text_config is this family, or nullptr
  const char* gguf_arch;      // general.architecture; nullptr: llama.cpp files it under another one
  FamilyDefaults defaults;
  unsigned quirks;            // FamilyQuirk bits
  Biases hf_biases, gguf_biases;
  WindowKey hf_window, gguf_window;
  int local_period;           // windowed: every local_period-th layer is global; 0: every layer local
  float attn_softcap, final_softcap;  // defaults; 0 = none
  int gguf_large_layers;      // GGUF: the layer count of the model whose score scale is
                              // 1/sqrt(embedding_length / head_count) (Gemma's 27B); 0: none

  bool has(FamilyQuirk q) const { return (quirks & q) != 0; }
};

// Every row, in the order messages list them.
const std::vector<DecoderFamily>& decoder_families();
// The row of a model_type (or of an outer model_type: gemma3), or of an architecture; nullptr when none.
const DecoderFamily* family_of_hf_type(const std::string& model_type);
const DecoderFamily* family_of_hf_outer_type(const std::string& model_type);
const DecoderFamily* family_of_gguf_arch(const std::string& arch);

// The names a format gives a decoder's shape in its messages.
struct ShapeKeys {
  std::string file;        // the file named first
  std::string heads;       // "num_attention_heads"
  std::string kv_heads;    // "num_key_value_heads"
  std::string width;       // "hidden_size"
  std::string head_width;  // "head_dim"
  std::string width_note;  // after the width message (GGUF: " when there is no key_length")
};

// Checks the shape a format read into c and sets c.d_head: key/value heads divide heads; heads
// divide the width unless `head_width_given`; c.d_head = read_head_width(d_model / n_heads) (the
// format reads its key, with that fallback), even for RoPE. FormatError names the keys.
void check_decoder_shape(LlamaConfig& c, bool head_width_given, const std::function<int(int)>& read_head_width,
                         const ShapeKeys& keys);

// Which layers are local when a model has a sliding window: every layer but each period-th,
// (l + 1) % period == 0; period 0: every layer.
std::vector<bool> periodic_local_layers(int n_layers, int period);

// The engine window per layer (AttentionConfig::window = S - 1 for local layers, -1 for global).
std::vector<int> layer_windows(int window, const std::vector<bool>& local);

// "0.5", "1e+06": a number as an ostream prints it (printf's %g), for messages.
std::string number_text(double v);

}  // namespace hs
