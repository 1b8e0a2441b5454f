#pragma once
// Per-architecture weight loading from a Hugging Face folder (shapes checked against config.json).
#include <memory>
#include <string>
#include <vector>

#include "core/model/encoder_forward.h"
#include "core/model/gpt2_forward.h"
#include "core/model/hf_config.h"
#include "core/model/hf_tensors.h"
#include "core/model/llama_forward.h"

namespace hs {

// model_type "gpt2": [transformer.]wte/wpe/h.N.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}/ln_f.
std::unique_ptr<Gpt2Model> load_hf_gpt2(const HfConfig& config, const HfTensors& tensors, const std::string& name);

// The RoPE decoder families of core/model/families.h (a multimodal gemma3's text_config is
// read): model.embed_tokens, model.layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj (fused:
// qkv_proj), self_attn.{q,k}_norm (kQkNorm), post_attention_layernorm,
// pre/post_feedforward_layernorm (kSandwichNorms), mlp.{gate,up,down}_proj (fused: gate_up_proj)},
// model.norm, lm_head (ignored when tied).
std::unique_ptr<LlamaModel> load_hf_decoder(const HfConfig& config, const HfTensors& tensors, const std::string& name);

// The encoder families, model_type bert, roberta, xlm-roberta, distilbert, electra (BERT's layout:
// [prefix.]embeddings.*, encoder.layer.N.{attention.self.{query,key,value}, attention.output.{dense,
// LayerNorm}, intermediate.dense, output.{dense,LayerNorm}}; DistilBERT: transformer.layer.N.{
// attention.{q,k,v,out}_lin, sa_layer_norm, ffn.lin1/2, output_layer_norm}) and modernbert
// ([model.]embeddings.{tok_embeddings,norm}, layers.N.{attn_norm, attn.Wqkv, attn.Wo, mlp_norm,
// mlp.Wi, mlp.Wo}, final_norm). Prefix: the family's ("bert.", "roberta.", "distilbert.",
// "electra.", "model."), "model." or none.
std::unique_ptr<EncoderModel> load_hf_encoder(const HfConfig& config, const HfTensors& tensors, const std::string& name);
bool is_hf_encoder_type(const std::string& model_type);
// The encoder model_types, in the order messages list them.
const std::vector<std::string>& hf_encoder_types();

// The model_types load_hf_folder reads, in the order its messages list them.
const std::vector<std::string>& hf_model_types();

}  // namespace hs
