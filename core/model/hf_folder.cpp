#include "core/model/hf_folder.h"

#include "core/util/errors.h"

namespace hs {

HfModel load_hf_folder(const std::string& dir) {
  throw InputError(dir + ": Hugging Face folders are not supported yet");
}

}  // namespace hs
