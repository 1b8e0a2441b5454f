#include "core/model/compact_maps.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/model/attention_layer.h"
#include "core/util/errors.h"
#include "core/util/kernels.h"

namespace hs {

int compact_factor(int tokens, int display_size) {  // in 64 bits: display_size may be INT_MAX
  if (display_size < 1) throw InputError("display size (" + std::to_string(display_size) + ") must be 1 or more");
  return static_cast<int>(std::max<int64_t>(1, (int64_t(tokens) + display_size - 1) / display_size));
}

int64_t MapSelection::count(int n_layers, int n_heads) const {
  if (every) return int64_t(n_layers) * n_heads;
  if (layer < 0 || layer >= n_layers) return 0;
  return head < 0 ? n_heads : head < n_heads ? 1 : 0;
}

std::string MapSelection::describe() const {
  if (every) return "every map";
  if (layer < 0) return "no map";
  return "layer " + std::to_string(layer) + (head >= 0 ? ", head " + std::to_string(head) : std::string());
}

CompactRecorder::CompactRecorder(int n_layers, int n_heads, int tokens, int display_size, MapSelection keep,
                                 int stream_rows)
    : heads(size_t(n_layers), std::vector<CompactHead>(size_t(n_heads))),
      queries(size_t(n_layers)),
      keys(size_t(n_layers)),
      kept(size_t(n_layers), LayerMaps(size_t(n_heads))),
      tokens_(tokens),
      factor_(compact_factor(tokens, display_size)),
      keep_(keep),
      stream_rows_(std::max(0, stream_rows)),
      pending_(size_t(n_layers), std::vector<std::vector<float>>(size_t(n_heads))) {
  const int p = (tokens + factor_ - 1) / factor_;
  for (auto& layer : heads)
    for (CompactHead& h : layer) h.display = Map::Zero(p, p);
}

bool CompactRecorder::wants(TensorKind kind, int layer, int head) const {
  (void)head;
  const bool in_range = layer >= 0 && layer < int(heads.size());
  switch (kind) {
    case TensorKind::queries:
    case TensorKind::keys: return in_range;
    case TensorKind::output: return true;
    default: return false;  // never a whole map: that is what lets the engine stream
  }
}

void CompactRecorder::on_tensor(TensorKind kind, int layer, int head, const Map& tensor) {
  take_tensor(kind, layer, head, Map(tensor));
}

void CompactRecorder::take_tensor(TensorKind kind, int layer, int head, Map&& tensor) {
  (void)head;
  if (kind == TensorKind::queries) queries[size_t(layer)] = std::move(tensor);
  else if (kind == TensorKind::keys) keys[size_t(layer)] = std::move(tensor);
  else if (kind == TensorKind::output) output = std::move(tensor);
}

bool CompactRecorder::wants_rows(int layer, int head) const {
  return layer >= 0 && layer < int(heads.size()) && head >= 0 && head < int(heads[size_t(layer)].size());
}

// Called by the thread that computes this head, rows in order: touches only [layer][head]. Rows
// are first maxed element-wise into a [T] running row (vectorises), which is folded into blocks
// of f keys once the f rows of a display row are in.
void CompactRecorder::on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
                              const float* entropy) {
  CompactHead& h = heads[size_t(layer)][size_t(head)];
  std::vector<float>& pending = pending_[size_t(layer)][size_t(head)];
  if (pending.size() != size_t(cols)) pending.assign(size_t(cols), 0.0f);
  const int f = factor_, p = int(h.display.cols());
  if (keep_.keeps(layer, head)) {
    // A kept map: these rows of A_h as they are, into its own [T, T] slot (made at its first rows).
    Map& whole = kept[size_t(layer)][size_t(head)];
    if (whole.rows() != cols || whole.cols() != cols) whole.resize(cols, cols);
    for (int i = 0; i < n_rows; ++i) std::copy(rows + int64_t(i) * ld, rows + int64_t(i) * ld + cols, whole.row(row0 + i).data());
  }
  for (int i = 0; i < n_rows; ++i) {
    const int row = row0 + i;
    const Eigen::Map<const Eigen::ArrayXf> a(rows + int64_t(i) * ld, cols);
    Eigen::Map<Eigen::ArrayXf> run(pending.data(), cols);
    run = run.max(a);
    h.entropy_sum += double(entropy[i]);
    if ((row + 1) % f == 0 || row + 1 == cols) {
      float* out = h.display.data() + int64_t(row / f) * p;
      for (int b = 0; b < p; ++b) out[b] = run.segment(b * f, std::min(f, cols - b * f)).maxCoeff();
      h.max = std::max(h.max, run.maxCoeff());
      if (cols > 1) h.max_skip_first = std::max(h.max_skip_first, run.tail(cols - 1).maxCoeff());
      run.setZero();
    }
  }
}

ExactAttention::ExactAttention(const AttentionConfig& config, std::vector<Map> queries, std::vector<Map> keys)
    : configs_{config}, queries_(std::move(queries)), keys_(std::move(keys)) {}

ExactAttention::ExactAttention(std::vector<AttentionConfig> layer_configs, std::vector<Map> queries, std::vector<Map> keys)
    : configs_(std::move(layer_configs)), queries_(std::move(queries)), keys_(std::move(keys)) {
  assert((configs_.size() == 1 || configs_.size() == queries_.size()) && "one config, or one per layer");
}

Vec ExactAttention::row(int layer, int head, int query) const {
  const int T = tokens();
  const int heads = configs_.empty() ? 0 : configs_[0].n_heads;
  if (layer < 0 || layer >= n_layers() || head < 0 || head >= heads || query < 0 || query >= T) {
    throw InputError("no attention row for layer " + std::to_string(layer) + ", head " + std::to_string(head) +
                     ", query " + std::to_string(query) + " (the run has " + std::to_string(n_layers()) +
                     " layers, " + std::to_string(heads) + " heads, " + std::to_string(T) + " tokens)");
  }
  const AttentionConfig& c = config_of(layer);
  const Map& q = queries_[size_t(layer)];
  const Map& k = keys_[size_t(layer)];
  const int dh = c.head_width(), g = head / c.group_size();
  const auto [lo, hi] = visible_keys(c, query, T);  // the engine's mask
  Vec a = Vec::Zero(T);
  sgemm(1, hi - lo + 1, dh, c.score_scale(), q.data() + int64_t(query) * q.cols() + int64_t(head) * dh, q.cols(),
        k.data() + int64_t(lo) * k.cols() + int64_t(g) * dh, k.cols(), true, a.data() + lo, T);
  finish_scores(a.data(), T, 1, lo, hi, c);
  softmax_rows(a.data() + lo, 1, hi - lo + 1, T);
  return a;
}

float ExactAttention::cell(int layer, int head, int query, int key) const {
  if (key < 0 || key >= tokens()) {
    throw InputError("key " + std::to_string(key) + " is out of range (the run has " + std::to_string(tokens()) +
                     " tokens)");
  }
  return row(layer, head, query)[key];
}

}  // namespace hs
