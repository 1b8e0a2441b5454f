#pragma once
// Rotary position embedding (RoPE) of the Hugging Face decoder families and the ways checkpoints
// rescale its frequencies (config.json's rope_scaling), computed as transformers'
// modeling_rope_utils.py does. A head of width dh rotates its first `rotary_dim` dimensions
// (partial rotary: Phi-3 with partial_rotary_factor) in pairs (i, i + rotary_dim / 2)
// (rotate_half); pair i turns by the angle pos * inv_freq[i], and cos and sin are multiplied by
// an attention factor (YaRN, LongRoPE), which scales every q . k by its square.
#include <string>
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// How RoPE pairs the dimensions of one head (frequency index i = 0 .. rotary_dim/2 - 1):
//   adjacent  (llama2.c run.c, Meta's original, GGML's normal mode): pair (2i, 2i+1)
//   half      (Hugging Face rotate_half, GGML's NeoX mode):         pair (i, i + rotary_dim/2)
enum class RopePairs { adjacent, half };

enum class RopeType {
  plain,     // "default": inv_freq[i] = theta^(-2i/dim)
  linear,    // inv_freq / factor (position interpolation)
  dynamic,   // NTK: theta grows with the sequence once it exceeds max_position_embeddings
  yarn,      // blend of interpolated and extrapolated frequencies, attention factor ~ 0.1 ln(factor) + 1
  llama3,    // Llama 3.1: low frequencies / factor, high kept, a smooth ramp between
  longrope,  // Phi-3: per-frequency factors, short or long by sequence length (alias "su")
};

// config.json's name of each type ("default", "linear", "dynamic", "yarn", "llama3", "longrope").
const char* rope_type_name(RopeType t);

// Everything the frequencies depend on. Fields a type does not use are ignored.
struct RopeSpec {
  RopeType type = RopeType::plain;
  double theta = 0.0;              // base; 0 = the model's rope_theta
  int rotary_dim = 0;              // dimensions rotated per head, even; 0 = the whole head
  double factor = 1.0;             // linear, dynamic, yarn, llama3, longrope (its attention factor)
  int max_positions = 0;           // config's max_position_embeddings (dynamic, yarn)
  int original_max_positions = 0;  // llama3, yarn (0: max_positions), longrope
  double low_freq_factor = 1.0;    // llama3
  double high_freq_factor = 4.0;   // llama3
  double beta_fast = 32.0;         // yarn
  double beta_slow = 1.0;          // yarn
  bool truncate = true;            // yarn: round the ramp's ends to whole dimensions
  double attention_factor = 0.0;   // yarn, longrope: > 0 as configured, 0 = derived from factor
  double mscale = 0.0;             // yarn (DeepSeek style; with mscale_all_dim)
  double mscale_all_dim = 0.0;
  std::vector<double> short_factor;  // longrope: rotary_dim / 2 each
  std::vector<double> long_factor;
  // GGUF's rope_freqs tensor (llama.cpp's Llama 3.x scaling): each frequency is divided by its
  // factor after the type's own scaling; empty = none. rotary_dim / 2 of them.
  std::vector<double> freq_factors;

  // Frequencies depend on the sequence length (dynamic, longrope).
  bool depends_on_length() const { return type == RopeType::dynamic || type == RopeType::longrope; }
};

// What one sequence length rotates with: inv_freq [rotary_dim / 2], and the factor on cos and sin.
struct RopeFrequencies {
  std::vector<float> inv_freq;
  float attention_factor = 1.0f;
  int rotary_dim() const { return 2 * static_cast<int>(inv_freq.size()); }
};

// The frequencies for a sequence of `seq_len` positions (what transformers computes when the
// longest position id is seq_len - 1). spec.theta and spec.rotary_dim must be set (> 0).
RopeFrequencies rope_frequencies(const RopeSpec& spec, int seq_len);

// RoPE in place on every head of m: [T, n_heads * dh]; row t is position first_pos + t. For each
// head and pair i < r = rotary_dim / 2, with a = x[i], b = x[i + r] (half) or a = x[2i],
// b = x[2i + 1] (adjacent), angle = pos * inv_freq[i]:
//   a' = a c - b s,  b' = b c + a s,   c = cos(angle) * attention_factor, s = sin(angle) * attention_factor
// Dimensions rotary_dim .. dh - 1 pass through unchanged.
void apply_rope(Map& m, int n_heads, int dh, const RopeFrequencies& f, int first_pos = 0,
                RopePairs pairs = RopePairs::half);

}  // namespace hs
