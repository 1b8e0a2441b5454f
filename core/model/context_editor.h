#pragma once
// An intervention on the forward pass: an observer that may also change each layer's per-head
// contexts (attention @ v) before the output projection, so one head's output can be knocked out
// (core/analysis/head_ablation.h). The decoders (llama_forward, gpt2_forward) call it on every
// layer when the observer they are given is one; attention maps are unchanged by it (they come
// before the contexts), later layers see the edited residual stream.
#include "core/model/observer.h"

namespace hs {

class ContextEditor : public Observer {
 public:
  // contexts: [T, H*dh], head h in columns h*dh .. (h+1)*dh - 1; edit in place.
  virtual void edit_contexts(int layer, Map& contexts) = 0;
  // By default an editor records nothing.
  bool wants(TensorKind kind, int layer, int head) const override {
    (void)kind; (void)layer; (void)head;
    return false;
  }
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override {
    (void)kind; (void)layer; (void)head; (void)tensor;
  }
};

// The editor an observer is, or null.
inline ContextEditor* as_context_editor(Observer* observer) { return dynamic_cast<ContextEditor*>(observer); }

}  // namespace hs
