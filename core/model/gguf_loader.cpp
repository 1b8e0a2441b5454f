#include "core/model/gguf_loader.h"

#include <algorithm>
#include <cmath>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "core/formats/gguf.h"
#include "core/model/attention_config.h"
#include "core/model/families.h"
#include "core/model/quantized_matrix.h"
#include "core/text/gguf_tokenizer.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/memory_info.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// The architecture's metadata (keys "<arch>.<name>"), with messages naming the file and the key.
class Metadata {
 public:
  Metadata(const GgufFile& file, std::string arch) : f_(file), arch_(std::move(arch)) {}

  std::string key(const std::string& name) const { return arch_ + "." + name; }
  bool has(const std::string& name) const { return f_.has(key(name)); }

  // A whole number in [lo, hi]: a scalar, or an array (one per layer) whose entries are all equal.
  int64_t count(const std::string& name, int64_t lo, int64_t hi) const {
    const std::string k = key(name);
    const GgufValue& v = f_.value(k);
    if (!v.is_integer()) {
      throw FormatError(f_.path() + ": metadata '" + k + "' is " + v.type_text() + "; expected a whole number");
    }
    int64_t first = 0;
    if (v.size() == 0 || !v.int_at(0, first)) throw FormatError(f_.path() + ": metadata '" + k + "' is " + v.text() + "; expected a whole number");
    for (uint64_t i = 1; i < v.size(); ++i) {
      int64_t x = 0;
      if (!v.int_at(i, x) || x != first) {
        throw InputError(f_.path() + ": metadata '" + k + "' differs between layers (" + v.text() +
                         "); headscope runs models whose layers all have the same shape");
      }
    }
    if (first < lo || first > hi) {
      throw FormatError(f_.path() + ": metadata '" + k + "' is " + std::to_string(first) + "; expected " + std::to_string(lo) +
                        " to " + std::to_string(hi));
    }
    return first;
  }
  int64_t count_or(const std::string& name, int64_t lo, int64_t hi, int64_t fallback) const {
    return has(name) ? count(name, lo, hi) : fallback;
  }

  // A finite number > 0 (or >= 0 with allow_zero).
  double positive(const std::string& name, double fallback, bool allow_zero = false) const {
    if (!has(name)) return fallback;
    const double v = f_.get_float(key(name));
    if (!std::isfinite(v) || v < 0.0 || (v == 0.0 && !allow_zero)) {
      throw FormatError(f_.path() + ": metadata '" + key(name) + "' is " + number_text(v) + "; expected a positive number");
    }
    return v;
  }

  std::string string_or(const std::string& name, const std::string& fallback) const {
    return f_.get_string_or(key(name), fallback);
  }

  const GgufValue* find(const std::string& name) const { return f_.find(key(name)); }

 private:
  const GgufFile& f_;
  std::string arch_;
};

// The tensors of the file as the model uses them, each checked for name, shape and type.
class Tensors {
 public:
  explicit Tensors(std::shared_ptr<const GgufFile> file) : f_(std::move(file)) {}

  bool has(const std::string& name) const { return f_->find_tensor(name) != nullptr; }

  // A weight matrix [rows, cols] (GGUF ne = [cols, rows]) kept in its encoding.
  QuantizedMatrix matrix(const std::string& name, int64_t rows, int64_t cols) {
    QuantizedMatrix m(f_, name, rows, cols);
    mapped_ += int64_t(m.bytes());
    return m;
  }

  // A vector of n floats (norm weights, biases, RoPE factors), copied.
  Vec vector(const std::string& name, int64_t n, const std::string& what) {
    const GgufTensor& t = f_->tensor(name);
    if (t.elements() != n || t.row_length() != n) {
      throw FormatError(f_->path() + ": tensor '" + name + "' (" + what + ") has shape " + t.dims_text() + "; expected [" +
                        std::to_string(n) + "]");
    }
    f_->require_dequantizable(t);
    const std::vector<float> v = f_->dequantize(t);
    copied_ += n * int64_t(sizeof(float));
    return Eigen::Map<const Vec>(v.data(), n);
  }

  int64_t mapped() const { return mapped_; }
  int64_t copied() const { return copied_; }

 private:
  std::shared_ptr<const GgufFile> f_;
  int64_t mapped_ = 0;
  int64_t copied_ = 0;
};

// Working memory of one forward over T positions, in bytes:
//   the residual stream and one layer's intermediates: x, h, q, k, v, context, output [T, <= d, q, kv]
//   and gate, up, down [T, hidden];
//   the maps: whole maps and their scores (layers x heads x [T, T], twice) while they stay under
//   1 GiB and T <= 2048, the long-input rule of core/analysis/long_input.h (a layer above this
//   one); past it, display maps of at most 1024 x 1024 per head and every layer's q and k;
//   per thread: one head's scores (a [T, T] block, or rows of it), a dequantized block of weight
//   rows (<= 256 x the widest input), a block of next-token logits [T, 256].
}  // namespace

int64_t llama_run_bytes(const LlamaConfig& c, int64_t T, int threads) {
  const int64_t q = int64_t(c.n_heads) * c.d_head, kv = int64_t(c.n_kv_heads) * c.d_head;
  const int64_t maps = int64_t(c.n_layers) * c.n_heads;
  const int64_t widest = std::max<int64_t>({c.d_model, c.hidden, q});
  const bool whole = T <= 2048 && 2 * maps * T * T * int64_t(sizeof(float)) <= (int64_t(1) << 30);
  int64_t floats = T * (4 * int64_t(c.d_model) + 2 * q + 2 * kv + 3 * int64_t(c.hidden));
  if (whole) {
    floats += 2 * maps * T * T;
  } else {
    const int64_t side = std::min<int64_t>(T, 1024);
    floats += maps * side * side + int64_t(c.n_layers) * T * (q + kv);
  }
  floats += int64_t(threads) * ((whole ? T : std::min<int64_t>(T, 128)) * T + 256 * widest + T * 256);
  return floats * int64_t(sizeof(float));
}

namespace {

// Which layers are local (sliding window): attention.sliding_window_pattern when the file has it
// (one bool per layer, true = local; or a period n: layer l local unless l % n == n - 1), else
// `period` (0: every layer).
std::vector<bool> local_layers(const GgufFile& f, const Metadata& m, int n_layers, int period) {
  if (const GgufValue* p = m.find("attention.sliding_window_pattern")) {
    if (p->is_array() && p->element_type() == GgufType::boolean) {
      if (p->size() != uint64_t(n_layers)) {
        throw FormatError(f.path() + ": metadata '" + m.key("attention.sliding_window_pattern") + "' has " +
                          std::to_string(p->size()) + " entries; expected one per layer (" + std::to_string(n_layers) + ")");
      }
      std::vector<bool> local(static_cast<size_t>(n_layers));
      for (int l = 0; l < n_layers; ++l) local[size_t(l)] = p->bool_at(uint64_t(l));
      return local;
    }
    period = int(m.count("attention.sliding_window_pattern", 1, 1 << 20));
  }
  return periodic_local_layers(n_layers, period);
}

// RoPE of the global layers from rope.freq_base and rope.scaling.* (llama.cpp's defaults: type
// "linear" when only a factor is given; a factor of 0 or 1 is no scaling).
RopeSpec read_rope(const GgufFile& f, const Metadata& m, int rotary_dim, int context) {
  RopeSpec s;
  s.theta = m.positive("rope.freq_base", 10000.0);
  s.rotary_dim = rotary_dim;
  s.max_positions = context;
  double factor = m.positive("rope.scaling.factor", 0.0, true);
  if (factor == 0.0) factor = m.positive("rope.scale_linear", 0.0, true);  // the older key
  const std::string type = m.string_or("rope.scaling.type", "linear");
  if (type == "none" || ((type == "linear" || type == "yarn") && (factor == 0.0 || factor == 1.0))) return s;
  if (type == "linear") {
    s.type = RopeType::linear;
    s.factor = factor;
  } else if (type == "yarn") {
    // Frequencies as transformers' yarn (ggml's ramp between the dimensions that turn beta_fast
    // and beta_slow times over the original context is the same, floor / ceil included); cos and
    // sin times attn_factor (1) x (1 + 0.1 ln factor), as ggml's rope_yarn scales them.
    s.type = RopeType::yarn;
    s.factor = factor;
    s.original_max_positions = int(m.count_or("rope.scaling.original_context_length", 1, 1 << 30, context));
    s.beta_fast = m.positive("rope.scaling.yarn_beta_fast", 32.0);
    s.beta_slow = m.positive("rope.scaling.yarn_beta_slow", 1.0);
    s.attention_factor = m.positive("rope.scaling.attn_factor", 1.0) * (1.0 + 0.1 * std::log(factor));
  } else {
    throw InputError(f.path() + ": metadata '" + m.key("rope.scaling.type") + "' is \"" + type +
                     "\"; headscope reads none, linear, yarn (and Llama 3's rope_freqs, Phi-3's rope_factors_long/short)");
  }
  return s;
}

// ---------------------------------------------------------------- the steps of load_gguf_model

// The family of general.architecture, or an InputError listing the ones headscope runs.
const DecoderFamily& gguf_family(const GgufFile& f) {
  const std::string arch_name = f.get_string("general.architecture");
  if (const DecoderFamily* found = family_of_gguf_arch(arch_name)) return *found;
  std::string list;
  for (const std::string& a : gguf_architectures()) list += (list.empty() ? "" : ", ") + a;
  throw InputError(f.path() + ": GGUF architecture \"" + arch_name + "\" is not supported (headscope runs " + list + ")");
}

// The shapes, heads and RMSNorm epsilon; `rotary_dim` (rope.dimension_count) and `context`
// (context_length) for RoPE. A mixture of experts is refused.
LlamaConfig read_shapes(const GgufFile& f, const Metadata& m, const DecoderFamily& fam, int& rotary_dim, int& context) {
  const std::string& path = f.path();
  if (m.count_or("expert_count", 0, 1 << 20, 0) > 0) {
    throw InputError(path + ": a mixture of experts (" + m.key("expert_count") + " " + std::to_string(m.count("expert_count", 0, 1 << 20)) +
                     ") is not supported; headscope runs dense decoders");
  }
  LlamaConfig c;
  c.d_model = int(m.count("embedding_length", 1, kMaxDModel));
  c.n_layers = int(m.count("block_count", 1, 1024));
  c.hidden = int(m.count("feed_forward_length", 1, 1 << 20));
  c.n_heads = int(m.count("attention.head_count", 1, kMaxHeads));
  c.n_kv_heads = int(m.count_or("attention.head_count_kv", 1, c.n_heads, c.n_heads));
  const bool has_key_length = m.has("attention.key_length");
  const ShapeKeys keys{path, m.key("attention.head_count"), m.key("attention.head_count_kv"), m.key("embedding_length"), "key_length",
                       " when there is no key_length"};
  check_decoder_shape(c, has_key_length, [&](int per_head) {
    const int d_head = int(m.count_or("attention.key_length", 2, 4096, per_head));
    const int64_t value_length = m.count_or("attention.value_length", 1, 4096, has_key_length ? d_head : per_head);
    if (value_length != d_head) {
      throw InputError(path + ": " + m.key("attention.value_length") + " (" + std::to_string(value_length) + ") differs from " +
                       m.key("attention.key_length") + " (" + std::to_string(d_head) + "); headscope runs heads whose keys and values are equally wide");
    }
    return d_head;
  }, keys);
  rotary_dim = int(m.count_or("rope.dimension_count", 2, c.d_head, c.d_head));
  if (rotary_dim % 2 != 0) throw FormatError(path + ": " + m.key("rope.dimension_count") + " (" + std::to_string(rotary_dim) + ") must be even");
  if (fam.has(kPermutedRope) && rotary_dim != c.d_head) {
    throw FormatError(path + ": " + m.key("rope.dimension_count") + " is " + std::to_string(rotary_dim) + "; the " + fam.gguf_arch +
                      " architecture rotates the whole head (" + std::to_string(c.d_head) + ")");
  }
  if (!f.has(m.key("attention.layer_norm_rms_epsilon"))) {
    throw FormatError(path + ": metadata '" + m.key("attention.layer_norm_rms_epsilon") + "' is missing (the RMSNorm epsilon)");
  }
  c.norm_eps = float(m.positive("attention.layer_norm_rms_epsilon", 1e-6));
  context = int(m.count("context_length", 1, 1 << 30));
  c.max_positions = std::min(context, 1 << 24);
  return c;
}

// Layer l's tensors under llama.cpp's names (blk.<l>.*).
LlamaLayer read_layer(Tensors& t, const LlamaConfig& c, const DecoderFamily& fam, int l) {
  const int64_t d = c.d_model, q = int64_t(c.n_heads) * c.d_head, kv = int64_t(c.n_kv_heads) * c.d_head, dh = c.d_head;
  const std::string b = "blk." + std::to_string(l) + ".";
  const std::string layer = "layer " + std::to_string(l) + " ";
  const bool biases_optional = fam.gguf_biases == Biases::configured;
  LlamaLayer L;
  L.attn_norm = t.vector(b + "attn_norm.weight", d, layer + "attention RMSNorm");
  if (t.has(b + "attn_qkv.weight") && fam.has(kFused)) {
    // Fused rows q | k | v: [H*dh + 2*G*dh, d].
    const QuantizedMatrix qkv = t.matrix(b + "attn_qkv.weight", q + 2 * kv, d);
    L.wq = qkv.row_range(0, q);
    L.wk = qkv.row_range(q, kv);
    L.wv = qkv.row_range(q + kv, kv);
  } else {
    L.wq = t.matrix(b + "attn_q.weight", q, d);
    L.wk = t.matrix(b + "attn_k.weight", kv, d);
    L.wv = t.matrix(b + "attn_v.weight", kv, d);
  }
  L.wo = t.matrix(b + "attn_output.weight", d, q);
  if (fam.gguf_biases == Biases::qkv || (biases_optional && t.has(b + "attn_q.bias"))) {
    L.bq = t.vector(b + "attn_q.bias", q, layer + "query bias");
    L.bk = t.vector(b + "attn_k.bias", kv, layer + "key bias");
    L.bv = t.vector(b + "attn_v.bias", kv, layer + "value bias");
  }
  if (biases_optional && t.has(b + "attn_output.bias")) L.bo = t.vector(b + "attn_output.bias", d, layer + "output bias");
  if (fam.has(kQkNorm)) {
    L.q_norm = t.vector(b + "attn_q_norm.weight", dh, layer + "per-head query RMSNorm");
    L.k_norm = t.vector(b + "attn_k_norm.weight", dh, layer + "per-head key RMSNorm");
  }
  if (fam.has(kSandwichNorms)) {
    L.post_attn_norm = t.vector(b + "post_attention_norm.weight", d, layer + "attention output RMSNorm");
    L.post_ffn_norm = t.vector(b + "post_ffw_norm.weight", d, layer + "MLP output RMSNorm");
  }
  L.ffn_norm = t.vector(b + "ffn_norm.weight", d, layer + "MLP RMSNorm");
  if (fam.has(kFused) && !t.has(b + "ffn_gate.weight")) {
    // ffn_up holds gate | up: [2 * hidden, d] (GGML's swiglu: SiLU of the first half times the second).
    const QuantizedMatrix gate_up = t.matrix(b + "ffn_up.weight", 2 * int64_t(c.hidden), d);
    L.w1 = gate_up.row_range(0, c.hidden);
    L.w3 = gate_up.row_range(c.hidden, c.hidden);
  } else {
    L.w1 = t.matrix(b + "ffn_gate.weight", c.hidden, d);
    L.w3 = t.matrix(b + "ffn_up.weight", c.hidden, d);
  }
  L.w2 = t.matrix(b + "ffn_down.weight", d, c.hidden);
  return L;
}

// The embedding (its rows set c.vocab), the final norm, the output projection and every layer.
// No weight data is read: matrices stay mapped; only vectors are copied.
LlamaWeights read_weights(Tensors& t, const GgufFile& f, LlamaConfig& c, const DecoderFamily& fam) {
  const GgufTensor& embd = f.tensor("token_embd.weight");
  if (embd.dims.size() != 2 || embd.dims[0] != c.d_model) {
    throw FormatError(f.path() + ": tensor 'token_embd.weight' has shape " + embd.dims_text() + " (ne[0] first); expected [" +
                      std::to_string(c.d_model) + ", vocabulary]");
  }
  if (embd.dims[1] < 1 || embd.dims[1] > (1 << 22)) {
    throw FormatError(f.path() + ": tensor 'token_embd.weight' has " + std::to_string(embd.dims[1]) + " rows; expected 1 to 4194304 tokens");
  }
  c.vocab = int(embd.dims[1]);
  LlamaWeights w;
  w.embedding = t.matrix("token_embd.weight", c.vocab, c.d_model);
  w.final_norm = t.vector("output_norm.weight", c.d_model, "final RMSNorm");
  // llama.cpp ties the output projection to the embedding when output.weight is absent (Gemma always).
  if (!fam.has(kGemma) && t.has("output.weight")) w.classifier = t.matrix("output.weight", c.vocab, c.d_model);
  for (int l = 0; l < c.n_layers; ++l) w.layers.push_back(read_layer(t, c, fam, l));
  return w;
}

// Positive, finite factors of a RoPE tensor of rotary_dim / 2 floats, appended to `out`.
void read_rope_factors(Tensors& t, const std::string& path, const char* name, int rotary_dim, const std::string& what,
                       std::vector<double>& out, bool say_where) {
  const Vec v = t.vector(name, rotary_dim / 2, what);
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!(v[i] > 0.0f) || !std::isfinite(v[i])) {
      throw FormatError(path + ": tensor '" + name + "' holds " + number_text(v[i]) + (say_where ? " at " + std::to_string(i) : "") +
                        "; expected positive factors");
    }
    out.push_back(v[i]);
  }
}

// RoPE: the pairs, the base, rope.scaling.* and the factors a file may hold as tensors (Llama 3's
// rope_freqs; Phi-3 128k's LongRoPE: short factors up to the original context, long ones past it).
void read_rope_config(LlamaConfig& c, Tensors& t, const GgufFile& f, const Metadata& m, const DecoderFamily& fam, int rotary_dim,
                      int context) {
  c.rope = fam.has(kPermutedRope) ? RopePairs::adjacent : RopePairs::half;
  c.rope_theta = float(m.positive("rope.freq_base", 10000.0));
  c.rope_global = read_rope(f, m, rotary_dim, context);
  RopeSpec& s = c.rope_global;
  if (t.has("rope_freqs.weight")) {
    read_rope_factors(t, f.path(), "rope_freqs.weight", rotary_dim, "RoPE frequency factors [rope.dimension_count / 2]",
                      s.freq_factors, true);
  }
  if (!t.has("rope_factors_long.weight") && !t.has("rope_factors_short.weight")) return;
  if (s.type != RopeType::plain || !s.freq_factors.empty()) {
    throw InputError(f.path() + ": rope_factors_long/short together with other RoPE scaling is not supported");
  }
  s.type = RopeType::longrope;
  s.original_max_positions = int(m.count_or("rope.scaling.original_context_length", 1, 1 << 30, context));
  s.factor = double(context) / s.original_max_positions;
  s.attention_factor = m.positive("rope.scaling.attn_factor", 0.0);
  const std::string what = "LongRoPE factors [rope.dimension_count / 2]";
  read_rope_factors(t, f.path(), "rope_factors_long.weight", rotary_dim, what, s.long_factor, false);
  read_rope_factors(t, f.path(), "rope_factors_short.weight", rotary_dim, what, s.short_factor, false);
}

// Sliding windows (engine window W = S - 1: a query sees itself and the S - 1 keys before it),
// Gemma 3's local RoPE, the score scale, soft-caps, Gemma's activation and embedding scale.
void read_layout(LlamaConfig& c, const GgufFile& f, const Metadata& m, const DecoderFamily& fam, int rotary_dim) {
  const WindowKey& wk = fam.gguf_window;
  int window = 0;
  if (wk.required) window = int(m.count("attention.sliding_window", 1, 1 << 30));
  else if (wk.read) window = int(m.count_or("attention.sliding_window", wk.fallback > 0 ? 1 : 0, 1 << 30, wk.fallback));
  if (window > 0) c.layer_windows = layer_windows(window, local_layers(f, m, c.n_layers, fam.local_period));
  if (fam.has(kLocalRope)) {
    c.use_local_rope = true;
    c.rope_local.theta = m.positive("rope.freq_base_swa", 10000.0);
    c.rope_local.rotary_dim = rotary_dim;
  }
  // Score scale: attention.scale when given; Gemma 2 / 3 as llama.cpp: 1/sqrt(key_length), except
  // the 27B models (46 / 62 layers), whose query_pre_attn_scalar is embedding_length / head_count.
  if (m.has("attention.scale")) {
    c.attn_scale = float(m.positive("attention.scale", 0.0));
  } else if (c.n_layers == fam.gguf_large_layers) {
    c.attn_scale = float(1.0 / std::sqrt(double(c.d_model / c.n_heads)));
  }
  if (fam.attn_softcap > 0.0f || fam.final_softcap > 0.0f) {
    c.attn_softcap = float(m.positive("attn_logit_softcapping", fam.attn_softcap, true));
    c.final_softcap = float(m.positive("final_logit_softcapping", fam.final_softcap, true));
  }
  if (fam.has(kGemma)) {
    c.activation = GateActivation::gelu_tanh;
    c.embed_scale = std::sqrt(float(c.d_model));  // llama.cpp: sqrtf(n_embd) in float32
  }
}

// The memory a run of `tokens` positions needs, refused with the numbers when it exceeds what is
// available: in memory (under a cgroup limit, the mapped weights are clean file pages the kernel
// reclaims, so only the copies and activations count) and in address space (RLIMIT_AS: the
// mapping is already in use there, so what is left must hold the copies and activations).
GgufMemory check_memory(const std::string& path, const LlamaConfig& c, const Tensors& t, int64_t tokens) {
  GgufMemory memory;
  memory.tokens = tokens;
  memory.mapped = t.mapped();
  memory.copied = t.copied();
  memory.activations = llama_run_bytes(c, memory.tokens, resolve_threads(0));
  const AvailableMemory available = available_memory();
  const std::string needs = path + ": running it on " + std::to_string(memory.tokens) + " tokens needs about ";
  const std::string parts = " (weights " + format_bytes(memory.mapped) + " mapped from the file, " + format_bytes(memory.copied) +
                            " copied, " + format_bytes(memory.activations) + " of activations and maps); ";
  const int64_t working = memory.copied + memory.activations;
  const int64_t counted = available.counts_mapped ? memory.total() : working;
  if (available.bytes >= 0 && counted > available.bytes) {
    throw InputError(needs + format_bytes(counted) + (available.counts_mapped ? parts : " of working memory" + parts) +
                     format_bytes(available.bytes) + " is available (" + available.source +
                     "). Free memory, shorten the sentence or use a smaller or more quantized file");
  }
  if (const int64_t left = available.address_space_left(); left >= 0 && working > left) {
    throw InputError(needs + format_bytes(memory.total()) + " of address space" + parts + "the limit (RLIMIT_AS: ulimit -v, prlimit --as) is " +
                     format_bytes(available.address_space_limit) + " and " + format_bytes(available.address_space_used) +
                     " of it is in use, the mapping included. Raise the limit, shorten the sentence or use a smaller file");
  }
  return memory;
}

}  // namespace

const std::vector<std::string>& gguf_architectures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const DecoderFamily& f : decoder_families())
      if (f.gguf_arch) v.push_back(f.gguf_arch);
    return v;
  }();
  return names;
}

bool is_gguf_file(const std::string& path) {
  char magic[4] = {};
  try {
    const OpenedFile f(path);  // a FIFO is refused, not waited on; the loader then says what it is
    if (::read(f.fd(), magic, 4) != 4) return false;
  } catch (const IoError&) {
    return false;
  }
  return magic[0] == 'G' && magic[1] == 'G' && magic[2] == 'U' && magic[3] == 'F';
}

GgufModel load_gguf_model(const std::string& path, const std::string& sentence, int generate) {
  // The whole file is mapped: under an address-space limit too small for it, say so before mapping.
  if (struct stat st {}; ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) check_address_space_for_mapping(path, st.st_size);
  const auto file = std::make_shared<const GgufFile>(path);
  const GgufFile& f = *file;
  const DecoderFamily& fam = gguf_family(f);
  const Metadata m(f, fam.gguf_arch);
  int rotary_dim = 0, context = 0;
  LlamaConfig c = read_shapes(f, m, fam, rotary_dim, context);
  Tensors t(file);
  LlamaWeights w = read_weights(t, f, c, fam);
  read_rope_config(c, t, f, m, fam, rotary_dim, context);
  read_layout(c, f, m, fam, rotary_dim);

  // The tokenizer, then the memory a run needs, before anything is computed.
  std::shared_ptr<const SubwordTokenizer> tokenizer = load_gguf_tokenizer(f);
  if (tokenizer->vocab_size() > c.vocab) {
    throw FormatError(path + ": the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                      " tokens but token_embd.weight has only " + std::to_string(c.vocab) + " rows");
  }
  const int bos = int(f.get_int_or("tokenizer.ggml.bos_token_id", -1));
  const int64_t tokens = std::max<int64_t>(1, int64_t(tokenizer->encode(sentence).size())) + std::max(generate, 0);
  const GgufMemory memory = check_memory(path, c, t, tokens);

  ModelInfo info;
  info.kind = "gguf";
  info.family = fam.gguf_arch;
  info.name = f.get_string_or("general.name", file_stem(path));
  if (info.name.empty()) info.name = file_stem(path);
  GgufModel out;
  out.model = std::make_shared<const LlamaModel>(std::move(c), std::move(w), std::move(info));
  out.tokenizer = std::move(tokenizer);
  out.bos_id = bos;
  out.memory = memory;
  return out;
}

}  // namespace hs
