#include "core/model/attention_config.h"
#include "core/model/hf_loaders.h"
#include "core/util/errors.h"

namespace hs {

std::unique_ptr<LlamaModel> load_hf_llama(const HfConfig& cfg, const HfTensors& t, const std::string& name) {
  LlamaConfig c;
  c.d_model = cfg.integer("hidden_size", 1, kMaxDModel);
  c.hidden = cfg.integer("intermediate_size", 1, 1 << 18);
  c.n_layers = cfg.integer("num_hidden_layers", 1, 1024);
  c.n_heads = cfg.integer("num_attention_heads", 1, kMaxHeads);
  c.n_kv_heads = cfg.integer("num_key_value_heads", 1, c.n_heads, c.n_heads);
  c.vocab = cfg.integer("vocab_size", 1, 1 << 22);
  c.max_positions = cfg.integer("max_position_embeddings", 1, 1 << 22, 2048);
  c.norm_eps = cfg.positive_float("rms_norm_eps", 1e-6, 1.0);
  c.rope_theta = cfg.positive_float("rope_theta", 10000.0, 1e12);
  c.rope = RopePairs::half;
  if (c.n_heads % c.n_kv_heads != 0) {
    throw FormatError(cfg.path() + ": num_key_value_heads (" + std::to_string(c.n_kv_heads) +
                      ") must divide num_attention_heads (" + std::to_string(c.n_heads) + ")");
  }
  if (!cfg.has("head_dim") && c.d_model % c.n_heads != 0) {
    throw FormatError(cfg.path() + ": num_attention_heads (" + std::to_string(c.n_heads) + ") must divide hidden_size (" +
                      std::to_string(c.d_model) + ")");
  }
  c.d_head = cfg.integer("head_dim", 2, 4096, c.d_model / c.n_heads);
  if (c.d_head % 2 != 0) throw FormatError(cfg.path() + ": head_dim " + std::to_string(c.d_head) + " must be even for RoPE");
  if (cfg.has("rope_scaling")) {
    throw InputError(cfg.path() + ": rope_scaling " + cfg.json()["rope_scaling"].dump() +
                     " is not supported (plain RoPE only: Llama 2, TinyLlama, SmolLM-style models)");
  }
  const std::string act = cfg.string("hidden_act", "silu");
  if (act != "silu") throw InputError(cfg.path() + ": hidden_act \"" + act + "\" is not supported (silu only)");
  if (cfg.boolean("mlp_bias", false)) throw InputError(cfg.path() + ": mlp_bias true is not supported");
  const bool bias = cfg.boolean("attention_bias", false);
  const bool tied = cfg.boolean("tie_word_embeddings", false);

  const int64_t d = c.d_model, q = int64_t(c.n_heads) * c.d_head, kv = int64_t(c.n_kv_heads) * c.d_head;
  LlamaWeights w;
  w.embedding = t.matrix("model.embed_tokens.weight", c.vocab, d, "token embedding");
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::string layer = "layer " + std::to_string(l) + " ";
    LlamaLayer L;
    L.attn_norm = t.vector(p + "input_layernorm.weight", d, layer + "attention RMSNorm");
    L.wq = t.matrix(p + "self_attn.q_proj.weight", q, d, layer + "query projection [heads * head_dim, hidden]");
    L.wk = t.matrix(p + "self_attn.k_proj.weight", kv, d, layer + "key projection [kv_heads * head_dim, hidden]");
    L.wv = t.matrix(p + "self_attn.v_proj.weight", kv, d, layer + "value projection [kv_heads * head_dim, hidden]");
    L.wo = t.matrix(p + "self_attn.o_proj.weight", d, q, layer + "output projection");
    if (bias) {
      L.bq = t.vector(p + "self_attn.q_proj.bias", q, layer + "query bias");
      L.bk = t.vector(p + "self_attn.k_proj.bias", kv, layer + "key bias");
      L.bv = t.vector(p + "self_attn.v_proj.bias", kv, layer + "value bias");
      L.bo = t.vector(p + "self_attn.o_proj.bias", d, layer + "output bias");
    }
    L.ffn_norm = t.vector(p + "post_attention_layernorm.weight", d, layer + "MLP RMSNorm");
    L.w1 = t.matrix(p + "mlp.gate_proj.weight", c.hidden, d, layer + "MLP gate projection");
    L.w3 = t.matrix(p + "mlp.up_proj.weight", c.hidden, d, layer + "MLP up projection");
    L.w2 = t.matrix(p + "mlp.down_proj.weight", d, c.hidden, layer + "MLP down projection");
    w.layers.push_back(std::move(L));
  }
  w.final_norm = t.vector("model.norm.weight", d, "final RMSNorm");
  if (!tied || t.has("lm_head.weight")) w.classifier = t.matrix("lm_head.weight", c.vocab, d, "output projection (lm_head)");

  ModelInfo info;
  info.kind = "llama";
  info.name = name;
  return std::make_unique<LlamaModel>(c, std::move(w), info);
}

}  // namespace hs
