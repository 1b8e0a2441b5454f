#include "core/model/model_run.h"

namespace hs {

MapRecorder::MapRecorder(int n_layers, int n_heads, bool keep_scores)
    : attention(static_cast<size_t>(n_layers), LayerMaps(static_cast<size_t>(n_heads))),
      scores(keep_scores ? static_cast<size_t>(n_layers) : 0, LayerMaps(static_cast<size_t>(n_heads))),
      queries(keep_scores ? static_cast<size_t>(n_layers) : 0),
      keys(keep_scores ? static_cast<size_t>(n_layers) : 0),
      keep_scores_(keep_scores) {}

AttentionConfig layer_attention_config(const ModelInfo& info, int layer) {
  AttentionConfig c;
  c.d_model = info.d_model;
  c.n_heads = info.n_heads;
  c.n_kv_heads = info.n_kv_heads;
  c.d_head = info.d_head;
  c.causal = info.causal;
  c.window = info.layer_window(layer);
  c.temperature = info.temperature;
  c.scale = info.score_scale;
  c.softcap = info.softcap;
  return c;
}

namespace {

// The display maps and numbers; the caller makes run.exact.
void take_compact_maps(AttentionRun& run, CompactRecorder& recorder) {
  const int T = recorder.tokens();
  run.map_factor = recorder.factor();
  run.attention.assign(recorder.heads.size(), LayerMaps());
  run.head_numbers.assign(recorder.heads.size(), {});
  for (size_t l = 0; l < recorder.heads.size(); ++l)
    for (CompactHead& h : recorder.heads[l]) {
      run.attention[l].push_back(std::move(h.display));
      run.head_numbers[l].push_back(HeadNumbers{h.mean_entropy(T), h.max, h.max_skip_first});
    }
  run.scores.clear();
  run.kept_maps = recorder.keep();
  run.kept = std::move(recorder.kept);
}

}  // namespace

void take_compact(AttentionRun& run, CompactRecorder&& recorder, const AttentionConfig& config) {
  take_compact_maps(run, recorder);
  run.exact = std::make_shared<const ExactAttention>(config, std::move(recorder.queries), std::move(recorder.keys));
}

void take_compact(AttentionRun& run, CompactRecorder&& recorder, std::vector<AttentionConfig> layer_configs) {
  take_compact_maps(run, recorder);
  run.exact = std::make_shared<const ExactAttention>(std::move(layer_configs), std::move(recorder.queries),
                                                     std::move(recorder.keys));
}

bool MapRecorder::wants(TensorKind kind, int layer, int head) const {
  (void)head;
  switch (kind) {
    case TensorKind::attention: return layer >= 0 && layer < static_cast<int>(attention.size());
    case TensorKind::scores: return keep_scores_ && layer >= 0 && layer < static_cast<int>(scores.size());
    case TensorKind::queries:
    case TensorKind::keys: return keep_scores_ && layer >= 0 && layer < static_cast<int>(queries.size());
    case TensorKind::output: return keep_output;
    default: return false;
  }
}

void MapRecorder::on_tensor(TensorKind kind, int layer, int head, const Map& tensor) {
  if (kind == TensorKind::attention) attention[size_t(layer)][size_t(head)] = tensor;
  else if (kind == TensorKind::scores) scores[size_t(layer)][size_t(head)] = tensor;
  else if (kind == TensorKind::queries) queries[size_t(layer)] = tensor;
  else if (kind == TensorKind::keys) keys[size_t(layer)] = tensor;
  else if (kind == TensorKind::output) output = tensor;  // one call per layer, sequential: the last layer wins
}

void MapRecorder::take_tensor(TensorKind kind, int layer, int head, Map&& tensor) {
  if (kind == TensorKind::attention) attention[size_t(layer)][size_t(head)] = std::move(tensor);
  else if (kind == TensorKind::scores) scores[size_t(layer)][size_t(head)] = std::move(tensor);
  else if (kind == TensorKind::queries) queries[size_t(layer)] = std::move(tensor);
  else if (kind == TensorKind::keys) keys[size_t(layer)] = std::move(tensor);
  else if (kind == TensorKind::output) output = std::move(tensor);
}

bool ObserverPair::wants(TensorKind kind, int layer, int head) const {
  return (a_ && a_->wants(kind, layer, head)) || (b_ && b_->wants(kind, layer, head));
}

void ObserverPair::on_tensor(TensorKind kind, int layer, int head, const Map& tensor) {
  if (a_ && a_->wants(kind, layer, head)) a_->on_tensor(kind, layer, head, tensor);
  if (b_ && b_->wants(kind, layer, head)) b_->on_tensor(kind, layer, head, tensor);
}


// The first observer gets a copy only when the second one also wants the tensor.
void ObserverPair::take_tensor(TensorKind kind, int layer, int head, Map&& tensor) {
  const bool to_a = a_ && a_->wants(kind, layer, head), to_b = b_ && b_->wants(kind, layer, head);
  if (to_a && to_b) a_->on_tensor(kind, layer, head, tensor);
  else if (to_a) a_->take_tensor(kind, layer, head, std::move(tensor));
  if (to_b) b_->take_tensor(kind, layer, head, std::move(tensor));
}

bool ObserverPair::wants_rows(int layer, int head) const {
  return (a_ && a_->wants_rows(layer, head)) || (b_ && b_->wants_rows(layer, head));
}

void ObserverPair::on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
                           const float* entropy) {
  if (a_ && a_->wants_rows(layer, head)) a_->on_rows(layer, head, row0, n_rows, rows, cols, ld, entropy);
  if (b_ && b_->wants_rows(layer, head)) b_->on_rows(layer, head, row0, n_rows, rows, cols, ld, entropy);
}

int ObserverPair::stream_rows() const {
  const int a = a_ ? a_->stream_rows() : 0;
  return a > 0 ? a : b_ ? b_->stream_rows() : 0;
}

}  // namespace hs
