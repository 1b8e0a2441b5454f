#pragma once
// A pretrained decoder-only language model as the pretrained session sees it: token ids in,
// every layer's per-head attention announced to the observer (through attend_heads), final
// hidden states out; logits for any rows on request.
#include <cstdint>
#include <vector>

#include "core/model/model_run.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// Keys and values of the positions seen so far, per layer, for incremental greedy decoding:
// k[l], v[l]: [length, G*dh] (keys after RoPE). ids: the tokens at those positions, for a model
// that must rerun them (Phi-3's LongRoPE switches every position's frequencies past its original
// context, as transformers' generate() recomputes its cache there).
struct KvCache {
  std::vector<Map> k, v;
  std::vector<int> ids;
  int length = 0;
};

class TransformerModel {
 public:
  virtual ~TransformerModel() = default;
  // kind, name, shape, parameter counts (tokens and maps are the session's).
  virtual const ModelInfo& info() const = 0;
  // Longest sequence the model was built for (positions beyond it are refused).
  virtual int max_positions() const = 0;
  // ids: T token ids (each < vocab) -> final normalised hidden states [T, d_model].
  virtual Map forward(const std::vector<int>& ids, Observer* observer, int threads) const = 0;
  // Runs only the new tokens, attending to the cached positions too, and appends their keys and
  // values: the same hidden states as forward() on the whole sequence, without the maps.
  virtual Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const = 0;
  // hidden [n, d_model] -> next-token logits [n, vocab], the product split over `threads`.
  virtual Map logits(const Map& hidden, int threads) const = 0;
};

}  // namespace hs
