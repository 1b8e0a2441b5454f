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
};

}  // namespace hs
