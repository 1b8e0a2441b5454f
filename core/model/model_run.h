#pragma once
// What one run of a model on a token sequence yields, in the [layer][head] data model every
// view, export and test reads: the tokens, the model's shape, every head's T x T map.
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include <memory>

#include "core/model/attention_config.h"
#include "core/model/compact_maps.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

class NextTokenRows;  // next_token_rows.h

struct ModelInfo {
  std::string kind = "synthetic";  // synthetic | weights | llama2c | attention-file | a Hugging Face model_type (gpt2, llama, bert, ...)
  std::string name;                // shown in titles: "synthetic d_model 8", "stories260K"
  std::string family;              // Hugging Face model_type ("gpt2", "llama", "qwen2", "gemma2", ...); "" otherwise
  int d_model = 0;
  int n_heads = 0;
  int n_kv_heads = 0;
  int d_head = 0;
  int n_layers = 0;
  bool causal = false;
  // The engine's window (AttentionConfig::window): a query i sees keys i - W .. i (and .. i + W
  // when not causal), W + 1 keys back to itself; -1 none. A Hugging Face sliding_window S (a
  // query sees S keys, i - S < j <= i) is W = S - 1. When layers differ, `window` is -1 and
  // layer_windows says which layers are local.
  int window = -1;
  std::vector<int> layer_windows;  // [n_layers] window of each layer (-1: global); empty: every layer `window`
  float temperature = 1.0f;
  float score_scale = 0.0f;        // factor on q . k; 0 = 1 / sqrt(d_head) (Gemma: query_pre_attn_scalar^-1/2)
  float softcap = 0.0f;            // attention logit soft-cap: scores = cap * tanh(scores / cap); 0 = none (Gemma 2)
  float final_softcap = 0.0f;      // the same on the next-token logits; 0 = none
  std::string rope_type;           // positions: "" none or learned (GPT-2, synthetic); "default", "linear", "dynamic",
                                   // "yarn", "llama3", "longrope" (global layers when local ones differ)
  float rope_theta = 0.0f;         // RoPE base of the global layers (0: no RoPE)
  float rope_local_theta = 0.0f;   // RoPE base of the local layers when it differs (Gemma 3), else 0
  int rotary_dim = 0;              // dimensions of each head that RoPE turns (< d_head: partial rotary, Phi-3)
  int64_t param_count = 0;   // learned numbers in one attention layer (Q, K, V, O + biases)
  int64_t total_params = 0;  // whole model (pretrained), else = param_count
  int64_t weight_bytes = 0;  // memory the weights take: 4 bytes per float parameter; a GGUF model's
                             // encoded matrices as mapped from the file (plus its float norms)
  std::string weight_types;  // how the weight matrices are held: "F32" (float32 in memory), or a
                             // GGUF file's types, most bytes first ("Q4_K, Q6_K, F32")
  int vocab_size = 0;        // pretrained only

  // Window of `layer` (-1: global).
  int layer_window(int layer) const {
    return layer_windows.empty() ? window : layer_windows.at(static_cast<size_t>(layer));
  }
  bool is_local_layer(int layer) const { return layer_window(layer) >= 0; }
};

// The attention config every layer's engine call ran with, as ModelInfo describes it.
AttentionConfig layer_attention_config(const ModelInfo& info, int layer);

struct AttentionRun {
  std::vector<std::string> tokens;  // T labels, valid UTF-8
  std::vector<int> token_ids;       // pretrained models only
  ModelInfo info;
  ModelMaps attention;              // [layer][head] -> [T, T], rows sum to 1
  ModelMaps scores;                 // [layer][head] -> [T, T] (only when asked for)
  // With the scores: the q and k every layer used ([layer] -> [T, H*dh] and [T, G*dh], after RoPE
  // and any scrambling), so each head's score matrix before the mask, q_h k_g^T, can be rebuilt.
  std::vector<Map> queries, keys;
  Map output;                       // [T, d_model] last attention layer's output (synthetic, weights)
  std::vector<int> next_token_ids;  // pretrained language models: argmax prediction after each position
  std::vector<std::string> next_tokens;  // (empty for encoders and maps from a file: nothing predicts them)
  // A run made with RunOptions::all_next_tokens false: next_token_ids holds -1 (next_tokens "")
  // where nothing was predicted yet; next_token_id(run, i) (next_token_rows.h) computes it from here.
  std::shared_ptr<const NextTokenRows> next_token_rows;
  int next_token_rows_run = 0;  // positions whose prediction the run itself computed
  // Language models: how likely the model found the text's end, in nats (NaN for anything else):
  // log p of the last token given the ones before it (NaN for a single token), and of its own
  // prediction after the last token; end_log_probs: log p of every vocabulary entry after the last
  // token ([vocab]; a run that reuses this one's prefix reads its last token's probability there).
  float last_token_log_prob = std::numeric_limits<float>::quiet_NaN();
  float next_token_log_prob = std::numeric_limits<float>::quiet_NaN();
  std::shared_ptr<const std::vector<float>> end_log_probs;
  int prompt_tokens = 0;            // tokens that came from the user (the rest were generated)
  // Encoders: the sentence pair and the special tokens (empty / -1 for everything else).
  std::vector<int> token_type_ids;   // [T] each token's segment: 0 for sentence A (and [CLS]), 1 for B
  int segment_b_start = -1;          // first token of sentence B (after the [SEP] between), -1 without one
  std::vector<bool> special_tokens;  // [T] tokens the post-processor added ([CLS], [SEP], <s>, </s>): they
                                     // often take most of the weight, so views may keep them out of the colour range
  // Maps read from a file (--attention): false when some row does not sum to 1 (notes say which).
  bool rows_sum_to_one = true;
  std::vector<std::string> notes;    // what views should tell the user about these maps, one sentence each
  // Long-input mode (RunOptions::display_size): attention[l][h] is [ceil(T / f)]^2 block maxima,
  // f = map_factor; head_numbers and exact are exact. map_factor 1 with exact null: whole maps.
  int map_factor = 1;
  std::vector<std::vector<HeadNumbers>> head_numbers;  // [layer][head], long-input mode only
  std::shared_ptr<const ExactAttention> exact;         // long-input mode only
  // Long-input mode: the whole maps RunOptions::keep asked for, exact (the engine's streamed rows):
  // kept[l][h] is [T, T] where kept_maps.keeps(l, h), empty elsewhere.
  ModelMaps kept;
  MapSelection kept_maps = MapSelection::none();
  bool compact() const { return exact != nullptr; }

  int n_tokens() const { return static_cast<int>(tokens.size()); }
  int n_layers() const { return static_cast<int>(attention.size()); }
  int n_heads() const { return attention.empty() ? 0 : static_cast<int>(attention[0].size()); }
  bool is_special(int token) const {
    return token >= 0 && size_t(token) < special_tokens.size() && special_tokens[size_t(token)];
  }
};

// Long-input mode: moves the recorder's display maps, numbers, q and k into `run`; `config`
// describes the attention every layer ran (for ExactAttention), or `layer_configs` each layer's.
void take_compact(AttentionRun& run, CompactRecorder&& recorder, const AttentionConfig& config);
void take_compact(AttentionRun& run, CompactRecorder&& recorder, std::vector<AttentionConfig> layer_configs);

// Keeps every layer's attention maps (and optionally scores and the output) in [layer][head]
// slots. Safe for the engine's concurrent per-head calls: each call writes its own slot.
class MapRecorder : public Observer {
 public:
  MapRecorder(int n_layers, int n_heads, bool keep_scores = false);
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;

  ModelMaps attention;
  ModelMaps scores;
  std::vector<Map> queries, keys;  // [layer], kept with the scores
  Map output;
  bool keep_output = true;  // false: the caller keeps the layer's returned output itself (no copy)

 private:
  bool keep_scores_;
};

// Forwards each call to two observers (a recorder plus the caller's own hook).
class ObserverPair : public Observer {
 public:
  ObserverPair(Observer* a, Observer* b) : a_(a), b_(b) {}
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;
  bool wants_rows(int layer, int head) const override;
  void on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
               const float* entropy) override;
  int stream_rows() const override;  // the first observer's choice, else the second's

 private:
  Observer* a_;
  Observer* b_;
};

}  // namespace hs
