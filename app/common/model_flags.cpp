#include "app/common/model_flags.h"

#include <stdexcept>

#include "core/util/errors.h"

namespace hs {

void add_model_flags(CLI::App& app, ModelFlags& f) {
  ModelRequest& r = f.request;
  r.attention.d_model = 8;
  r.attention.n_heads = 4;
  f.sentence_option = app.add_option("--sentence", r.sentence, "Text to tokenize with the active model's tokenizer");
  f.sentence_b_option = app.add_option("--sentence-b", r.sentence_b,
                                       "Encoders: a second sentence, encoded as the model's pair ([CLS] A [SEP] B [SEP], "
                                       "token types 0 then 1; RoBERTa <s> A </s></s> B </s>)");
  f.input_ids_option = app.add_option("--input-ids", f.input_ids,
                                      "Pretrained: token ids instead of --sentence, the whole sequence as the model reads "
                                      "it (e.g. \"101,7592,102\" from a Python tokenizer; no special token is added)");
  f.token_type_ids_option = app.add_option("--token-type-ids", f.token_type_ids,
                                           "With --input-ids: each token's segment, 0 or 1 (encoders with token types)");
  f.attention_option = app.add_option("--attention", r.attention_file,
                                      "Attention maps made elsewhere: .safetensors or .npz with [layers, heads, T, T] "
                                      "(docs/attention-file.md; tools/export_attention.py writes it)");
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

std::vector<int> parse_id_list(const std::string& text, const std::string& flag) {
  std::vector<int> ids;
  std::string item;
  const auto take = [&] {
    if (item.empty()) return;
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != item.size() || v < 0 || v > (1LL << 30)) {
      throw InputError(flag + ": '" + item + "' is not a token id; give whole numbers 0 or more separated by commas, " +
                       "e.g. 101,7592,102");
    }
    ids.push_back(int(v));
    item.clear();
  };
  for (const char ch : text) {
    if (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '[' || ch == ']') take();
    else item += ch;
  }
  take();
  if (ids.empty()) throw InputError(flag + " is empty: give at least one token id, e.g. 101,7592,102");
  return ids;
}

ModelRequest model_request(const ModelFlags& flags) {
  ModelRequest r = flags.request;
  if (flags.window_option && flags.window_option->count() > 0 && flags.window < 0) {
    throw InputError("window (" + std::to_string(flags.window) + ") must be 0 or more");
  }
  r.attention.window = flags.window;
  const auto given = [](const CLI::Option* o) { return o && o->count() > 0; };
  if (given(flags.sentence_option) && r.sentence.empty()) throw InputError("the sentence is empty: type at least one word");
  if (given(flags.sentence_b_option) && r.sentence_b.empty()) throw InputError("the second sentence (--sentence-b) is empty");
  if (given(flags.attention_option) && r.attention_file.empty()) throw InputError("--attention needs a file name");
  if (given(flags.input_ids_option)) r.input_ids = parse_id_list(flags.input_ids, "--input-ids");
  if (given(flags.token_type_ids_option)) r.token_type_ids = parse_id_list(flags.token_type_ids, "--token-type-ids");
  if (given(flags.kv_heads_option) && r.attention.n_kv_heads <= 0) {
    throw InputError("key/value heads (" + std::to_string(r.attention.n_kv_heads) + ") must be a positive whole number");
  }
  if (given(flags.d_head_option) && r.attention.d_head <= 0) {
    throw InputError("head width (" + std::to_string(r.attention.d_head) + ") must be a positive whole number");
  }
  return r;
}

}  // namespace hs
