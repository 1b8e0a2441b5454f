// The Hugging Face encoder families, all run by EncoderModel: what each config.json key means
// follows transformers' configuration_*.py and modeling_*.py of bert, roberta, xlm_roberta,
// distilbert, electra and modernbert (class defaults included: config.json often leaves out what
// equals them). Tensor names carry the task model's prefix ("bert.", "roberta.", "distilbert.",
// "electra.", "model.") or none (the bare *Model); heads on top (pooler, MLM, classifier) are ignored.
#include <algorithm>
#include <cmath>

#include "core/formats/json_strict.h"
#include "core/model/attention_config.h"
#include "core/model/hf_loaders.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

using nlohmann::json;

enum class EncoderFamily { bert, roberta, distilbert, electra, modernbert };

struct FamilyInfo {
  const char* type;
  EncoderFamily family;
  const char* prefix;  // the task models' base_model_prefix
};

constexpr FamilyInfo kEncoders[] = {
    {"bert", EncoderFamily::bert, "bert."},
    {"roberta", EncoderFamily::roberta, "roberta."},
    {"xlm-roberta", EncoderFamily::roberta, "roberta."},
    {"distilbert", EncoderFamily::distilbert, "distilbert."},
    {"electra", EncoderFamily::electra, "electra."},
    {"modernbert", EncoderFamily::modernbert, "model."},
};

const FamilyInfo* family_of(const std::string& type) {
  for (const FamilyInfo& f : kEncoders)
    if (type == f.type) return &f;
  return nullptr;
}

// hidden_act / activation / hidden_activation -> the function (transformers' ACT2FN names).
EncoderActivation activation_of(const HfConfig& cfg, const std::string& key, const std::string& fallback) {
  const std::string act = cfg.string(key, fallback);
  if (act == "gelu" || act == "gelu_python") return EncoderActivation::gelu;
  if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast") return EncoderActivation::gelu_tanh;
  if (act == "relu") return EncoderActivation::relu;
  if (act == "silu" || act == "swish") return EncoderActivation::silu;
  throw InputError(cfg.path() + ": " + key + " \"" + excerpt(act) +
                   "\" is not supported (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu)");
}

float norm_eps(const HfConfig& cfg, const std::string& key, double fallback) {
  const double eps = cfg.number(key, fallback);
  if (!(eps > 0.0 && eps < 1.0)) {
    throw FormatError(cfg.path() + ": \"" + key + "\" is " + std::to_string(eps) + "; expected a small positive number");
  }
  return static_cast<float>(eps);
}

// The prefix the file's tensors carry: the family's, "model.", or none; chosen by where the word
// embedding is (the missing-tensor message then names the family's usual name).
std::string tensor_prefix(const HfTensors& t, const FamilyInfo& fam, const std::string& embedding) {
  for (const char* p : {fam.prefix, "model.", ""})
    if (t.has(p + embedding)) return p;
  return fam.prefix;
}

// A LayerNorm's weight and bias, stored as weight/bias or (old TensorFlow conversions of BERT) gamma/beta.
// The bias may be absent only when `bias_optional` (ModernBERT's norm_bias false).
void layer_norm_of(const HfTensors& t, const std::string& base, int64_t d, const std::string& what, Vec& w, Vec& b,
                   bool has_bias = true) {
  const bool old_names = !t.has(base + ".weight") && t.has(base + ".gamma");
  w = t.vector(base + (old_names ? ".gamma" : ".weight"), d, what + " weight");
  if (has_bias) b = t.vector(base + (old_names ? ".beta" : ".bias"), d, what + " bias");
}

// A linear layer [out, in] and (when `bias`) its bias [out].
void linear_of(const HfTensors& t, const std::string& base, int64_t out, int64_t in, const std::string& what, Map& w,
               Vec& b, bool bias = true) {
  w = t.matrix(base + ".weight", out, in, what);
  if (bias) b = t.vector(base + ".bias", out, what + " bias");
}

void require_heads_divide(const HfConfig& cfg, int d, int heads, const char* d_key, const char* heads_key) {
  if (d % heads != 0) {
    throw FormatError(cfg.path() + ": " + heads_key + " (" + std::to_string(heads) + ") must divide " + d_key + " (" +
                      std::to_string(d) + ")");
  }
}

// ---------------------------------------------------------------- layer names

// Where one layer keeps its tensors, relative to "<layers>.<l>.". Post-norm layers (BERT) read
// q, k, v, attention output, its LayerNorm, MLP in, out, its LayerNorm; pre-norm layers
// (ModernBERT) the attention LayerNorm (none in layer 0), the fused q|k|v, attention output, the
// MLP LayerNorm, MLP in and out.
struct LayerNames {
  const char* layers;  // "encoder.layer" (BERT), "transformer.layer" (DistilBERT), "layers" (ModernBERT)
  const char* qkv;     // fused [3d, d]: q rows, then k, then v (qkv.view(T, 3, H, dh)); nullptr: the next three
  const char* query;
  const char* key;
  const char* value;
  const char* attn_out;
  const char* attn_norm;
  const char* ffn_in;
  const char* ffn_out;
  const char* ffn_norm;
  bool pre_norm;
  int ffn_in_factor;        // rows of ffn_in per intermediate unit (GeGLU: 2, input and gate)
  const char* ffn_in_what;  // ffn_in in messages
};

// The three layouts, fields in LayerNames' order.
constexpr LayerNames kBertNames = {"encoder.layer", nullptr, "attention.self.query", "attention.self.key", "attention.self.value",
                                   "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
                                   "output.LayerNorm", false, 1, "feed-forward up projection"};
constexpr LayerNames kDistilbertNames = {"transformer.layer", nullptr, "attention.q_lin", "attention.k_lin", "attention.v_lin",
                                         "attention.out_lin", "sa_layer_norm", "ffn.lin1", "ffn.lin2",
                                         "output_layer_norm", false, 1, "feed-forward up projection"};
constexpr LayerNames kModernBertNames = {"layers", "attn.Wqkv", nullptr, nullptr, nullptr,
                                         "attn.Wo", "attn_norm", "mlp.Wi", "mlp.Wo",
                                         "mlp_norm", true, 2, "GeGLU input and gate projection"};

// Which biases the layers have (ModernBERT: norm_bias, attention_bias, mlp_bias; BERT: all).
struct LayerBiases {
  bool norm = true, attention = true, mlp = true;
};

// Layer l's q, k, v projections: three tensors, or rows of the fused one.
void load_qkv(const HfTensors& t, const std::string& b, const LayerNames& n, int64_t d, const std::string& layer, bool bias,
              EncoderLayer& L) {
  if (!n.qkv) {
    linear_of(t, b + n.query, d, d, layer + "query projection", L.wq, L.bq, bias);
    linear_of(t, b + n.key, d, d, layer + "key projection", L.wk, L.bk, bias);
    linear_of(t, b + n.value, d, d, layer + "value projection", L.wv, L.bv, bias);
    return;
  }
  Map qkv;  // [3d, d]
  Vec qkv_b;
  linear_of(t, b + n.qkv, 3 * d, d, layer + "fused Q/K/V projection", qkv, qkv_b, bias);
  L.wq = qkv.topRows(d);
  L.wk = qkv.middleRows(d, d);
  L.wv = qkv.bottomRows(d);
  if (bias) {
    L.bq = qkv_b.head(d);
    L.bk = qkv_b.segment(d, d);
    L.bv = qkv_b.tail(d);
  }
}

// Every layer's attention, LayerNorms and feed-forward under the names `n` (prefix `p`).
void load_layers(const HfTensors& t, const std::string& p, const LayerNames& n, const LayerBiases& biases, const EncoderConfig& c,
                 EncoderWeights& w) {
  const int64_t d = c.d_model;
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string b = p + n.layers + "." + std::to_string(l) + ".";
    const std::string layer = "layer " + std::to_string(l) + " ";
    EncoderLayer L;
    auto attn_norm = [&] {
      layer_norm_of(t, b + n.attn_norm, d, layer + "attention LayerNorm", L.attn_norm_w, L.attn_norm_b, biases.norm);
    };
    auto ffn_norm = [&] {
      layer_norm_of(t, b + n.ffn_norm, d, layer + "feed-forward LayerNorm", L.ffn_norm_w, L.ffn_norm_b, biases.norm);
    };
    if (n.pre_norm && l > 0) attn_norm();
    load_qkv(t, b, n, d, layer, biases.attention, L);
    linear_of(t, b + n.attn_out, d, d, layer + "attention output projection", L.wo, L.bo, biases.attention);
    if (!n.pre_norm) attn_norm();
    if (n.pre_norm) ffn_norm();
    linear_of(t, b + n.ffn_in, n.ffn_in_factor * int64_t(c.inner), d, layer + n.ffn_in_what, L.w_in, L.b_in, biases.mlp);
    linear_of(t, b + n.ffn_out, d, c.inner, layer + "feed-forward down projection", L.w_out, L.b_out, biases.mlp);
    if (!n.pre_norm) ffn_norm();
    w.layers.push_back(std::move(L));
  }
}

std::unique_ptr<EncoderModel> make_encoder(EncoderConfig c, EncoderWeights w, const FamilyInfo& fam, const std::string& name) {
  ModelInfo info;
  info.kind = fam.type;
  info.family = fam.type;
  info.name = name;
  return std::make_unique<EncoderModel>(std::move(c), std::move(w), info);
}

// bert, roberta / xlm-roberta, electra: BertEmbeddings + BertLayer names.
std::unique_ptr<EncoderModel> load_bert_like(const HfConfig& cfg, const HfTensors& t, const FamilyInfo& fam,
                                             const std::string& name) {
  EncoderConfig c;
  c.layout = EncoderLayout::bert;
  c.d_model = cfg.integer("hidden_size", 1, kMaxDModel);
  c.n_layers = cfg.integer("num_hidden_layers", 1, 1024);
  c.n_heads = cfg.integer("num_attention_heads", 1, kMaxHeads);
  c.inner = cfg.integer("intermediate_size", 1, 1 << 18);
  c.vocab = cfg.integer("vocab_size", 1, 1 << 22);
  c.positions = cfg.integer("max_position_embeddings", 1, 1 << 20, 512);
  c.type_vocab = cfg.integer("type_vocab_size", 0, 1 << 10, 2);
  c.norm_eps = norm_eps(cfg, "layer_norm_eps", 1e-12);
  c.activation = activation_of(cfg, "hidden_act", "gelu");
  c.embed_dim = fam.family == EncoderFamily::electra ? cfg.integer("embedding_size", 1, kMaxDModel, 128) : c.d_model;
  require_heads_divide(cfg, c.d_model, c.n_heads, "hidden_size", "num_attention_heads");
  const std::string position_type = cfg.string("position_embedding_type", "absolute");
  if (position_type != "absolute") {
    throw InputError(cfg.path() + ": position_embedding_type \"" + excerpt(position_type) +
                     "\" is not supported; headscope runs learned absolute positions (\"absolute\")");
  }
  if (cfg.boolean("is_decoder", false)) {
    throw InputError(cfg.path() + ": is_decoder is true (a causal " + fam.type + "); headscope runs " + fam.type +
                     " as a bidirectional encoder");
  }
  if (fam.family == EncoderFamily::roberta) {
    // RoBERTa numbers positions from padding_idx + 1 (create_position_ids_from_input_ids).
    const int pad = cfg.integer("pad_token_id", 0, 1 << 20, 1);
    c.position_offset = pad + 1;
    if (c.position_offset >= c.positions) {
      throw FormatError(cfg.path() + ": pad_token_id (" + std::to_string(pad) + ") leaves no position below max_position_embeddings (" +
                        std::to_string(c.positions) + ")");
    }
  }

  const std::string p = tensor_prefix(t, fam, "embeddings.word_embeddings.weight");
  const int64_t d = c.d_model, e = c.embed_dim;
  EncoderWeights w;
  w.word = t.matrix(p + "embeddings.word_embeddings.weight", c.vocab, e, "token embedding");
  w.position = t.matrix(p + "embeddings.position_embeddings.weight", c.positions, e, "position embedding");
  if (c.type_vocab > 0) w.token_type = t.matrix(p + "embeddings.token_type_embeddings.weight", c.type_vocab, e, "token type embedding");
  layer_norm_of(t, p + "embeddings.LayerNorm", e, "embedding LayerNorm", w.emb_norm_w, w.emb_norm_b);
  if (fam.family == EncoderFamily::electra && e != d) {
    linear_of(t, p + "embeddings_project", d, e, "embedding projection (embedding_size -> hidden_size)", w.emb_project,
              w.emb_project_b);
  }
  load_layers(t, p, kBertNames, LayerBiases{}, c, w);
  return make_encoder(std::move(c), std::move(w), fam, name);
}

// distilbert: its own names (q_lin, sa_layer_norm, ffn.lin1, ...), no token types, LayerNorm eps 1e-12.
std::unique_ptr<EncoderModel> load_distilbert(const HfConfig& cfg, const HfTensors& t, const FamilyInfo& fam,
                                              const std::string& name) {
  EncoderConfig c;
  c.layout = EncoderLayout::bert;
  c.d_model = cfg.integer("dim", 1, kMaxDModel);
  c.n_layers = cfg.integer("n_layers", 1, 1024);
  c.n_heads = cfg.integer("n_heads", 1, kMaxHeads);
  c.inner = cfg.integer("hidden_dim", 1, 1 << 18);
  c.vocab = cfg.integer("vocab_size", 1, 1 << 22);
  c.positions = cfg.integer("max_position_embeddings", 1, 1 << 20, 512);
  c.embed_dim = c.d_model;
  c.type_vocab = 0;
  c.norm_eps = 1e-12f;  // fixed in modeling_distilbert.py
  c.activation = activation_of(cfg, "activation", "gelu");
  require_heads_divide(cfg, c.d_model, c.n_heads, "dim", "n_heads");

  const std::string p = tensor_prefix(t, fam, "embeddings.word_embeddings.weight");
  const int64_t d = c.d_model;
  EncoderWeights w;
  w.word = t.matrix(p + "embeddings.word_embeddings.weight", c.vocab, d, "token embedding");
  // sinusoidal_pos_embds: the sinusoids are written into this table, which the file stores.
  w.position = t.matrix(p + "embeddings.position_embeddings.weight", c.positions, d, "position embedding");
  layer_norm_of(t, p + "embeddings.LayerNorm", d, "embedding LayerNorm", w.emb_norm_w, w.emb_norm_b);
  load_layers(t, p, kDistilbertNames, LayerBiases{}, c, w);
  return make_encoder(std::move(c), std::move(w), fam, name);
}

// ---------------------------------------------------------------- ModernBERT

// The RoPE base of one layer type: transformers 5's rope_parameters[type] ({"rope_type": "default",
// "rope_theta": ...}), else the older global_rope_theta / local_rope_theta keys.
double modernbert_theta(const HfConfig& cfg, const char* type, const char* old_key, double fallback) {
  if (cfg.has("rope_parameters")) {
    const json& rp = cfg.json()["rope_parameters"];
    if (!rp.is_object()) throw FormatError(cfg.path() + ": rope_parameters is " + json_excerpt(rp) + "; expected an object");
    if (rp.contains(type) && !rp[type].is_null()) {
      const json& p = rp[type];
      if (!p.is_object()) throw FormatError(cfg.path() + ": rope_parameters." + type + " is " + json_excerpt(p) + "; expected an object");
      const std::string kind = p.contains("rope_type") && p["rope_type"].is_string() ? p["rope_type"].get<std::string>() : "default";
      if (kind != "default") {
        throw InputError(cfg.path() + ": rope_parameters." + type + ".rope_type \"" + excerpt(kind) +
                         "\" is not supported for modernbert (default)");
      }
      if (p.contains("rope_theta")) {
        if (!p["rope_theta"].is_number() || !(p["rope_theta"].get<double>() > 0.0) || !std::isfinite(p["rope_theta"].get<double>())) {
          throw FormatError(cfg.path() + ": rope_parameters." + type + ".rope_theta is " + json_excerpt(p["rope_theta"]) +
                            "; expected a positive number");
        }
        return p["rope_theta"].get<double>();
      }
    }
  }
  const double theta = cfg.number(old_key, fallback);
  if (!(theta > 0.0 && std::isfinite(theta))) {
    throw FormatError(cfg.path() + ": \"" + old_key + "\" is " + std::to_string(theta) + "; expected a positive number");
  }
  return theta;
}

std::unique_ptr<EncoderModel> load_modernbert(const HfConfig& cfg, const HfTensors& t, const FamilyInfo& fam,
                                              const std::string& name) {
  EncoderConfig c;
  c.layout = EncoderLayout::modernbert;
  c.d_model = cfg.integer("hidden_size", 1, kMaxDModel);
  c.n_layers = cfg.integer("num_hidden_layers", 1, 1024);
  c.n_heads = cfg.integer("num_attention_heads", 1, kMaxHeads);
  c.inner = cfg.integer("intermediate_size", 1, 1 << 18);
  c.vocab = cfg.integer("vocab_size", 1, 1 << 22);
  c.positions = cfg.integer("max_position_embeddings", 1, 1 << 24, 8192);
  c.embed_dim = c.d_model;
  c.norm_eps = norm_eps(cfg, "norm_eps", 1e-5);
  c.activation = activation_of(cfg, "hidden_activation", "gelu");
  require_heads_divide(cfg, c.d_model, c.n_heads, "hidden_size", "num_attention_heads");
  if (c.d_head() % 2 != 0) {
    throw FormatError(cfg.path() + ": head width hidden_size / num_attention_heads = " + std::to_string(c.d_head()) +
                      " must be even for RoPE");
  }
  if (cfg.has("rope_scaling")) throw InputError(cfg.path() + ": rope_scaling is not supported for modernbert");
  const bool norm_bias = cfg.boolean("norm_bias", false), attention_bias = cfg.boolean("attention_bias", false);
  const bool mlp_bias = cfg.boolean("mlp_bias", false);

  // Local layers: layer l % global_attn_every_n_layers != 0 sees keys with |i - j| <= local_attention / 2
  // (ModernBertAttention); layer_types, when given, decides their RoPE base and must agree.
  const int every = cfg.integer("global_attn_every_n_layers", 1, 1 << 20, 3);
  const int local = cfg.integer("local_attention", 0, 1 << 24, 128);
  std::vector<bool> is_local(size_t(c.n_layers));
  for (int l = 0; l < c.n_layers; ++l) is_local[size_t(l)] = l % every != 0;
  if (cfg.has("layer_types")) {
    const json& types = cfg.json()["layer_types"];
    if (!types.is_array() || int(types.size()) != c.n_layers) {
      throw FormatError(cfg.path() + ": \"layer_types\" must list one type per layer (" + std::to_string(c.n_layers) + ")");
    }
    for (int l = 0; l < c.n_layers; ++l) {
      const std::string ty = types[size_t(l)].is_string() ? types[size_t(l)].get<std::string>() : types[size_t(l)].dump();
      if (ty != "sliding_attention" && ty != "full_attention") {
        throw InputError(cfg.path() + ": layer_types[" + std::to_string(l) + "] is \"" + excerpt(ty) +
                         "\"; modernbert has full_attention and sliding_attention layers");
      }
      if ((ty == "sliding_attention") != is_local[size_t(l)]) {
        throw InputError(cfg.path() + ": layer_types[" + std::to_string(l) + "] is \"" + excerpt(ty) +
                         "\" but global_attn_every_n_layers " + std::to_string(every) + " makes layer " + std::to_string(l) +
                         (is_local[size_t(l)] ? " local" : " global") + "; headscope runs them only when they agree");
      }
    }
  }
  for (int l = 0; l < c.n_layers; ++l) c.layer_windows.push_back(is_local[size_t(l)] ? local / 2 : -1);
  c.rope_theta = modernbert_theta(cfg, "full_attention", "global_rope_theta", 160000.0);
  // local_rope_theta null: the local layers rotate with the global base (transformers 4.48).
  c.rope_local_theta = cfg.is_null("local_rope_theta") && !cfg.has("rope_parameters")
                           ? c.rope_theta
                           : modernbert_theta(cfg, "sliding_attention", "local_rope_theta", 10000.0);

  const std::string p = tensor_prefix(t, fam, "embeddings.tok_embeddings.weight");
  const int64_t d = c.d_model;
  EncoderWeights w;
  w.word = t.matrix(p + "embeddings.tok_embeddings.weight", c.vocab, d, "token embedding");
  layer_norm_of(t, p + "embeddings.norm", d, "embedding LayerNorm", w.emb_norm_w, w.emb_norm_b, norm_bias);
  load_layers(t, p, kModernBertNames, LayerBiases{norm_bias, attention_bias, mlp_bias}, c, w);
  layer_norm_of(t, p + "final_norm", d, "final LayerNorm", w.final_norm_w, w.final_norm_b, norm_bias);
  return make_encoder(std::move(c), std::move(w), fam, name);
}

}  // namespace

bool is_hf_encoder_type(const std::string& model_type) { return family_of(model_type) != nullptr; }

const std::vector<std::string>& hf_encoder_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> v;
    for (const FamilyInfo& f : kEncoders) v.push_back(f.type);
    return v;
  }();
  return types;
}

std::unique_ptr<EncoderModel> load_hf_encoder(const HfConfig& cfg, const HfTensors& t, const std::string& name) {
  const std::string type = cfg.string("model_type", "");
  const FamilyInfo* fam = family_of(type);
  if (!fam) throw InputError(cfg.path() + ": model_type \"" + excerpt(type) + "\" is not an encoder family headscope reads");
  switch (fam->family) {
    case EncoderFamily::distilbert: return load_distilbert(cfg, t, *fam, name);
    case EncoderFamily::modernbert: return load_modernbert(cfg, t, *fam, name);
    default: return load_bert_like(cfg, t, *fam, name);
  }
}

}  // namespace hs
