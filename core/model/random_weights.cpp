#include "core/model/random_weights.h"

#include "core/model/llama_forward.h"
#include "core/model/rng.h"
#include "core/util/errors.h"

namespace hs {

const char* const kRandomWeightsInit =
    "every weight matrix (embedding; q, k, v, o; feed-forward gate, down, up) drawn from N(0, 0.02^2), "
    "norm weights 1, biases 0, classifier tied to the embedding; shape, vocabulary, RoPE and masks of the loaded model";

Map random_weight_matrix(const std::string& name, int64_t rows, int64_t cols, uint64_t seed) {
  Rng rng(hash_text(name, seed));
  Map m(rows, cols);
  float* p = m.data();
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = float(double(kRandomWeightStd) * rng.normal());
  return m;
}

namespace {

// A norm or bias of the same length as `like` holding `value` (empty stays empty: the model has none).
Vec random_weights_filled(const Vec& like, float value) { return Vec::Constant(like.size(), value); }

LlamaLayer random_llama_layer(const LlamaLayer& like, int layer, uint64_t seed) {
  const std::string p = "layers." + std::to_string(layer) + ".";
  const auto draw = [&](const char* name, const LinearWeight& w) {
    return LinearWeight(random_weight_matrix(p + name, w.rows(), w.cols(), seed));
  };
  LlamaLayer out;
  out.attn_norm = random_weights_filled(like.attn_norm, 1.0f);
  out.wq = draw("wq", like.wq);
  out.wk = draw("wk", like.wk);
  out.wv = draw("wv", like.wv);
  out.wo = draw("wo", like.wo);
  out.bq = random_weights_filled(like.bq, 0.0f);
  out.bk = random_weights_filled(like.bk, 0.0f);
  out.bv = random_weights_filled(like.bv, 0.0f);
  out.bo = random_weights_filled(like.bo, 0.0f);
  out.q_norm = random_weights_filled(like.q_norm, 1.0f);
  out.k_norm = random_weights_filled(like.k_norm, 1.0f);
  out.post_attn_norm = random_weights_filled(like.post_attn_norm, 1.0f);
  out.ffn_norm = random_weights_filled(like.ffn_norm, 1.0f);
  out.w1 = draw("w1", like.w1);
  out.w2 = draw("w2", like.w2);
  out.w3 = draw("w3", like.w3);
  out.post_ffn_norm = random_weights_filled(like.post_ffn_norm, 1.0f);
  return out;
}

}  // namespace

std::shared_ptr<const TransformerModel> random_weight_model(const TransformerModel& model, uint64_t seed) {
  const auto* llama = dynamic_cast<const LlamaModel*>(&model);
  if (!llama) {
    throw InputError("--null: " + model.info().name + " (" + model.info().kind +
                     ") has no random-weight copy; null models are made for Llama-family decoders (llama2.c, GGUF, "
                     "Hugging Face llama, qwen2, qwen3, mistral, phi3, gemma) and the synthetic layer");
  }
  const LlamaWeights& like = llama->weights();
  LlamaWeights w;
  w.embedding = random_weight_matrix("embedding", like.embedding.rows(), like.embedding.cols(), seed);
  for (size_t l = 0; l < like.layers.size(); ++l) w.layers.push_back(random_llama_layer(like.layers[l], int(l), seed));
  w.final_norm = random_weights_filled(like.final_norm, 1.0f);
  ModelInfo info = model.info();
  info.name = "random-weight " + info.name + " (seed " + std::to_string(seed) + ")";
  return std::make_shared<const LlamaModel>(llama->config(), std::move(w), std::move(info));
}

}  // namespace hs
