#pragma once
// A pretrained model as the pretrained session sees it: token ids in, every layer's per-head
// attention announced to the observer (through attend_heads), final hidden states out. A
// decoder-only language model also gives logits for any rows on request; an encoder (BERT
// family) predicts no next token, and may read each token's type (segment) id.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "core/model/model_run.h"
#include "core/model/observer.h"
#include "core/model/transformer_ops.h"
#include "core/util/tensor.h"

namespace hs {

// Keys and values of the positions seen so far, per layer, for incremental greedy decoding:
// k[l], v[l]: [length, G*dh] (keys after RoPE). ids: the tokens at those positions, for a model
// that must rerun them (Phi-3's LongRoPE switches every position's frequencies past its original
// context, as transformers' generate() recomputes its cache there).
// An incremental run (core/model/prefix_cache.h) also sets `rows` (the maps' rows of the new
// queries are written there) and `threads` (for the products of many new rows).
struct KvCache {
  std::vector<Map> k, v;
  std::vector<int> ids;
  int length = 0;
  CachedRows* rows = nullptr;
  int threads = 1;
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
  // True when forward_cached writes the new queries' map rows into cache.rows (KvCache): the
  // session may then run an edited input from its unchanged prefix (core/model/prefix_cache.h).
  virtual bool records_cached_rows() const { return false; }
  // hidden [n, d_model] -> next-token logits [n, vocab], the product split over `threads`.
  virtual Map logits(const Map& hidden, int threads) const = 0;
  // The greedy next token after each row of hidden [n, d_model]: argmax_rows(logits(hidden)),
  // ties to the lowest id. This default takes the logits of 64 rows at a time; a model may
  // compute it without the [n, vocab] logits (a compact output projection, one pass over it).
  virtual std::vector<int> next_token_ids(const Map& hidden, int threads) const {
    std::vector<int> out;
    out.reserve(size_t(hidden.rows()));
    const Eigen::Index block = 64;
    for (Eigen::Index t0 = 0; t0 < hidden.rows(); t0 += block) {
      const std::vector<int> best = argmax_rows(logits(hidden.middleRows(t0, std::min(block, hidden.rows() - t0)), threads));
      out.insert(out.end(), best.begin(), best.end());
    }
    return out;
  }

  // Layer by layer, for head ablation (core/analysis/head_ablation.h), which reruns only the
  // layers from the one it edits: forward(ids) = final_norm(run_layers(embed_tokens(ids), 0, L)).
  // x: the residual stream [T, d_model] of positions 0 .. T-1. Decoders implement these; a model
  // that returns false from runs_layers() is only run whole.
  virtual bool runs_layers() const { return false; }
  virtual Map embed_tokens(const std::vector<int>& ids) const {  // [T, d_model]
    (void)ids;
    assert(false && "runs_layers() is false");
    return {};
  }
  virtual void run_layers(Map& x, int begin, int end, Observer* observer, int threads) const {  // layers [begin, end)
    (void)x, (void)begin, (void)end, (void)observer, (void)threads;
    assert(false && "runs_layers() is false");
  }
  virtual Map final_norm(const Map& x) const {  // [T, d_model]
    assert(false && "runs_layers() is false");
    return x;
  }
  // Several sequences of one length T run as one batch (head ablation knocks out a layer's heads
  // as stacked variants): x [V*T, d_model], rows v*T .. v*T + T - 1 are sequence v's positions
  // 0 .. T-1. Every product takes all V*T rows at once (one read of each weight for V sequences);
  // attention, RoPE included, runs per sequence over its own T rows. `observer` is an editor or
  // null: it sees each layer's contexts [V*T, H*dh] and records nothing. Equal to run_layers on
  // each sequence alone, up to the order of float sums. Models without it return false here.
  virtual bool runs_stacked() const { return false; }
  virtual void run_layers_stacked(Map& x, int seq_len, int begin, int end, Observer* observer, int threads) const {
    (void)x, (void)seq_len, (void)begin, (void)end, (void)observer, (void)threads;
    assert(false && "runs_stacked() is false");
  }
  // Floats of working memory a stacked layer takes per row (activations, projections, the FFN's
  // hidden rows): what bounds how many sequences run together.
  virtual int64_t stacked_floats_per_row() const { return 0; }

  // False for encoders: they have no next-token head, so logits() and forward_cached() must not
  // be called (the session fills no next tokens and refuses --generate).
  virtual bool predicts_next_token() const { return true; }
  // Rows of the token type (segment) embedding; 0 when the model has none (every decoder).
  virtual int type_vocab_size() const { return 0; }
  // forward() with each token's type id (T of them, each < type_vocab_size(): 0 for the first
  // sentence, 1 for the second). Models without token types only run all-zero types.
  virtual Map forward_segments(const std::vector<int>& ids, const std::vector<int>& type_ids, Observer* observer,
                               int threads) const {
    (void)type_ids;
    return forward(ids, observer, threads);
  }
};

}  // namespace hs
