#pragma once
// The engine's observer hook: every forward pass announces its named intermediate results
// as it makes them, (kind, layer, head, tensor), as ggml's llm_build_cb does. Recorders keep
// what a view needs; nothing is kept that nobody asked for.
#include "core/util/tensor.h"

namespace hs {

enum class TensorKind {
  scores,     // [T, T] q_h k_g^T / sqrt(d_head) / temperature, masked entries -inf
  attention,  // [T, T] softmax of scores, row = query i, col = key j, rows sum to 1
  context,    // [T, d_head] attention @ v_g for head h
  output,     // [T, d_model] the layer's output after the out-projection (head = -1)
  logits,     // [T, vocab] next-token logits of a language model (layer = -1, head = -1)
  queries,    // [T, H*dh] the q every head of `layer` used (after RoPE, scrambling), head = -1
  keys,       // [T, G*dh] the k every key/value head of `layer` used, head = -1
  values,     // [T, G*dh] the v every key/value head of `layer` used, head = -1 (the prefix cache keeps them)
};

const char* tensor_kind_name(TensorKind kind);

class Observer {
 public:
  virtual ~Observer() = default;
  // Cheap filter asked before a tensor is announced; the engine may skip work nobody wants.
  virtual bool wants(TensorKind kind, int layer, int head) const {
    (void)kind; (void)layer; (void)head;
    return true;
  }
  // Called from worker threads (one call per head may run concurrently): implementations
  // write only to their own [layer][head] slot or lock.
  virtual void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) = 0;
  // The same announcement for a tensor the engine is finished with: an observer that keeps it
  // takes it without a copy (a T x T map is 1 MiB at T = 512). Default: on_tensor.
  virtual void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) {
    on_tensor(kind, layer, head, tensor);
  }

  // Long inputs. An observer that wants no whole attention or scores map of a head but wants
  // its rows streams it: the engine computes A_h a block of rows at a time in a small reused
  // buffer (never a [T, T] map) and announces each block here, in row order, from the thread
  // that runs head h: rows [row0, row0 + n_rows) of A_h, `cols` = T floats each, `ld` apart,
  // and each row's entropy -sum_j A_ij log A_ij in nats (n_rows floats, from the softmax pass).
  virtual bool wants_rows(int layer, int head) const {
    (void)layer; (void)head;
    return false;
  }
  virtual void on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
                       const float* entropy) {
    (void)layer; (void)head; (void)row0; (void)n_rows; (void)rows; (void)cols; (void)ld; (void)entropy;
  }
  // Query rows per streamed block (0: the engine's choice, about 16 MiB of rows). Tests ask for
  // small blocks so that a short input still streams in several of them.
  virtual int stream_rows() const { return 0; }
};

}  // namespace hs
