#include "app/common/model_flags.h"

#include "core/util/errors.h"

namespace hs {

void add_model_flags(CLI::App& app, ModelFlags& f) {
  ModelRequest& r = f.request;
  r.attention.d_model = 8;
  r.attention.n_heads = 4;
  f.sentence_option = app.add_option("--sentence", r.sentence, "Text to tokenize with the active model's tokenizer");
  app.add_option("--input", r.input_npy, "float32 .npy [T, d_model] fed to the attention layer as Q, K and V input");
  app.add_option("--d-model", r.attention.d_model, "Width of the synthetic model")->capture_default_str();
  app.add_option("--heads", r.attention.n_heads, "Query heads (must divide d_model)")->capture_default_str();
  f.kv_heads_option = app.add_option("--kv-heads", r.attention.n_kv_heads,
                 "Key/value heads G (default: heads); query head h reads key/value head h / (heads/G)");
  f.d_head_option = app.add_option("--d-head", r.attention.d_head, "Decoupled head width (default: d_model / heads)");
  app.add_option("--seed", r.seed, "Seed for the synthetic model's embeddings and weights")->capture_default_str();
  app.add_flag("--causal", r.attention.causal, "Causal mask: query i sees keys j <= i");
  app.add_flag("--scrambled-reshape", r.attention.scrambled_reshape,
               "Teaching: split heads with the classic view(heads, T, d_head) mistake");
  f.window_option = app.add_option("--window", f.window, "Sliding window: query i sees keys within W positions (back only with --causal)");
  app.add_option("--temperature", r.attention.temperature, "Divide the scores by this before the softmax")->capture_default_str();
  app.add_option("--weights", r.weights, "nn.MultiheadAttention state_dict as .safetensors (d_model from the file)");
  app.add_option("--model", r.model_path, "Pretrained checkpoint: llama2.c .bin or a Hugging Face folder");
  app.add_option("--tokenizer", r.tokenizer, "Tokenizer file for a llama2.c checkpoint (tokenizer.bin)");
  app.add_option("--generate", r.generate, "Pretrained: continue the sentence greedily by N tokens");
}

ModelRequest model_request(const ModelFlags& flags) {
  ModelRequest r = flags.request;
  if (flags.window_option && flags.window_option->count() > 0 && flags.window < 0) {
    throw InputError("window (" + std::to_string(flags.window) + ") must be 0 or more");
  }
  r.attention.window = flags.window;
  const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
  if (given(flags.sentence_option) && r.sentence.empty()) throw InputError("the sentence is empty: type at least one word");
  if (given(flags.kv_heads_option) && r.attention.n_kv_heads <= 0) {
    throw InputError("key/value heads (" + std::to_string(r.attention.n_kv_heads) + ") must be a positive whole number");
  }
  if (given(flags.d_head_option) && r.attention.d_head <= 0) {
    throw InputError("head width (" + std::to_string(r.attention.d_head) + ") must be a positive whole number");
  }
  return r;
}

}  // namespace hs
