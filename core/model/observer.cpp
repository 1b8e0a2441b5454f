#include "core/model/observer.h"

namespace hs {

const char* tensor_kind_name(TensorKind kind) {
  switch (kind) {
    case TensorKind::scores: return "scores";
    case TensorKind::attention: return "attention";
    case TensorKind::context: return "context";
    case TensorKind::output: return "output";
    case TensorKind::logits: return "logits";
    case TensorKind::queries: return "queries";
    case TensorKind::keys: return "keys";
    case TensorKind::values: return "values";
  }
  return "?";
}

}  // namespace hs
