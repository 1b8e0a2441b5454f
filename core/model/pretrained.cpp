#include "core/model/pretrained.h"

#include "core/util/errors.h"

namespace hs {

std::unique_ptr<Prepared> prepare_pretrained(const ModelRequest& request) {
  throw InputError("--model " + request.model_path + ": pretrained checkpoints are not supported yet");
}

}  // namespace hs
