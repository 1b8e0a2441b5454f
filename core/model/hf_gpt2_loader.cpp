#include "core/model/attention_config.h"
#include "core/model/hf_loaders.h"
#include "core/util/errors.h"

namespace hs {

std::unique_ptr<Gpt2Model> load_hf_gpt2(const HfConfig& cfg, const HfTensors& t, const std::string& name) {
  Gpt2Config c;
  c.d_model = cfg.integer("n_embd", 1, kMaxDModel);
  c.n_heads = cfg.integer("n_head", 1, kMaxHeads);
  c.n_layers = cfg.integer("n_layer", 1, 1024);
  c.vocab = cfg.integer("vocab_size", 1, 1 << 22);
  c.max_positions = cfg.integer("n_positions", 1, 1 << 22, cfg.has("n_ctx") ? std::optional<int>(cfg.integer("n_ctx", 1, 1 << 22)) : std::nullopt);
  c.inner = cfg.integer("n_inner", 1, 1 << 18, 4 * c.d_model);
  c.norm_eps = cfg.positive_float("layer_norm_epsilon", 1e-5, 1.0);
  if (c.d_model % c.n_heads != 0) {
    throw FormatError(cfg.path() + ": n_head (" + std::to_string(c.n_heads) + ") must divide n_embd (" + std::to_string(c.d_model) + ")");
  }
  const std::string act = cfg.string("activation_function", "gelu_new");
  if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast") c.gelu = Gelu::tanh_approx;
  else if (act == "gelu") c.gelu = Gelu::exact;
  else throw InputError(cfg.path() + ": activation_function \"" + act + "\" is not supported (gelu_new, gelu_pytorch_tanh, gelu)");
  if (!cfg.boolean("scale_attn_weights", true) || cfg.boolean("scale_attn_by_inverse_layer_idx", false)) {
    throw InputError(cfg.path() + ": only GPT-2's standard 1/sqrt(d_head) attention scaling is supported");
  }

  // Hugging Face's gpt2 checkpoints store names with or without the "transformer." prefix.
  const std::string p = t.has("transformer.wte.weight") ? "transformer." : "";
  const int64_t d = c.d_model;
  Gpt2Weights w;
  w.wte = t.matrix(p + "wte.weight", c.vocab, d, "token embedding");
  w.wpe = t.matrix(p + "wpe.weight", c.max_positions, d, "position embedding");
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string h = p + "h." + std::to_string(l) + ".";
    const std::string layer = "layer " + std::to_string(l) + " ";
    Gpt2Layer L;
    L.ln1_w = t.vector(h + "ln_1.weight", d, layer + "attention LayerNorm weight");
    L.ln1_b = t.vector(h + "ln_1.bias", d, layer + "attention LayerNorm bias");
    L.attn_w = t.matrix(h + "attn.c_attn.weight", d, 3 * d, layer + "Q/K/V projection, Conv1D [in, out]");
    L.attn_b = t.vector(h + "attn.c_attn.bias", 3 * d, layer + "Q/K/V bias");
    L.proj_w = t.matrix(h + "attn.c_proj.weight", d, d, layer + "attention output projection");
    L.proj_b = t.vector(h + "attn.c_proj.bias", d, layer + "attention output bias");
    L.ln2_w = t.vector(h + "ln_2.weight", d, layer + "MLP LayerNorm weight");
    L.ln2_b = t.vector(h + "ln_2.bias", d, layer + "MLP LayerNorm bias");
    L.fc_w = t.matrix(h + "mlp.c_fc.weight", d, c.inner, layer + "MLP up projection, Conv1D [in, out]");
    L.fc_b = t.vector(h + "mlp.c_fc.bias", c.inner, layer + "MLP up bias");
    L.out_w = t.matrix(h + "mlp.c_proj.weight", c.inner, d, layer + "MLP down projection, Conv1D [in, out]");
    L.out_b = t.vector(h + "mlp.c_proj.bias", d, layer + "MLP down bias");
    w.layers.push_back(std::move(L));
  }
  w.lnf_w = t.vector(p + "ln_f.weight", d, "final LayerNorm weight");
  w.lnf_b = t.vector(p + "ln_f.bias", d, "final LayerNorm bias");
  // tie_word_embeddings (true unless set): the output projection is wte, and an lm_head.weight in
  // the file is ignored, as transformers ties it; untied checkpoints must have one.
  if (!cfg.boolean("tie_word_embeddings", true)) w.lm_head = t.matrix("lm_head.weight", c.vocab, d, "output projection");

  ModelInfo info;
  info.kind = "gpt2";
  info.family = "gpt2";
  info.name = name;
  return std::make_unique<Gpt2Model>(c, std::move(w), info);
}

}  // namespace hs
