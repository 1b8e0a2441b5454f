// Hugging Face folders: a minimal valid llama folder loads and runs; every kind of broken,
// unsupported or mismatched folder is a clear InputError / FormatError naming the file,
// the tensor or key, and what was expected. The folders are written here, in the build tree.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <map>

#include "core/formats/safetensors.h"
#include "core/model/hf_folder.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using Tensors = std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>>;

const char* kTokenizerJson = R"({
  "added_tokens": [{"id": 1, "content": "<s>", "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": true},
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [1]}}},
  "model": {"type": "BPE", "unk_token": "<unk>", "byte_fallback": false,
            "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "\u2581": 3, "a": 4, "b": 5, "\u2581a": 6},
            "merges": ["\u2581 a"]}})";

const char* kConfig = R"({"model_type": "llama", "hidden_size": 8, "intermediate_size": 12, "num_hidden_layers": 1,
  "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 7, "max_position_embeddings": 16,
  "rms_norm_eps": 1e-6, "tie_word_embeddings": true})";

Tensors llama_tensors() {
  auto t = [](std::vector<int64_t> shape) {
    int64_t n = 1;
    for (const int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * float((i * 7919) % 13) - 0.6f;
    return std::make_pair(shape, v);
  };
  const std::string p = "model.layers.0.";
  return {{"model.embed_tokens.weight", t({7, 8})},        {p + "input_layernorm.weight", t({8})},
          {p + "self_attn.q_proj.weight", t({8, 8})},      {p + "self_attn.k_proj.weight", t({4, 8})},
          {p + "self_attn.v_proj.weight", t({4, 8})},      {p + "self_attn.o_proj.weight", t({8, 8})},
          {p + "post_attention_layernorm.weight", t({8})}, {p + "mlp.gate_proj.weight", t({12, 8})},
          {p + "mlp.up_proj.weight", t({12, 8})},          {p + "mlp.down_proj.weight", t({8, 12})},
          {"model.norm.weight", t({8})}};
}

std::string make_folder(const std::string& name, const std::string& config = kConfig, Tensors tensors = llama_tensors()) {
  const std::string dir = test::scratch_dir("hf_" + name);
  test::write_text(dir + "/config.json", config);
  test::write_text(dir + "/tokenizer.json", kTokenizerJson);
  write_safetensors(dir + "/model.safetensors", tensors);
  return dir;
}

// The message of the error load_hf_folder throws, checked to be of type E.
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

const char* kGpt2Config = R"({"model_type": "gpt2", "n_embd": 8, "n_head": 2, "n_layer": 1, "vocab_size": 7,
  "n_positions": 16, "layer_norm_epsilon": 1e-5})";

Tensors gpt2_tensors() {
  auto t = [](std::vector<int64_t> shape, float scale = 1.0f) {
    int64_t n = 1;
    for (const int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * (0.1f * float((i * 7919) % 13) - 0.6f);
    return std::make_pair(shape, v);
  };
  const std::string h = "h.0.";
  return {{"wte.weight", t({7, 8})},          {"wpe.weight", t({16, 8})},          {h + "ln_1.weight", t({8})},
          {h + "ln_1.bias", t({8}, 0.1f)},    {h + "attn.c_attn.weight", t({8, 24})}, {h + "attn.c_attn.bias", t({24}, 0.1f)},
          {h + "attn.c_proj.weight", t({8, 8})}, {h + "attn.c_proj.bias", t({8}, 0.1f)}, {h + "ln_2.weight", t({8})},
          {h + "ln_2.bias", t({8}, 0.1f)},    {h + "mlp.c_fc.weight", t({8, 32})}, {h + "mlp.c_fc.bias", t({32}, 0.1f)},
          {h + "mlp.c_proj.weight", t({32, 8})}, {h + "mlp.c_proj.bias", t({8}, 0.1f)}, {"ln_f.weight", t({8})},
          {"ln_f.bias", t({8}, 0.1f)}};
}

TEST(HfFolder, MinimalLlamaLoadsAndRuns) {
  ModelRequest r;
  r.model_path = make_folder("ok");
  r.sentence = "ab a";
  const AttentionRun run = run_request(r);
  EXPECT_EQ(run.info.kind, "llama");
  EXPECT_EQ(run.info.name, "hf_ok");
  EXPECT_EQ(run.info.n_heads, 2);
  EXPECT_EQ(run.info.n_kv_heads, 1);
  EXPECT_EQ(run.info.param_count, 8 * 8 + 4 * 8 + 4 * 8 + 8 * 8);
  // <s>, "▁a", "b", "▁a": Metaspace turns spaces into ▁, prepends one, splits before each.
  EXPECT_EQ(run.token_ids, std::vector<int>({1, 6, 5, 6}));
  EXPECT_EQ(run.tokens, std::vector<std::string>({"<s>", "\xE2\x96\x81" "a", "b", "\xE2\x96\x81" "a"}));
  for (const LayerMaps& layer : run.attention)
    for (const Map& a : layer)
      for (int i = 0; i < a.rows(); ++i) EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-5f);
}

// The caller's observer sees every layer's output and the logits through the same hook.
class LogitsProbe : public Observer {
 public:
  bool wants(TensorKind kind, int, int) const override { return kind == TensorKind::logits || kind == TensorKind::output; }
  void on_tensor(TensorKind kind, int layer, int, const Map& tensor) override {
    if (kind == TensorKind::logits) logits = tensor;
    else outputs_seen |= 1 << layer;
  }
  Map logits;
  int outputs_seen = 0;
};

TEST(HfFolder, ObserverSeesLogitsAndLayerOutputs) {
  ModelRequest r;
  r.model_path = make_folder("observer");
  r.sentence = "a b ab";
  r.generate = 3;
  LogitsProbe probe;
  RunOptions options;
  options.observer = &probe;
  const AttentionRun run = prepare(r)->run(options);
  ASSERT_EQ(run.prompt_tokens, 6);  // <s> "▁a" "▁" "b" "▁a" "b" ("▁b" is not a piece)
  EXPECT_EQ(std::vector<int>(run.token_ids.begin(), run.token_ids.begin() + 6), std::vector<int>({1, 6, 3, 5, 6, 5}));
  ASSERT_EQ(run.n_tokens(), 9);
  ASSERT_EQ(probe.logits.rows(), run.n_tokens());
  ASSERT_EQ(probe.logits.cols(), 7);
  EXPECT_EQ(probe.outputs_seen, 1) << "one layer announces its attention output";
  for (int t = 0; t < run.n_tokens(); ++t) {
    Eigen::Index best = 0;
    probe.logits.row(t).maxCoeff(&best);
    EXPECT_EQ(run.next_token_ids[size_t(t)], int(best)) << "position " << t;
    if (t + 1 < run.n_tokens() && t + 1 >= run.prompt_tokens) {
      EXPECT_EQ(run.token_ids[size_t(t) + 1], int(best)) << "greedy continuation at position " << t + 1;
    }
  }
}

TEST(HfFolder, UnsupportedModelsAreNamed) {
  std::string cfg = kConfig;
  cfg.replace(cfg.find("\"llama\""), 7, "\"t5\"");
  EXPECT_HAS(error_of<InputError>(make_folder("t5", cfg)), "model_type \"t5\" is not supported");
  cfg = kConfig;
  cfg.insert(1, "\"quantization_config\": {\"bits\": 4},");
  EXPECT_HAS(error_of<InputError>(make_folder("quantized", cfg)), "quantized checkpoints");
  cfg = kConfig;
  cfg.insert(1, "\"rope_scaling\": {\"type\": \"mrope\"},");
  EXPECT_HAS(error_of<InputError>(make_folder("rope_scaling", cfg)), "rope_scaling type \"mrope\" is not supported");

  const std::string dir = make_folder("pickle");
  fs::remove(dir + "/model.safetensors");
  test::write_text(dir + "/pytorch_model.bin", "not a safetensors file");
  EXPECT_HAS(error_of<InputError>(dir), "only safetensors weights are supported");

  const std::string sp = make_folder("sentencepiece");
  fs::remove(sp + "/tokenizer.json");
  test::write_text(sp + "/tokenizer.model", "protobuf");  // read since SentencePiece folders open: a FormatError
  EXPECT_HAS(error_of<FormatError>(sp), "tokenizer.model: ModelProto at byte 2 has wire type 7");

  const std::string empty = test::scratch_dir("hf_empty");
  EXPECT_HAS(error_of<InputError>(empty), "config.json not found");
}

TEST(HfFolder, ConfigValuesAreChecked) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string cfg = kConfig;
    cfg.replace(cfg.find(from), from.size(), to);
    return cfg;
  };
  EXPECT_HAS(error_of<FormatError>(make_folder("kv3", with("\"num_key_value_heads\": 1", "\"num_key_value_heads\": 3"))),
             "\"num_key_value_heads\" is 3; expected 1..2");
  EXPECT_HAS(error_of<FormatError>(make_folder("neg", with("\"hidden_size\": 8", "\"hidden_size\": -8"))),
             "\"hidden_size\" is -8; expected 1..");
  EXPECT_HAS(error_of<FormatError>(make_folder("str", with("\"hidden_size\": 8", "\"hidden_size\": \"8\""))),
             "\"hidden_size\" is \"8\"; expected an integer");
  EXPECT_HAS(error_of<FormatError>(make_folder("nolayers", with("\"num_hidden_layers\": 1,", ""))),
             "\"num_hidden_layers\" is missing");
  EXPECT_HAS(error_of<FormatError>(make_folder("badjson", "{\"model_type\": ")), "config.json: not valid JSON");
  // The tokenizer has 7 pieces; a config claiming 5 cannot belong to it.
  Tensors t = llama_tensors();
  t["model.embed_tokens.weight"].first = {5, 8};
  t["model.embed_tokens.weight"].second.resize(40);
  EXPECT_HAS(error_of<FormatError>(make_folder("vocab", with("\"vocab_size\": 7", "\"vocab_size\": 5"), t)),
             "the tokenizer has 7 pieces but config.json's vocab_size is 5");
}

TEST(HfFolder, TensorsAreCheckedAgainstTheConfig) {
  Tensors missing = llama_tensors();
  missing.erase("model.layers.0.self_attn.k_proj.weight");
  const std::string m = error_of<FormatError>(make_folder("missing", kConfig, missing));
  EXPECT_HAS(m, "model.safetensors: tensor 'model.layers.0.self_attn.k_proj.weight' (layer 0 key projection");
  EXPECT_HAS(m, "expected shape [4, 8]) is missing");

  Tensors wrong = llama_tensors();
  wrong["model.layers.0.self_attn.q_proj.weight"].first = {4, 16};
  const std::string w = error_of<FormatError>(make_folder("shape", kConfig, wrong));
  EXPECT_HAS(w, "tensor 'model.layers.0.self_attn.q_proj.weight' (layer 0 query projection");
  EXPECT_HAS(w, "has shape [4, 16]; expected [8, 8] from config.json");

  std::string untied = kConfig;
  untied.replace(untied.find("true"), 4, "false");
  EXPECT_HAS(error_of<FormatError>(make_folder("untied", untied)), "tensor 'lm_head.weight' (output projection (lm_head)");
}

TEST(HfFolder, CorruptSafetensorsAreFormatErrors) {
  const std::string dir = make_folder("truncated");
  std::vector<uint8_t> bytes = test::read_bytes(dir + "/model.safetensors");
  bytes.resize(bytes.size() - 10);
  test::write_bytes(dir + "/model.safetensors", bytes);
  EXPECT_HAS(error_of<FormatError>(dir), "model.safetensors");

  test::write_bytes(dir + "/model.safetensors", {1, 2, 3});
  EXPECT_HAS(error_of<FormatError>(dir), "not a safetensors file");

  // An integer tensor (as quantized checkpoints hold) where a float one is expected.
  const std::string q = make_folder("int8");
  std::vector<uint8_t> good = test::read_bytes(q + "/model.safetensors");
  uint64_t n = 0;
  std::memcpy(&n, good.data(), 8);
  std::string header(reinterpret_cast<const char*>(good.data() + 8), size_t(n));
  const size_t at = header.find("\"model.norm.weight\":{");
  ASSERT_NE(at, std::string::npos) << header;
  header.replace(header.find("\"F32\"", at), 5, "\"I32\"");  // same size: 8 x 4 bytes
  std::memcpy(good.data() + 8, header.data(), header.size());
  test::write_bytes(q + "/model.safetensors", good);
  EXPECT_HAS(error_of<FormatError>(q), "tensor 'model.norm.weight' has dtype I32; expected F32, F16 or BF16");
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

// The message of the error running a request on the folder throws ("no error" when it runs).
std::string run_error(const std::string& dir, int display_size = 0) {
  ModelRequest r;
  r.model_path = dir;
  r.sentence = "ab a b";
  RunOptions options;
  options.display_size = display_size;
  try {
    prepare(r)->run(options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Issue 15: a NaN in a GPT-2 weight, layer_norm_epsilon -1000 or rms_norm_eps -10 ran to exit 0
// with attention rows summing to 0.06-0.37. Weights are checked finite as they load (naming the
// tensor and element), epsilons and rope_theta in range, and every map the run produces.
TEST(HfFolder, GarbageWeightsAndConfigValuesAreRefused) {
  EXPECT_EQ(run_error(make_folder("gpt2_ok", kGpt2Config, gpt2_tensors())), "no error");
  Tensors nan = gpt2_tensors();
  nan["h.0.attn.c_attn.weight"].second[8 * 24 - 1] = std::numeric_limits<float>::quiet_NaN();
  const std::string n = error_of<FormatError>(make_folder("gpt2_nan", kGpt2Config, nan));
  EXPECT_HAS(n, "model.safetensors: tensor 'h.0.attn.c_attn.weight' [8, 24] has NaN at [7, 23]");
  Tensors inf = llama_tensors();
  inf["model.norm.weight"].second[3] = -std::numeric_limits<float>::infinity();
  EXPECT_HAS(error_of<FormatError>(make_folder("llama_inf", kConfig, inf)), "tensor 'model.norm.weight' [8] has -inf at [3]");

  EXPECT_HAS(error_of<FormatError>(make_folder("gpt2_eps", replaced(kGpt2Config, "1e-5", "-1000"), gpt2_tensors())),
             "config.json: \"layer_norm_epsilon\" is -1000; expected a number greater than 0 and at most 1");
  EXPECT_HAS(error_of<FormatError>(make_folder("llama_eps", replaced(kConfig, "1e-6", "-10"))),
             "\"rms_norm_eps\" is -10; expected a number greater than 0");
  EXPECT_HAS(error_of<FormatError>(make_folder("llama_eps0", replaced(kConfig, "1e-6", "1e-60"))),
             "\"rms_norm_eps\" is 1e-60");  // 0 as a float32
  EXPECT_HAS(error_of<FormatError>(make_folder("llama_theta", replaced(kConfig, "1e-6", "1e-6, \"rope_theta\": 1e39"))),
             "\"rope_theta\" is 1e+39");

  // Finite weights that overflow float32 in the forward pass: scores of inf give NaN rows. The
  // run names the layer and head instead of handing the maps out, in both modes.
  Tensors huge = llama_tensors();
  for (const char* name : {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight"})
    for (float& v : huge[name].second) v = 3e38f;
  const std::string dir = make_folder("llama_overflow", kConfig, huge);
  for (const int display_size : {0, 2}) {
    const std::string o = run_error(dir, display_size);
    EXPECT_HAS(o, "hf_llama_overflow: layer 0, head 0 is not a probability distribution (query ");
    EXPECT_HAS(o, "expected 1");
  }
}

// A tensor in two shards, or a key twice in the index or config.json, was read as whichever came
// last; now each names the files and the key.
TEST(HfFolder, RepeatedTensorsAndKeysAreNamed) {
  const std::string dir = make_folder("shards");
  fs::remove(dir + "/model.safetensors");
  Tensors all = llama_tensors(), first, second;
  for (const auto& [name, t] : all) (name < "model.layers.0.post" ? first : second)[name] = t;
  second["model.norm.weight"] = all["model.norm.weight"];
  first["model.norm.weight"] = all["model.norm.weight"];
  write_safetensors(dir + "/a.safetensors", first);
  write_safetensors(dir + "/b.safetensors", second);
  std::string index = "{\"weight_map\": {";
  for (const auto& [name, t] : all) index += "\"" + name + "\": \"" + (first.count(name) ? "a" : "b") + ".safetensors\", ";
  index += "\"model.layers.0.mlp.up_proj.weight\": \"b.safetensors\"}}";
  test::write_text(dir + "/model.safetensors.index.json", index);
  const std::string m = error_of<FormatError>(dir);
  EXPECT_HAS(m, "model.safetensors.index.json: \"model.layers.0.mlp.up_proj.weight\" appears twice");
  index.replace(index.rfind(", \"model.layers.0.mlp.up_proj.weight\""), std::string::npos, "}}");
  test::write_text(dir + "/model.safetensors.index.json", index);
  const std::string both = error_of<FormatError>(dir);
  EXPECT_HAS(both, "tensor 'model.norm.weight' is in both ");
  EXPECT_HAS(both, "a.safetensors and ");

  EXPECT_HAS(error_of<FormatError>(make_folder("config_twice", replaced(kConfig, "\"hidden_size\": 8,", "\"hidden_size\": 8, \"hidden_size\": 16,"))),
             "config.json: \"hidden_size\" appears twice");
}

TEST(HfFolder, UnsupportedTokenizerPartsAreNamed) {
  const std::string dir = make_folder("wordpiece");
  std::string tj = kTokenizerJson;
  tj.replace(tj.find("\"type\": \"BPE\""), 13, "\"type\": \"WordLevel\"");
  test::write_text(dir + "/tokenizer.json", tj);
  EXPECT_HAS(error_of<FormatError>(dir), "model type \"WordLevel\" is not supported (BPE, Unigram and WordPiece are)");

  tj = kTokenizerJson;
  tj.replace(tj.find("\"normalizer\": null"), 18, "\"normalizer\": {\"type\": \"ByteLevel\"}");
  test::write_text(dir + "/tokenizer.json", tj);
  EXPECT_HAS(error_of<FormatError>(dir), "normalizer ByteLevel is not supported");

  tj = kTokenizerJson;
  tj.replace(tj.find("\"\\u2581 a\""), 10, "\"a q\"");
  test::write_text(dir + "/tokenizer.json", tj);
  EXPECT_HAS(error_of<FormatError>(dir), "merge 0 (\"a\" \"q\") uses a piece that is not in the vocabulary");

  test::write_text(dir + "/tokenizer.json", "{\"model\": ");
  EXPECT_HAS(error_of<FormatError>(dir), "tokenizer.json: not valid JSON");
}

}  // namespace
}  // namespace hs
