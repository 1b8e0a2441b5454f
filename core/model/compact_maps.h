#pragma once
// Long inputs: what the views need of every head's attention map, without holding any [T, T]
// map (12 heads at T = 8192 are 3 GiB of float32). The engine streams each head a block of rows
// at a time (Observer::on_rows); CompactRecorder keeps
//   - a display map per head: [P, P], P = ceil(T / f), each cell the largest weight of an f x f
//     block of (query, key) cells, so a sharp peak never disappears when the map is shrunk;
//   - exact per-head numbers: mean row entropy, largest weight, largest weight off key 0;
//   - the q and k each layer used, from which ExactAttention recomputes any row or cell exactly.
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// Block size f so that ceil(T / f) <= display_size (f >= 1).
int compact_factor(int tokens, int display_size);

// Exact numbers of one head, for views that cannot read them off a whole map.
struct HeadNumbers {
  float mean_entropy = 0;    // mean over queries of -sum_j A_ij log A_ij (nats)
  float max = 0;             // largest weight
  float max_skip_first = 0;  // largest weight outside key column 0
};

struct CompactHead {
  Map display;               // [P, P] block maxima of A_h
  double entropy_sum = 0;    // sum over queries of -sum_j A_ij log A_ij (nats)
  float max = 0;             // largest weight
  float max_skip_first = 0;  // largest weight outside key column 0
  float mean_entropy(int tokens) const { return tokens > 0 ? float(entropy_sum / tokens) : 0.0f; }
};

class CompactRecorder : public Observer {
 public:
  CompactRecorder(int n_layers, int n_heads, int tokens, int display_size);
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;
  bool wants_rows(int layer, int head) const override;
  void on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
               const float* entropy) override;

  int tokens() const { return tokens_; }
  int factor() const { return factor_; }

  std::vector<std::vector<CompactHead>> heads;  // [layer][head]
  std::vector<Map> queries;                     // [layer] -> [T, H*dh]
  std::vector<Map> keys;                        // [layer] -> [T, G*dh]
  Map output;                                   // last layer's output (synthetic, weights)

 private:
  int tokens_, factor_;
  std::vector<std::vector<std::vector<float>>> pending_;  // [layer][head] -> [T] running max of the rows of one display row
};

// Exact rows of A_h from the q and k the engine used: row i is recomputed as the engine computes
// it (S_i = q_i k^T * scale, soft-cap, / temperature, masked, softmax), O(T * d_head) per row.
class ExactAttention {
 public:
  // `config` gives heads, groups, width, mask, scale, soft-cap and temperature of every layer;
  // queries/keys as recorded.
  ExactAttention(const AttentionConfig& config, std::vector<Map> queries, std::vector<Map> keys);
  // One config per layer (layers differ in window: Gemma 2/3, Qwen 2 with max_window_layers).
  ExactAttention(std::vector<AttentionConfig> layer_configs, std::vector<Map> queries, std::vector<Map> keys);
  int n_layers() const { return int(queries_.size()); }
  int tokens() const { return queries_.empty() ? 0 : int(queries_[0].rows()); }
  // Row i of A_h in `layer`: [T], zeros where masked. Throws InputError for indices out of range.
  Vec row(int layer, int head, int query) const;
  float cell(int layer, int head, int query, int key) const;

 private:
  const AttentionConfig& config_of(int layer) const { return configs_.size() == 1 ? configs_[0] : configs_[size_t(layer)]; }

  std::vector<AttentionConfig> configs_;  // one, or one per layer
  std::vector<Map> queries_, keys_;
};

}  // namespace hs
