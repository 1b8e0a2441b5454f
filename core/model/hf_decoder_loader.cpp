// The RoPE decoder families of Hugging Face folders, all run by LlamaModel with options: what each
// config.json key means follows transformers' configuration_*.py and modeling_*.py (defaults
// included: config.json often leaves out what equals the class default).
#include <algorithm>
#include <cmath>

#include "core/formats/json_strict.h"
#include "core/model/attention_config.h"
#include "core/model/families.h"
#include "core/model/hf_loaders.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

using nlohmann::json;

// A number of config.json that may be switched off with null: `fallback` when absent, 0 when null.
double optional_number(const HfConfig& cfg, const std::string& key, double fallback) {
  if (cfg.is_null(key)) return 0.0;
  const double v = cfg.number(key, fallback);
  if (!(v >= 0.0 && std::isfinite(v))) throw FormatError(cfg.path() + ": \"" + key + "\" is " + number_text(v) + "; expected 0 or more");
  return v;
}

// Rounds x to a float format with `bits` significant bits (bfloat16: 8, float16: 11), ties to even,
// as torch does when a float32 scalar is cast to the model's dtype. x is positive and in range.
float round_to_bits(float x, int bits) {
  int e = 0;
  const double m = std::frexp(double(x), &e);  // x = m 2^e, m in [0.5, 1)
  return float(std::ldexp(std::nearbyint(std::ldexp(m, bits)), e - bits));
}

// sqrt(d_model) as Gemma multiplies the embeddings by it: a float32 scalar cast to the dtype the
// model runs in (config.json's torch_dtype, else the embedding's stored dtype), so bfloat16 Gemma
// scales by 55.5 where sqrt(3072) = 55.43.
float gemma_embed_scale(const HfConfig& cfg, const HfTensors& t, const std::string& embedding, int d_model) {
  const float s = static_cast<float>(std::sqrt(double(d_model)));
  std::string dtype = cfg.string("torch_dtype", cfg.string("dtype", ""));
  if (dtype.empty()) {
    const DType stored = t.dtype(embedding);
    dtype = stored == DType::BF16 ? "bfloat16" : stored == DType::F16 ? "float16" : "float32";
  }
  if (dtype == "bfloat16") return round_to_bits(s, 8);
  if (dtype == "float16") return round_to_bits(s, 11);
  return s;
}

// ---------------------------------------------------------------- RoPE

// One RoPE scaling object (rope_scaling, or a transformers 5 rope_parameters entry) -> RopeSpec.
// `where` names it in messages ("config.json: rope_scaling").
RopeSpec read_rope_scaling(const json& rs, const std::string& where, const HfConfig& cfg, int max_positions) {
  RopeSpec s;
  s.max_positions = max_positions;
  if (rs.is_null()) return s;
  if (!rs.is_object()) throw FormatError(where + " is " + json_excerpt(rs) + "; expected an object or null");
  auto number = [&](const char* key, double fallback, bool required) {
    if (!rs.contains(key) || rs[key].is_null()) {
      if (required) throw FormatError(where + "." + key + " is missing (needed by its rope type)");
      return fallback;
    }
    if (!rs[key].is_number()) throw FormatError(where + "." + key + " is " + json_excerpt(rs[key]) + "; expected a number");
    const double v = rs[key].get<double>();
    if (!std::isfinite(v)) throw FormatError(where + "." + key + " is not a finite number");
    return v;
  };
  auto positive = [&](const char* key, double fallback, bool required) {
    const double v = number(key, fallback, required);
    if (!(v > 0.0)) throw FormatError(where + "." + key + " is " + number_text(v) + "; expected a positive number");
    return v;
  };
  // A count of positions: a whole number in 1 .. 2^30.
  auto positions = [&](const char* key, double fallback, bool required) {
    const double v = number(key, fallback, required);
    if (!(v >= 1.0 && v <= double(1 << 30)) || v != std::floor(v)) {
      throw FormatError(where + "." + key + " is " + number_text(v) + "; expected a whole number of positions, 1 to 2^30");
    }
    return int(v);
  };
  std::string type = "default";
  for (const char* key : {"rope_type", "type"}) {
    if (rs.contains(key) && rs[key].is_string()) {
      type = rs[key].get<std::string>();
      break;
    }
  }
  if (type == "default") {
    s.type = RopeType::plain;
  } else if (type == "linear") {
    s.type = RopeType::linear;
    s.factor = positive("factor", 1.0, true);
  } else if (type == "dynamic") {
    s.type = RopeType::dynamic;
    s.factor = positive("factor", 1.0, true);
  } else if (type == "yarn") {
    // transformers 5: factor as configured (4.5x replaced it with max / original when the
    // original length was given; the two agree when max_position_embeddings = factor * original).
    s.type = RopeType::yarn;
    s.factor = positive("factor", 1.0, true);
    s.original_max_positions = positions("original_max_position_embeddings", max_positions, false);
    s.beta_fast = positive("beta_fast", 32.0, false);
    s.beta_slow = positive("beta_slow", 1.0, false);
    s.attention_factor = number("attention_factor", 0.0, false);
    s.mscale = number("mscale", 0.0, false);
    s.mscale_all_dim = number("mscale_all_dim", 0.0, false);
    if (rs.contains("truncate") && rs["truncate"].is_boolean()) s.truncate = rs["truncate"].get<bool>();
  } else if (type == "llama3") {
    s.type = RopeType::llama3;
    s.factor = positive("factor", 1.0, true);
    s.low_freq_factor = positive("low_freq_factor", 1.0, true);
    s.high_freq_factor = positive("high_freq_factor", 4.0, true);
    s.original_max_positions = positions("original_max_position_embeddings", 8192, true);
    if (s.high_freq_factor == s.low_freq_factor) {
      throw FormatError(where + ": low_freq_factor and high_freq_factor are both " + number_text(s.low_freq_factor) +
                        "; llama3 scaling needs them different");
    }
  } else if (type == "longrope" || type == "su") {
    s.type = RopeType::longrope;
    s.original_max_positions = positions("original_max_position_embeddings",
                                         cfg.number("original_max_position_embeddings", double(max_positions)), false);
    s.factor = positive("factor", double(max_positions) / s.original_max_positions, false);
    s.attention_factor = number("attention_factor", 0.0, false);
    for (const char* key : {"short_factor", "long_factor"}) {
      if (!rs.contains(key) || !rs[key].is_array()) throw FormatError(where + "." + key + " is missing (a list of numbers)");
      std::vector<double>& out = std::string(key) == "short_factor" ? s.short_factor : s.long_factor;
      for (const json& v : rs[key]) {
        if (!v.is_number() || !(v.get<double>() > 0.0)) throw FormatError(where + "." + key + " holds " + json_excerpt(v) + "; expected positive numbers");
        out.push_back(v.get<double>());
      }
    }
  } else {
    throw InputError(where + " type \"" + excerpt(type) + "\" is not supported (default, linear, dynamic, yarn, llama3, longrope)");
  }
  return s;
}

// ---------------------------------------------------------------- attention layout

// Which layers use a sliding window: config.json's layer_types when given, else the family's rule.
std::vector<bool> local_layers(const HfConfig& cfg, const DecoderFamily& fam, int n_layers, bool windowed) {
  std::vector<bool> local(size_t(n_layers), false);
  if (cfg.has("layer_types")) {
    const json& types = cfg.json()["layer_types"];
    if (!types.is_array() || int(types.size()) != n_layers) {
      throw FormatError(cfg.path() + ": \"layer_types\" must list one type per layer (" + std::to_string(n_layers) + ")");
    }
    for (int l = 0; l < n_layers; ++l) {
      const std::string t = types[size_t(l)].is_string() ? types[size_t(l)].get<std::string>() : types[size_t(l)].dump();
      if (t == "sliding_attention") local[size_t(l)] = true;
      else if (t != "full_attention") {
        throw InputError(cfg.path() + ": layer_types[" + std::to_string(l) + "] is \"" + excerpt(t) +
                         "\"; headscope runs full_attention and sliding_attention layers");
      }
    }
    return local;
  }
  if (!windowed) return local;
  if (fam.has(kWindowSwitch)) {
    const int first_local = cfg.integer("max_window_layers", 0, 1 << 20, 28);
    for (int l = 0; l < n_layers; ++l) local[size_t(l)] = l >= first_local;
    return local;
  }
  // Every `pattern`-th layer is global: (l + 1) % pattern == 0 (Gemma 2: even layers local, odd global).
  int pattern = fam.local_period;
  if (fam.has(kPatternKey))
    pattern = cfg.integer("sliding_window_pattern", 1, 1 << 20, cfg.integer("_sliding_window_pattern", 1, 1 << 20, pattern));
  return periodic_local_layers(n_layers, pattern);
}

// The sliding window S of config.json (a query i sees keys i - S < j <= i), 0 when there is none.
int sliding_window(const HfConfig& cfg, const DecoderFamily& fam) {
  const WindowKey& key = fam.hf_window;
  if (!key.read) return 0;  // llama, gemma: none
  if (fam.has(kWindowSwitch) && !cfg.boolean("use_sliding_window", false)) return 0;
  if (cfg.is_null("sliding_window")) {
    if (fam.has(kWindowSwitch)) {
      throw FormatError(cfg.path() + ": use_sliding_window is true but sliding_window is null");
    }
    return 0;
  }
  return cfg.integer("sliding_window", key.fallback > 0 ? 1 : 0, 1 << 30, key.fallback);
}

// The tensor names' prefix: "model." (CausalLM checkpoints), or the language model inside a
// multimodal Gemma 3 ("language_model.model." before transformers 4.52, "model.language_model." after).
std::string tensor_prefix(const HfTensors& t) {
  for (const char* p : {"model.", "language_model.model.", "model.language_model."})
    if (t.has(std::string(p) + "embed_tokens.weight")) return p;
  return "model.";  // the missing-tensor message then names the usual name
}

// Rows [first, first + n) of a fused weight [rows, cols] (Phi-3's qkv_proj and gate_up_proj).
Map rows_of(const Map& m, int64_t first, int64_t n) { return m.middleRows(first, n); }

// ---------------------------------------------------------------- the steps of load_hf_decoder

// The text model's config and family: config.json itself, or the text_config of a multimodal
// model_type (gemma3).
struct DecoderFolder {
  HfConfig cfg;
  const DecoderFamily* fam;
  bool nested;
  std::string type;      // the text model's model_type
  std::string top_type;  // config.json's
};

DecoderFolder decoder_folder(const HfConfig& top) {
  const std::string top_type = top.string("model_type", "");
  const DecoderFamily* outer = family_of_hf_outer_type(top_type);
  const bool nested = outer != nullptr;
  if (nested && !top.has("text_config")) throw FormatError(top.path() + ": model_type \"" + excerpt(top_type) + "\" without a text_config");
  HfConfig cfg = nested ? HfConfig(top.path() + " text_config", top.json()["text_config"]) : top;
  const std::string type = nested ? outer->hf_type : top_type;
  const DecoderFamily* fam = family_of_hf_type(type);
  if (!fam) throw InputError(top.path() + ": model_type \"" + excerpt(type) + "\" is not a RoPE decoder family headscope reads");
  return {std::move(cfg), fam, nested, type, top_type};
}

// Sizes, heads and the RMSNorm epsilon. Structural sizes are required at the top level (their
// absence means a broken file); a nested text_config leaves out whatever equals Gemma3TextConfig's defaults.
LlamaConfig read_shapes(const HfConfig& cfg, const DecoderFamily& fam, bool nested) {
  const FamilyDefaults& def = fam.defaults;
  auto size = [&](const char* key, int64_t lo, int64_t hi, int fallback) {
    return nested ? cfg.integer(key, lo, hi, fallback) : cfg.integer(key, lo, hi);
  };
  LlamaConfig c;
  c.d_model = size("hidden_size", 1, kMaxDModel, def.hidden);
  c.hidden = size("intermediate_size", 1, 1 << 18, def.inter);
  c.n_layers = size("num_hidden_layers", 1, 1024, def.layers);
  c.n_heads = size("num_attention_heads", 1, kMaxHeads, def.heads);
  c.n_kv_heads = cfg.integer("num_key_value_heads", 1, c.n_heads, def.kv_heads > 0 && def.kv_heads <= c.n_heads ? def.kv_heads : c.n_heads);
  c.vocab = size("vocab_size", 1, 1 << 22, def.vocab);
  c.max_positions = cfg.integer("max_position_embeddings", 1, 1 << 24, def.max_positions);
  c.norm_eps = cfg.positive_float("rms_norm_eps", def.norm_eps, 1.0);
  c.rope = RopePairs::half;
  const ShapeKeys keys{cfg.path(), "num_attention_heads", "num_key_value_heads", "hidden_size", "head_dim", ""};
  check_decoder_shape(c, cfg.has("head_dim") || def.head_dim > 0, [&](int per_head) {
    return cfg.integer("head_dim", 2, 4096, def.head_dim > 0 ? def.head_dim : per_head);
  }, keys);
  return c;
}

// RoPE: rope_theta + rope_scaling (transformers 4), or rope_parameters (transformers 5; per layer
// type for Gemma 3; `global_params` is its entry for the global layers). Partial rotary (Phi-3):
// the first int(head_dim * partial_rotary_factor) dims. Returns the rotary dimensions.
int read_rope(LlamaConfig& c, const HfConfig& cfg, const DecoderFamily& fam, const std::string& type, const json& global_params,
              int max_positions) {
  double theta = cfg.number("rope_theta", fam.defaults.rope_theta);
  if (global_params.is_object() && global_params.contains("rope_theta") && global_params["rope_theta"].is_number())
    theta = global_params["rope_theta"].get<double>();
  if (!(theta > 0.0 && theta <= 1e12)) {  // past 1e12 the float32 frequencies are meaningless (and 1e39 is inf)
    throw FormatError(cfg.path() + ": \"rope_theta\" is " + number_text(theta) + "; expected a number greater than 0 and at most 1e12");
  }
  c.rope_theta = static_cast<float>(theta);
  double partial = cfg.number("partial_rotary_factor", 1.0);
  if (global_params.is_object() && global_params.contains("partial_rotary_factor") && global_params["partial_rotary_factor"].is_number())
    partial = global_params["partial_rotary_factor"].get<double>();
  if (!(partial > 0.0 && partial <= 1.0)) {
    throw FormatError(cfg.path() + ": partial_rotary_factor is " + number_text(partial) + "; expected more than 0 and at most 1");
  }
  if (partial != 1.0 && !fam.has(kFused)) {
    throw InputError(cfg.path() + ": partial_rotary_factor " + number_text(partial) + " is not supported for model_type \"" + type +
                     "\" (transformers rotates the whole head there; Phi-3 rotates part)");
  }
  const int rotary_dim = int(c.d_head * partial);
  if (rotary_dim < 2 || rotary_dim % 2 != 0) {
    throw FormatError(cfg.path() + ": head_dim " + std::to_string(c.d_head) + " x partial_rotary_factor " + number_text(partial) +
                      " gives " + std::to_string(rotary_dim) + " rotary dimensions; expected an even number, 2 or more");
  }
  const json scaling = cfg.has("rope_scaling") ? cfg.json()["rope_scaling"] : global_params.is_object() ? global_params : json();
  c.rope_global = read_rope_scaling(scaling, cfg.path() + ": " + (cfg.has("rope_scaling") ? "rope_scaling" : "rope_parameters"),
                                    cfg, max_positions);
  c.rope_global.theta = theta;
  c.rope_global.rotary_dim = rotary_dim;
  if (c.rope_global.type == RopeType::longrope && int(c.rope_global.short_factor.size()) != rotary_dim / 2) {
    throw FormatError(cfg.path() + ": rope_scaling.short_factor has " + std::to_string(c.rope_global.short_factor.size()) +
                      " numbers; expected rotary dimensions / 2 = " + std::to_string(rotary_dim / 2));
  }
  if (c.rope_global.type == RopeType::longrope && c.rope_global.long_factor.size() != c.rope_global.short_factor.size()) {
    throw FormatError(cfg.path() + ": rope_scaling.long_factor and short_factor differ in length");
  }
  // Dynamic NTK exists to run past max_position_embeddings: allow factor times as many.
  if (c.rope_global.type == RopeType::dynamic) c.max_positions = int(std::min(double(1 << 24), max_positions * c.rope_global.factor));
  return rotary_dim;
}

// Attention layout: sliding windows per layer (engine window W = S - 1: S keys including itself),
// Gemma 3's local RoPE, Gemma 2 / 3's score scale and soft-caps.
void read_layout(LlamaConfig& c, const HfConfig& cfg, const DecoderFamily& fam, const json& rope_parameters, bool per_type,
                 int max_positions, int rotary_dim) {
  const int window = sliding_window(cfg, fam);
  const std::vector<bool> local = local_layers(cfg, fam, c.n_layers, window > 0);
  for (int l = 0; l < c.n_layers; ++l) {
    if (local[size_t(l)] && window <= 0) {
      throw FormatError(cfg.path() + ": layer " + std::to_string(l) + " is a sliding_attention layer but sliding_window is not set");
    }
  }
  c.layer_windows = layer_windows(window, local);
  if (fam.has(kLocalRope)) {
    // Local layers rotate with rope_local_base_freq and no scaling; global ones as configured.
    c.use_local_rope = true;
    c.rope_local.theta = cfg.number("rope_local_base_freq", 10000.0);
    if (per_type && rope_parameters.contains("sliding_attention") && rope_parameters["sliding_attention"].is_object()) {
      c.rope_local = read_rope_scaling(rope_parameters["sliding_attention"], cfg.path() + ": rope_parameters.sliding_attention",
                                       cfg, max_positions);
      const json& p = rope_parameters["sliding_attention"];
      c.rope_local.theta = p.contains("rope_theta") && p["rope_theta"].is_number() ? p["rope_theta"].get<double>() : 10000.0;
    }
    if (!(c.rope_local.theta > 0.0)) throw FormatError(cfg.path() + ": rope_local_base_freq must be positive");
    c.rope_local.rotary_dim = rotary_dim;
  }
  if (fam.has(kQueryScalar)) {
    const double scalar = cfg.number("query_pre_attn_scalar", 256.0);
    if (!(scalar > 0.0)) throw FormatError(cfg.path() + ": query_pre_attn_scalar must be positive");
    c.attn_scale = static_cast<float>(1.0 / std::sqrt(scalar));
    c.attn_softcap = float(optional_number(cfg, "attn_logit_softcapping", fam.attn_softcap));
    c.final_softcap = float(optional_number(cfg, "final_logit_softcapping", fam.final_softcap));
    if (cfg.boolean("use_bidirectional_attention", false)) {
      throw InputError(cfg.path() + ": use_bidirectional_attention true (an encoder) is not supported; headscope runs decoders");
    }
  }
}

// The feed-forward activation (SwiGLU, or Gemma's GeGLU); an MLP with biases is refused.
void read_activation(LlamaConfig& c, const HfConfig& cfg, const DecoderFamily& fam) {
  if (fam.has(kGemma)) {
    // Gemma's reference uses GELU's tanh approximation; transformers reads hidden_activation
    // (gelu_pytorch_tanh when unset).
    const std::string act = cfg.string("hidden_activation", "gelu_pytorch_tanh");
    if (act == "gelu_pytorch_tanh" || act == "gelu_new" || act == "gelu_fast") c.activation = GateActivation::gelu_tanh;
    else if (act == "gelu") c.activation = GateActivation::gelu;
    else throw InputError(cfg.path() + ": hidden_activation \"" + excerpt(act) + "\" is not supported (gelu_pytorch_tanh, gelu)");
  } else {
    const std::string act = cfg.string("hidden_act", "silu");
    if (act != "silu") throw InputError(cfg.path() + ": hidden_act \"" + excerpt(act) + "\" is not supported (silu only)");
  }
  if (cfg.boolean("mlp_bias", false)) throw InputError(cfg.path() + ": mlp_bias true is not supported");
}

// Where a layer's tensors are and what it holds: the names' prefix "<prefix>layers.<l>.", the
// attention biases, and the family (Gemma's RMSNorm multiplies by 1 + w: stored here as 1 + w).
struct LayerReader {
  const HfTensors& t;
  const LlamaConfig& c;
  const DecoderFamily& fam;
  std::string prefix;
  bool qkv_bias, o_bias;

  Vec norm(const std::string& tensor, int64_t n, const std::string& what) const {
    Vec w = t.vector(tensor, n, what);
    if (fam.has(kGemma)) w.array() += 1.0f;
    return w;
  }
  LlamaLayer layer(int l) const {
    LlamaLayer L;
    attention(l, L);
    feed_forward(l, L);
    return L;
  }
  void attention(int l, LlamaLayer& L) const;
  void feed_forward(int l, LlamaLayer& L) const;
};

// Layer l's attention norm, projections, biases and per-head norms.
void LayerReader::attention(int l, LlamaLayer& L) const {
  const int64_t d = c.d_model, q = int64_t(c.n_heads) * c.d_head, kv = int64_t(c.n_kv_heads) * c.d_head, dh = c.d_head;
  const std::string lp = prefix + "layers." + std::to_string(l) + ".";
  const std::string layer = "layer " + std::to_string(l) + " ";
  L.attn_norm = norm(lp + "input_layernorm.weight", d, layer + "attention RMSNorm");
  if (fam.has(kFused)) {
    // qkv: [H*dh + 2*G*dh, d], rows q | k | v (transformers slices the product's columns the same way).
    const Map qkv = t.matrix(lp + "self_attn.qkv_proj.weight", q + 2 * kv, d,
                             layer + "fused query/key/value projection [(heads + 2 kv_heads) * head_dim, hidden]");
    L.wq = rows_of(qkv, 0, q);
    L.wk = rows_of(qkv, q, kv);
    L.wv = rows_of(qkv, q + kv, kv);
  } else {
    L.wq = t.matrix(lp + "self_attn.q_proj.weight", q, d, layer + "query projection [heads * head_dim, hidden]");
    L.wk = t.matrix(lp + "self_attn.k_proj.weight", kv, d, layer + "key projection [kv_heads * head_dim, hidden]");
    L.wv = t.matrix(lp + "self_attn.v_proj.weight", kv, d, layer + "value projection [kv_heads * head_dim, hidden]");
  }
  L.wo = t.matrix(lp + "self_attn.o_proj.weight", d, q, layer + "output projection");
  if (qkv_bias) {
    L.bq = t.vector(lp + "self_attn.q_proj.bias", q, layer + "query bias");
    L.bk = t.vector(lp + "self_attn.k_proj.bias", kv, layer + "key bias");
    L.bv = t.vector(lp + "self_attn.v_proj.bias", kv, layer + "value bias");
  }
  if (o_bias) L.bo = t.vector(lp + "self_attn.o_proj.bias", d, layer + "output bias");
  if (fam.has(kQkNorm)) {
    L.q_norm = norm(lp + "self_attn.q_norm.weight", dh, layer + "per-head query RMSNorm [head_dim]");
    L.k_norm = norm(lp + "self_attn.k_norm.weight", dh, layer + "per-head key RMSNorm [head_dim]");
  }
}

// Layer l's MLP norms and projections.
void LayerReader::feed_forward(int l, LlamaLayer& L) const {
  const int64_t d = c.d_model;
  const std::string lp = prefix + "layers." + std::to_string(l) + ".";
  const std::string layer = "layer " + std::to_string(l) + " ";
  if (fam.has(kSandwichNorms)) {
    // Sandwich norms: post_attention_layernorm normalises the attention output here (in Llama
    // it is the norm before the MLP), pre_feedforward_layernorm comes before the MLP.
    L.post_attn_norm = norm(lp + "post_attention_layernorm.weight", d, layer + "attention output RMSNorm");
    L.ffn_norm = norm(lp + "pre_feedforward_layernorm.weight", d, layer + "MLP RMSNorm");
    L.post_ffn_norm = norm(lp + "post_feedforward_layernorm.weight", d, layer + "MLP output RMSNorm");
  } else {
    L.ffn_norm = norm(lp + "post_attention_layernorm.weight", d, layer + "MLP RMSNorm");
  }
  if (fam.has(kFused)) {
    // gate_up: [2 * hidden, d], rows gate | up (chunk(2) of the product: gate first).
    const Map gate_up = t.matrix(lp + "mlp.gate_up_proj.weight", 2 * int64_t(c.hidden), d,
                                 layer + "fused MLP gate/up projection [2 * intermediate, hidden]");
    L.w1 = rows_of(gate_up, 0, c.hidden);         // gate: the first half of the output
    L.w3 = rows_of(gate_up, c.hidden, c.hidden);  // up: the second half
  } else {
    L.w1 = t.matrix(lp + "mlp.gate_proj.weight", c.hidden, d, layer + "MLP gate projection");
    L.w3 = t.matrix(lp + "mlp.up_proj.weight", c.hidden, d, layer + "MLP up projection");
  }
  L.w2 = t.matrix(lp + "mlp.down_proj.weight", d, c.hidden, layer + "MLP down projection");
}

// Every tensor, checked against c (whose embed_scale is set for Gemma). Biases: Qwen 2 always has
// q/k/v biases and none on o; Mistral and Phi-3 none; the others follow attention_bias. Tied
// embeddings: the top-level key (also for a multimodal Gemma 3), else the text config's, else the
// family's default; tied means an lm_head.weight in the file is ignored, as transformers ties it.
LlamaWeights read_weights(LlamaConfig& c, const HfConfig& top, const HfConfig& cfg, const HfTensors& t, const DecoderFamily& fam) {
  bool qkv_bias = fam.hf_biases == Biases::qkv, o_bias = false;
  if (fam.hf_biases == Biases::configured) qkv_bias = o_bias = cfg.boolean("attention_bias", false);
  const bool tied = top.boolean("tie_word_embeddings", cfg.boolean("tie_word_embeddings", fam.defaults.tied));
  const LayerReader reader{t, c, fam, tensor_prefix(t), qkv_bias, o_bias};
  const std::string& p = reader.prefix;
  LlamaWeights w;
  const std::string embedding = p + "embed_tokens.weight";
  w.embedding = t.matrix(embedding, c.vocab, c.d_model, "token embedding");
  if (fam.has(kGemma)) c.embed_scale = gemma_embed_scale(cfg, t, embedding, c.d_model);
  for (int l = 0; l < c.n_layers; ++l) w.layers.push_back(reader.layer(l));
  w.final_norm = reader.norm(p + "norm.weight", c.d_model, "final RMSNorm");
  if (!tied) {
    const std::string head = t.has("lm_head.weight") || !t.has("language_model.lm_head.weight") ? "lm_head.weight"
                                                                                                : "language_model.lm_head.weight";
    w.classifier = t.matrix(head, c.vocab, c.d_model, "output projection (lm_head)");
  }
  return w;
}

}  // namespace

std::unique_ptr<LlamaModel> load_hf_decoder(const HfConfig& top, const HfTensors& t, const std::string& name) {
  const DecoderFolder folder = decoder_folder(top);
  const HfConfig& cfg = folder.cfg;
  const DecoderFamily& fam = *folder.fam;
  LlamaConfig c = read_shapes(cfg, fam, folder.nested);
  const int max_positions = c.max_positions;
  const json rope_parameters = cfg.has("rope_parameters") ? cfg.json()["rope_parameters"] : json();
  const bool per_type = rope_parameters.is_object() && rope_parameters.contains("full_attention");
  const json global_params = per_type ? rope_parameters["full_attention"] : rope_parameters;
  const int rotary_dim = read_rope(c, cfg, fam, folder.type, global_params, max_positions);
  read_layout(c, cfg, fam, rope_parameters, per_type, max_positions, rotary_dim);
  read_activation(c, cfg, fam);
  LlamaWeights w = read_weights(c, top, cfg, t, fam);

  ModelInfo info;
  info.kind = folder.top_type;
  info.family = folder.top_type;
  info.name = name;
  return std::make_unique<LlamaModel>(std::move(c), std::move(w), info);
}

}  // namespace hs
