#include "core/model/families.h"

#include <sstream>

#include "core/util/errors.h"

namespace hs {
namespace {

constexpr WindowKey kNoWindow{};
constexpr WindowKey kWindow4096{true, 4096, false};
constexpr WindowKey kWindowIfGiven{true, 0, false};
constexpr WindowKey kWindowRequired{true, 0, true};

using B = Biases;

}  // namespace

const std::vector<DecoderFamily>& decoder_families() {
  // Defaults: vocab, hidden, intermediate, layers, heads, kv heads (0: heads), head_dim (0: hidden / heads),
  // max positions, RMSNorm epsilon, rope_theta, tied.
  static const std::vector<DecoderFamily> rows = {
      {Family::llama, "llama", nullptr, "llama", {32000, 4096, 11008, 32, 32, 0, 0, 2048, 1e-6, 10000.0, false},
       kPermutedRope, B::configured, B::configured, kNoWindow, kWindowIfGiven, 0, 0.0f, 0.0f, 0},
      {Family::qwen2, "qwen2", nullptr, "qwen2", {151936, 4096, 22016, 32, 32, 32, 0, 32768, 1e-6, 10000.0, false},
       kWindowSwitch, B::qkv, B::qkv, kWindow4096, kNoWindow, 0, 0.0f, 0.0f, 0},
      {Family::qwen3, "qwen3", nullptr, "qwen3", {151936, 4096, 22016, 32, 32, 32, 128, 32768, 1e-6, 10000.0, false},
       kWindowSwitch | kQkNorm, B::configured, B::none, kWindow4096, kNoWindow, 0, 0.0f, 0.0f, 0},
      // GGUF files of Mistral say "llama"
      {Family::mistral, "mistral", nullptr, nullptr, {32000, 4096, 14336, 32, 32, 8, 0, 4096 * 32, 1e-6, 10000.0, false},
       0, B::none, B::none, kWindow4096, kNoWindow, 0, 0.0f, 0.0f, 0},
      {Family::phi3, "phi3", nullptr, "phi3", {32064, 3072, 8192, 32, 32, 0, 0, 4096, 1e-5, 10000.0, false},
       kFused, B::none, B::none, kWindowIfGiven, kWindowIfGiven, 0, 0.0f, 0.0f, 0},
      {Family::gemma, "gemma", nullptr, "gemma", {256000, 3072, 24576, 28, 16, 16, 256, 8192, 1e-6, 10000.0, true},
       kGemma, B::configured, B::none, kNoWindow, kNoWindow, 0, 0.0f, 0.0f, 0},
      // Gemma 2: even layers local, odd global
      {Family::gemma2, "gemma2", nullptr, "gemma2", {256000, 2304, 9216, 26, 8, 4, 256, 8192, 1e-6, 10000.0, true},
       kGemma | kSandwichNorms | kQueryScalar, B::configured, B::none, kWindow4096, kWindow4096, 2, 50.0f, 30.0f, 46},
      // Gemma 3: five local layers, then a global one
      {Family::gemma3, "gemma3_text", "gemma3", "gemma3", {262208, 2304, 9216, 26, 8, 4, 256, 131072, 1e-6, 1000000.0, true},
       kGemma | kSandwichNorms | kQkNorm | kQueryScalar | kLocalRope | kPatternKey, B::configured, B::none,
       kWindow4096, kWindowRequired, 6, 0.0f, 0.0f, 62},
  };
  return rows;
}

const DecoderFamily* family_of_hf_type(const std::string& model_type) {
  for (const DecoderFamily& f : decoder_families())
    if (model_type == f.hf_type) return &f;
  return nullptr;
}

const DecoderFamily* family_of_hf_outer_type(const std::string& model_type) {
  for (const DecoderFamily& f : decoder_families())
    if (f.hf_outer_type && model_type == f.hf_outer_type) return &f;
  return nullptr;
}

const DecoderFamily* family_of_gguf_arch(const std::string& arch) {
  for (const DecoderFamily& f : decoder_families())
    if (f.gguf_arch && arch == f.gguf_arch) return &f;
  return nullptr;
}

void check_decoder_shape(LlamaConfig& c, bool head_width_given, const std::function<int(int)>& read_head_width,
                         const ShapeKeys& k) {
  if (c.n_heads % c.n_kv_heads != 0) {
    throw FormatError(k.file + ": " + k.kv_heads + " (" + std::to_string(c.n_kv_heads) + ") must divide " + k.heads + " (" +
                      std::to_string(c.n_heads) + ")");
  }
  if (!head_width_given && c.d_model % c.n_heads != 0) {
    throw FormatError(k.file + ": " + k.heads + " (" + std::to_string(c.n_heads) + ") must divide " + k.width + " (" +
                      std::to_string(c.d_model) + ")" + k.width_note);
  }
  c.d_head = read_head_width(c.d_model / c.n_heads);
  if (c.d_head % 2 != 0) throw FormatError(k.file + ": " + k.head_width + " " + std::to_string(c.d_head) + " must be even for RoPE");
}

std::vector<bool> periodic_local_layers(int n_layers, int period) {
  std::vector<bool> local(size_t(n_layers), true);
  if (period > 0)
    for (int l = 0; l < n_layers; ++l) local[size_t(l)] = (l + 1) % period != 0;
  return local;
}

std::vector<int> layer_windows(int window, const std::vector<bool>& local) {
  std::vector<int> windows;
  for (const bool is_local : local) windows.push_back(is_local ? window - 1 : -1);
  return windows;
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace hs
