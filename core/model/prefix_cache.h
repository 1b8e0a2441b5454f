#pragma once
// Live typing: one previous run of a causal decoder, kept so that the next run of the same model
// on an input that starts with the same P tokens computes only rows P .. T-1. In a causal model
// position i reads positions 0 .. i only, so the first P rows of every map, the keys and values of
// positions 0 .. P-1 and the predictions after them are those of the previous run; the new
// positions run through forward_cached (transformer_model.h) against the cached keys and values.
// Anything else (another model or model object, scores kept or not, long-input mode, an observer
// such as head ablation's, token types, an encoder, a model whose positions all change with the
// length: LongRoPE) runs whole. TransformerSession::run reads and fills it (RunOptions::prefix_cache).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model_run.h"
#include "core/model/transformer_ops.h"
#include "core/util/tensor.h"

namespace hs {

class TransformerModel;

struct PrefixCache {
  std::shared_ptr<const TransformerModel> model;  // the model object that made it; null for the synthetic layer
  std::string key;                    // or, for the synthetic layer (made anew by every prepare()), its settings
  std::vector<std::string> tokens;    // ... and its words (it has no ids)
  bool keep_scores = false;           // the run kept scores, queries and keys
  std::vector<int> ids;               // [T] token ids of the cached run
  std::vector<Map> keys, values;      // [layer] [T, G*dh]: what attention read (keys after RoPE)
  std::shared_ptr<const AttentionRun> run;  // the run itself (keep()); without it the next run is whole
  int reused = -1;                    // of the newest run: prefix tokens taken from the cache, -1 when it ran whole
  bool filled = false;                // the newest run left its keys and values here (keep() takes only that run)

  // Takes `r` as the cached run when it is the run whose keys and values were just left here (the
  // session hands its run out by value; analyse() keeps it in its RunAnalysis and gives it back
  // here; core/analysis/analysis_cache.h keeps that analysis); anything else empties the cache. A
  // caller that runs a model sets filled = false first.
  void keep(std::shared_ptr<const AttentionRun> r);
  void clear();
};

// After a run that this cache holds (live typing, issue 49): makes memory for the next run's maps
// ready on the calling thread, the thread that runs the next one (assemble_prefix_maps allocates
// every map there): the maps of `extra_tokens` more tokens, and their scores when kept
// (core/util/heap_prefault.h), at most 128 MiB. Returns the bytes made ready; 0 when the cache holds no run or the
// run is in long-input mode. Call it off the keystroke's path: after a whole run's result is out.
int64_t prefault_next_maps(const PrefixCache& cache, int extra_tokens = 8);

// Number of leading entries a and b share.
int shared_prefix(const std::vector<int>& a, const std::vector<int>& b);
int shared_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b);

// Keeps each layer's keys and values as attention read them (a whole run that fills the cache).
class KeyValueRecorder : public Observer {
 public:
  explicit KeyValueRecorder(int n_layers) : keys(size_t(n_layers)), values(size_t(n_layers)) {}
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;
  std::vector<Map> keys, values;  // [layer] [T, G*dh]
};

// The maps of a run of T = P + n tokens: rows 0 .. P-1 from `old` (a run of the same model whose
// first P tokens are these), rows P .. T-1 from `rows`; with scores, also scores and queries, and
// `keys` ([layer] [T, G*dh]) as the run's keys. Fills run.attention, scores, queries and keys;
// the maps are split between `threads` (<= 0: all cores), the same bits for any count.
void assemble_prefix_maps(AttentionRun& run, const AttentionRun& old, int P, int T, const CachedRows& rows,
                          bool keep_scores, const std::vector<Map>& keys, int threads = 1);

}  // namespace hs
