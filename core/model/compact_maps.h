#pragma once
// Long inputs: what the views need of every head's attention map, without holding any [T, T]
// map (12 heads at T = 8192 are 3 GiB of float32). The engine streams each head a block of rows
// at a time (Observer::on_rows); CompactRecorder keeps
//   - a display map per head: [P, P], P = ceil(T / f), each cell the largest weight of an f x f
//     block of (query, key) cells, so a sharp peak never disappears when the map is shrunk;
//   - exact per-head numbers: mean row entropy, largest weight, largest weight off key 0;
//   - the q and k each layer used, from which ExactAttention recomputes any row or cell exactly;
//   - the whole [T, T] maps a MapSelection asks for (one layer's, one head's), assembled from the
//     same streamed rows, so memory grows with the maps kept, not with layers x heads x T^2.
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// Which whole [T, T] maps a run keeps: every one (a whole-maps run), one layer's, one head's, or
// none. A long-input run keeps the selected ones beside every head's block maxima and numbers.
struct MapSelection {
  bool every = true;  // every layer's and head's map; when false, `layer` and `head` say which
  int layer = -1;     // the layer kept (-1: none)
  int head = -1;      // with a layer: that head alone (-1: every head of the layer)

  static MapSelection all() { return {}; }
  static MapSelection none() { return {false, -1, -1}; }
  static MapSelection of_layer(int l) { return {false, l, -1}; }
  static MapSelection of_head(int l, int h) { return {false, l, h}; }
  bool keeps(int l, int h) const { return every || (l == layer && (head < 0 || h == head)); }
  // How many of n_layers x n_heads maps are kept.
  int64_t count(int n_layers, int n_heads) const;
  // "every map", "layer 12", "layer 12, head 3", "no map".
  std::string describe() const;
};

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
  // `keep`: the whole maps kept (in `kept`); `stream_rows`: query rows per streamed block (0: the engine's).
  CompactRecorder(int n_layers, int n_heads, int tokens, int display_size, MapSelection keep = MapSelection::none(),
                  int stream_rows = 0);
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;
  bool wants_rows(int layer, int head) const override;
  void on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
               const float* entropy) override;
  int stream_rows() const override { return stream_rows_; }

  int tokens() const { return tokens_; }
  int factor() const { return factor_; }
  const MapSelection& keep() const { return keep_; }

  std::vector<std::vector<CompactHead>> heads;  // [layer][head]
  std::vector<Map> queries;                     // [layer] -> [T, H*dh]
  std::vector<Map> keys;                        // [layer] -> [T, G*dh]
  Map output;                                   // last layer's output (synthetic, weights)
  // [layer][head] -> [T, T] exact A_h for the maps `keep` selects, rows as streamed; empty elsewhere.
  ModelMaps kept;

 private:
  int tokens_, factor_;
  MapSelection keep_;
  int stream_rows_;
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
