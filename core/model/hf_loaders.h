#pragma once
// Per-architecture weight loading from a Hugging Face folder (shapes checked against config.json).
#include <memory>
#include <string>

#include "core/model/gpt2_forward.h"
#include "core/model/hf_config.h"
#include "core/model/hf_tensors.h"
#include "core/model/llama_forward.h"

namespace hs {

// model_type "gpt2": [transformer.]wte/wpe/h.N.{ln_1,attn.c_attn,attn.c_proj,ln_2,mlp.c_fc,mlp.c_proj}/ln_f.
std::unique_ptr<Gpt2Model> load_hf_gpt2(const HfConfig& config, const HfTensors& tensors, const std::string& name);

// model_type "llama": model.embed_tokens, model.layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
// post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm, lm_head (unless tied).
std::unique_ptr<LlamaModel> load_hf_llama(const HfConfig& config, const HfTensors& tensors, const std::string& name);

}  // namespace hs
