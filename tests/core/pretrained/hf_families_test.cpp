// The Hugging Face decoder families' config.json and tensor layouts, on tiny folders written
// here: each family's attention layout (windows per layer, soft-caps, score scale, RoPE type,
// partial rotary, local RoPE base) comes out of its config as transformers reads it, every
// unsupported option is refused by name, and issue 14's two loader fixes: a tied lm_head.weight
// in the file is ignored (Llama and GPT-2), and rope_scaling {"rope_type": "default"} is plain RoPE.
// The numbers themselves are checked against PyTorch in hf_families_reference.py.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "core/formats/safetensors.h"
#include "core/model/hf_folder.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

using nlohmann::json;
using Tensors = std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>;

// Vocabulary of 7 pieces, Metaspace BPE: enough for "ab a".
const char* kTokenizerJson = R"({
  "added_tokens": [{"id": 1, "content": "<s>", "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": true},
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [1]}}},
  "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": false,
            "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "\u2581": 3, "a": 4, "b": 5, "\u2581a": 6},
            "merges": ["\u2581 a"]}})";

constexpr int kD = 8, kHeads = 2, kKv = 1, kDh = 4, kInter = 12, kLayers = 3, kVocab = 7;

std::pair<std::vector<int64_t>, std::vector<float>> tensor(std::vector<int64_t> shape, int seed) {
  int64_t n = 1;
  for (const int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * float((i * 7919 + size_t(seed) * 104729) % 13) - 0.6f;
  return {shape, v};
}

// The tensors of `family` in its real names and shapes, under `prefix`.
Tensors family_tensors(const std::string& family, const std::string& prefix = "model.") {
  const int q = kHeads * kDh, kv = kKv * kDh;
  Tensors t;
  int seed = 0;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) { t[name] = tensor(std::move(shape), ++seed); };
  add(prefix + "embed_tokens.weight", {kVocab, kD});
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = prefix + "layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {kD});
    if (family == "phi3") {
      add(p + "self_attn.qkv_proj.weight", {q + 2 * kv, kD});
      add(p + "mlp.gate_up_proj.weight", {2 * kInter, kD});
    } else {
      add(p + "self_attn.q_proj.weight", {q, kD});
      add(p + "self_attn.k_proj.weight", {kv, kD});
      add(p + "self_attn.v_proj.weight", {kv, kD});
      add(p + "mlp.gate_proj.weight", {kInter, kD});
      add(p + "mlp.up_proj.weight", {kInter, kD});
    }
    add(p + "self_attn.o_proj.weight", {kD, q});
    add(p + "mlp.down_proj.weight", {kD, kInter});
    if (family == "qwen2") {
      add(p + "self_attn.q_proj.bias", {q});
      add(p + "self_attn.k_proj.bias", {kv});
      add(p + "self_attn.v_proj.bias", {kv});
    }
    if (family == "qwen3" || family == "gemma3_text" || family == "gemma3") {
      add(p + "self_attn.q_norm.weight", {kDh});
      add(p + "self_attn.k_norm.weight", {kDh});
    }
    add(p + "post_attention_layernorm.weight", {kD});
    if (family == "gemma2" || family == "gemma3_text" || family == "gemma3") {
      add(p + "pre_feedforward_layernorm.weight", {kD});
      add(p + "post_feedforward_layernorm.weight", {kD});
    }
  }
  add(prefix + "norm.weight", {kD});
  return t;
}

json base_config(const std::string& family) {
  return {{"model_type", family},        {"hidden_size", kD},        {"intermediate_size", kInter},
          {"num_hidden_layers", kLayers}, {"num_attention_heads", kHeads}, {"num_key_value_heads", kKv},
          {"head_dim", kDh},             {"vocab_size", kVocab},     {"max_position_embeddings", 32},
          {"tie_word_embeddings", true}};
}

std::string make_folder(const std::string& name, const json& config, const Tensors& tensors) {
  const std::string dir = test::scratch_dir("hf_family_" + name);
  test::write_text(dir + "/config.json", config.dump());
  test::write_text(dir + "/tokenizer.json", kTokenizerJson);
  write_safetensors(dir + "/model.safetensors", tensors);
  return dir;
}

ModelInfo info_of(const std::string& dir) { return load_hf_folder(dir).model->info(); }

template <typename E>
std::string error_of(const std::string& dir) {
  try {
    load_hf_folder(dir);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong error type: ") + e.what();
  }
  return "no error";
}

#define EXPECT_HAS(message, part) EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message) << "\nexpected to contain: " << (part)

struct Layout {
  std::string name, family;
  json extra;  // merged into the config
  std::vector<int> windows;
  float softcap = 0, final_softcap = 0, score_scale = 0;
  std::string rope_type = "default";
  int rotary_dim = kDh;
  float rope_theta = 10000.0f, rope_local_theta = 0.0f;
};

TEST(HfFamilies, EachFamilyReadsItsAttentionLayout) {
  const std::vector<int> none = {-1, -1, -1};
  const std::vector<Layout> cases = {
      {"llama", "llama", json::object(), none},
      {"llama3", "llama",
       {{"rope_theta", 500000.0},
        {"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                          {"original_max_position_embeddings", 16}}}},
       none, 0, 0, 0, "llama3", kDh, 500000.0f},
      {"llama_rope_parameters", "llama",  // transformers 5 writes rope_parameters
       {{"rope_parameters", {{"rope_type", "yarn"}, {"factor", 2.0}, {"rope_theta", 5000.0}, {"original_max_position_embeddings", 16}}}},
       none, 0, 0, 0, "yarn", kDh, 5000.0f},
      {"qwen2", "qwen2", {{"use_sliding_window", true}, {"sliding_window", 4}, {"max_window_layers", 1}}, {-1, 3, 3}},
      {"qwen2_no_window", "qwen2", {{"use_sliding_window", false}, {"sliding_window", 4}}, none},
      {"qwen3_yarn", "qwen3",
       {{"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 8}}}}, none, 0, 0, 0, "yarn"},
      {"mistral", "mistral", {{"sliding_window", 5}}, {4, 4, 4}},
      {"mistral_no_window", "mistral", {{"sliding_window", nullptr}}, none},
      {"phi3", "phi3", {{"partial_rotary_factor", 0.5}, {"sliding_window", 3}}, {2, 2, 2}, 0, 0, 0, "default", 2},
      {"phi3_longrope", "phi3",
       {{"original_max_position_embeddings", 8},
        {"rope_scaling", {{"type", "longrope"}, {"short_factor", {1.0, 1.0}}, {"long_factor", {2.0, 3.0}}}}},
       none, 0, 0, 0, "longrope"},
      {"gemma", "gemma", json::object(), none},
      {"gemma2", "gemma2", {{"sliding_window", 4}, {"query_pre_attn_scalar", 16}}, {3, -1, 3}, 50.0f, 30.0f, 0.25f},
      {"gemma2_layer_types", "gemma2",
       {{"sliding_window", 4}, {"attn_logit_softcapping", 2.0}, {"final_logit_softcapping", nullptr},
        {"layer_types", {"full_attention", "sliding_attention", "sliding_attention"}}},
       {-1, 3, 3}, 2.0f, 0.0f, 1.0f / 16.0f},
      {"gemma3", "gemma3_text",
       {{"sliding_window", 4}, {"sliding_window_pattern", 3}, {"rope_scaling", {{"rope_type", "linear"}, {"factor", 8.0}}}},
       {3, 3, -1}, 0, 0, 1.0f / 16.0f, "linear", kDh, 1000000.0f, 10000.0f},
  };
  for (const Layout& k : cases) {
    SCOPED_TRACE(k.name);
    json cfg = base_config(k.family);
    cfg.update(k.extra);
    const ModelInfo info = info_of(make_folder(k.name, cfg, family_tensors(k.family)));
    EXPECT_EQ(info.family, k.family);
    EXPECT_EQ(info.kind, k.family);
    EXPECT_EQ(info.layer_windows, k.windows);
    EXPECT_FLOAT_EQ(info.softcap, k.softcap);
    EXPECT_FLOAT_EQ(info.final_softcap, k.final_softcap);
    EXPECT_FLOAT_EQ(info.score_scale, k.score_scale);
    EXPECT_EQ(info.rope_type, k.rope_type);
    EXPECT_EQ(info.rotary_dim, k.rotary_dim);
    EXPECT_FLOAT_EQ(info.rope_theta, k.rope_theta);
    EXPECT_FLOAT_EQ(info.rope_local_theta, k.rope_local_theta);
    EXPECT_EQ(info.n_kv_heads, kKv);
    EXPECT_EQ(info.weight_bytes, 4 * info.total_params);
  }
}

// A multimodal Gemma 3 folder: the text model's config is text_config (sparse: Gemma3TextConfig's
// defaults fill in), its tensors live under language_model.model. (or model.language_model.).
TEST(HfFamilies, MultimodalGemma3ReadsItsTextModel) {
  for (const std::string prefix : {"language_model.model.", "model.language_model."}) {
    json text = base_config("gemma3_text");
    text.erase("max_position_embeddings");  // Gemma3TextConfig's default, 131072
    text["sliding_window"] = 2;
    text["sliding_window_pattern"] = 2;
    const json cfg = {{"model_type", "gemma3"}, {"text_config", text}, {"vision_config", {{"hidden_size", 4}}}};
    Tensors t = family_tensors("gemma3", prefix);
    t["vision_tower.vision_model.post_layernorm.weight"] = tensor({4}, 1);  // ignored
    ModelRequest r;
    r.model_path = make_folder("gemma3_multimodal", cfg, t);
    r.sentence = "ab a";
    const AttentionRun run = run_request(r);
    EXPECT_EQ(run.info.family, "gemma3");
    EXPECT_EQ(run.info.layer_windows, std::vector<int>({1, -1, 1}));
    EXPECT_EQ(run.n_tokens(), 4);
  }
}

TEST(HfFamilies, UnsupportedOptionsAreRefusedByName) {
  auto folder = [](const std::string& name, const std::string& family, const json& extra, Tensors t = {}) {
    json cfg = base_config(family);
    cfg.update(extra);
    return make_folder(name, cfg, t.empty() ? family_tensors(family) : t);
  };
  EXPECT_HAS(error_of<InputError>(folder("falcon", "falcon", json::object())), "model_type \"falcon\" is not supported");
  EXPECT_HAS(error_of<InputError>(folder("falcon", "falcon", json::object())), "qwen2, qwen3, mistral, phi3, gemma");
  EXPECT_HAS(error_of<InputError>(folder("mrope", "qwen2", {{"rope_scaling", {{"type", "mrope"}, {"mrope_section", {1, 1}}}}})),
             "rope_scaling type \"mrope\" is not supported (default, linear, dynamic, yarn, llama3, longrope)");
  EXPECT_HAS(error_of<FormatError>(folder("llama3_partial", "llama", {{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}})),
             "rope_scaling.low_freq_factor is missing");
  EXPECT_HAS(error_of<FormatError>(folder("yarn_huge", "qwen3",
                                          {{"rope_scaling", {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 1e12}}}})),
             "rope_scaling.original_max_position_embeddings is 1e+12; expected a whole number of positions");
  EXPECT_HAS(error_of<FormatError>(folder("longrope_len", "phi3",
                                          {{"rope_scaling", {{"type", "su"}, {"short_factor", {1.0}}, {"long_factor", {1.0}}}}})),
             "short_factor has 1 numbers; expected rotary dimensions / 2 = 2");
  EXPECT_HAS(error_of<InputError>(folder("chunked", "gemma2", {{"layer_types", {"full_attention", "chunked_attention", "full_attention"}}})),
             "layer_types[1] is \"chunked_attention\"");
  EXPECT_HAS(error_of<InputError>(folder("gelu_qwen", "qwen2", {{"hidden_act", "gelu"}})), "hidden_act \"gelu\" is not supported");
  EXPECT_HAS(error_of<InputError>(folder("relu_gemma", "gemma", {{"hidden_activation", "relu"}})),
             "hidden_activation \"relu\" is not supported");
  EXPECT_HAS(error_of<InputError>(folder("partial_llama", "llama", {{"partial_rotary_factor", 0.5}})),
             "partial_rotary_factor 0.5 is not supported for model_type \"llama\"");
  EXPECT_HAS(error_of<InputError>(folder("bidirectional", "gemma3_text", {{"use_bidirectional_attention", true}})),
             "use_bidirectional_attention");
  EXPECT_HAS(error_of<FormatError>(folder("window_null", "gemma2",
                                          {{"sliding_window", nullptr},
                                           {"layer_types", {"sliding_attention", "full_attention", "sliding_attention"}}})),
             "layer 0 is a sliding_attention layer but sliding_window is not set");
  EXPECT_EQ(info_of(folder("gemma2_no_window", "gemma2", {{"sliding_window", nullptr}})).layer_windows,
            std::vector<int>({-1, -1, -1}))
      << "Gemma 2 without a sliding_window: every layer global, as transformers masks it";
  Tensors no_qk = family_tensors("qwen3");
  no_qk.erase("model.layers.1.self_attn.q_norm.weight");
  EXPECT_HAS(error_of<FormatError>(folder("qwen3_no_qnorm", "qwen3", json::object(), no_qk)),
             "tensor 'model.layers.1.self_attn.q_norm.weight' (layer 1 per-head query RMSNorm [head_dim], expected shape [4]) is missing");
  Tensors unfused = family_tensors("llama");
  EXPECT_HAS(error_of<FormatError>(folder("phi3_unfused", "phi3", json::object(), unfused)), "self_attn.qkv_proj.weight");
}

// What the model predicts after each position, from the logits the observer is shown.
class LogitsProbe : public Observer {
 public:
  bool wants(TensorKind kind, int, int) const override { return kind == TensorKind::logits; }
  void on_tensor(TensorKind, int, int, const Map& tensor) override { logits = tensor; }
  Map logits;
};

Map logits_of(const std::string& dir) {
  ModelRequest r;
  r.model_path = dir;
  r.sentence = "ab a";
  LogitsProbe probe;
  RunOptions options;
  options.observer = &probe;
  prepare(r)->run(options);
  return probe.logits;
}

// Issue 14: with tie_word_embeddings true (GPT-2's default) the output projection is the
// embedding, as transformers ties it, even when the file also stores an lm_head.weight.
TEST(HfFamilies, TiedEmbeddingsIgnoreAnLmHeadInTheFile) {
  json cfg = base_config("llama");
  cfg["tie_word_embeddings"] = true;
  Tensors t = family_tensors("llama");
  const Map without = logits_of(make_folder("tied_no_head", cfg, t));
  t["lm_head.weight"] = tensor({kVocab, kD}, 99);
  const Map with = logits_of(make_folder("tied_with_head", cfg, t));
  EXPECT_EQ(with, without) << "a tied model must ignore lm_head.weight";
  cfg["tie_word_embeddings"] = false;
  EXPECT_GT((logits_of(make_folder("untied", cfg, t)) - without).cwiseAbs().maxCoeff(), 1e-3f) << "untied: lm_head is used";

  // GPT-2: tie_word_embeddings is true unless set.
  const int d = 8;
  Tensors g;
  int seed = 200;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) { g[name] = tensor(std::move(shape), ++seed); };
  add("wte.weight", {kVocab, d});
  add("wpe.weight", {16, d});
  for (const char* n : {"ln_1.weight", "ln_1.bias", "ln_2.weight", "ln_2.bias", "attn.c_proj.bias", "mlp.c_proj.bias"})
    add(std::string("h.0.") + n, {d});
  add("h.0.attn.c_attn.weight", {d, 3 * d});
  add("h.0.attn.c_attn.bias", {3 * d});
  add("h.0.attn.c_proj.weight", {d, d});
  add("h.0.mlp.c_fc.weight", {d, 4 * d});
  add("h.0.mlp.c_fc.bias", {4 * d});
  add("h.0.mlp.c_proj.weight", {4 * d, d});
  add("ln_f.weight", {d});
  add("ln_f.bias", {d});
  json gpt2 = {{"model_type", "gpt2"}, {"n_embd", d}, {"n_head", 2}, {"n_layer", 1}, {"n_positions", 16}, {"vocab_size", kVocab}};
  const Map g_without = logits_of(make_folder("gpt2_no_head", gpt2, g));
  g["lm_head.weight"] = tensor({kVocab, d}, 98);
  EXPECT_EQ(logits_of(make_folder("gpt2_with_head", gpt2, g)), g_without) << "GPT-2 ties by default";
  gpt2["tie_word_embeddings"] = false;
  EXPECT_GT((logits_of(make_folder("gpt2_untied", gpt2, g)) - g_without).cwiseAbs().maxCoeff(), 1e-3f);
}

// Issue 14: rope_scaling {"rope_type": "default"} (or "type") is plain RoPE.
TEST(HfFamilies, RopeScalingDefaultIsPlainRope) {
  const Tensors t = family_tensors("llama");
  ModelRequest r;
  r.sentence = "ab a b";
  r.model_path = make_folder("rope_none", base_config("llama"), t);
  const AttentionRun plain = run_request(r);
  for (const char* key : {"rope_type", "type"}) {
    json cfg = base_config("llama");
    cfg["rope_scaling"] = {{key, "default"}};
    r.model_path = make_folder(std::string("rope_default_") + key, cfg, t);
    const AttentionRun run = run_request(r);
    EXPECT_EQ(run.info.rope_type, "default");
    for (int l = 0; l < kLayers; ++l)
      for (int h = 0; h < kHeads; ++h) EXPECT_EQ(run.attention[size_t(l)][size_t(h)], plain.attention[size_t(l)][size_t(h)]) << key;
  }
}

}  // namespace
}  // namespace hs
