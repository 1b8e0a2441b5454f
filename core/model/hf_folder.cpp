#include "core/model/hf_folder.h"

#include <algorithm>
#include <new>

#include "core/model/encoder_tokenizer.h"
#include "core/model/families.h"
#include "core/model/hf_loaders.h"
#include "core/text/tokenizer_folder.h"  // the tokenizer: tokenizer.json, vocab.json + merges.txt, tokenizer.model or vocab.txt
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/memory.h"

namespace hs {
namespace {

std::string folder_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.find_last_of('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> v = {"gpt2"};
    for (const DecoderFamily& f : decoder_families()) {
      v.push_back(f.hf_type);
      if (f.hf_outer_type) v.push_back(f.hf_outer_type);
    }
    for (const std::string& t : hf_encoder_types()) v.push_back(t);
    return v;
  }();
  return types;
}

HfModel load_hf_folder(const std::string& dir) {
  const HfConfig config(dir + "/config.json");
  const std::string type = config.string("model_type", "");
  if (config.has("quantization_config")) {
    throw InputError(config.path() + ": quantized checkpoints (quantization_config) are not supported; use F32, F16 or BF16 weights");
  }
  const std::vector<std::string>& types = hf_model_types();
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    std::string list;
    for (const std::string& t : types) list += (list.empty() ? "" : ", ") + t;
    throw InputError(config.path() + ": model_type \"" + excerpt(type) + "\" is not supported; headscope reads " + list +
                     " folders and llama2.c checkpoints");
  }
  HfModel out;
  const bool encoder = is_hf_encoder_type(type);
  if (encoder) {
    out.sentences = load_encoder_tokenizer(dir, config);
    out.tokenizer = out.sentences->tokenizer();
  } else {
    out.tokenizer = load_folder_tokenizer(dir);
  }
  const HfTensors tensors(dir);
  const std::string name = folder_name(dir);
  const int64_t values = tensors.total_elements();
  check_weights_fit(dir, values);  // more than the machine has: say so before converting any of it
  try {
    if (type == "gpt2") out.model = load_hf_gpt2(config, tensors, name);
    else if (encoder) out.model = load_hf_encoder(config, tensors, name);
    else out.model = load_hf_decoder(config, tensors, name);
  } catch (const std::bad_alloc&) {
    throw_weights_out_of_memory(dir, values);
  }
  // bos_token_id: top level, or a multimodal Gemma 3's text_config.
  nlohmann::json bos = config.json().contains("bos_token_id") ? config.json()["bos_token_id"] : nlohmann::json();
  if (bos.is_null() && config.json().contains("text_config") && config.json()["text_config"].is_object() &&
      config.json()["text_config"].contains("bos_token_id"))
    bos = config.json()["text_config"]["bos_token_id"];
  if (!encoder && bos.is_number_integer() && bos.get<int64_t>() >= 0 && bos.get<int64_t>() < out.model->info().vocab_size) {
    out.bos_id = bos.get<int>();
  }
  const int model_vocab = out.model->info().vocab_size, tok_vocab = out.tokenizer->vocab_size();
  if (tok_vocab > model_vocab) {
    throw FormatError(dir + ": the tokenizer has " + std::to_string(tok_vocab) + " pieces but config.json's vocab_size is " +
                      std::to_string(model_vocab) + " (tokenizer and weights do not belong together)");
  }
  return out;
}

}  // namespace hs
