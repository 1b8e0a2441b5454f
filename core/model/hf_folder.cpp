#include "core/model/hf_folder.h"

#include <sys/stat.h>

#include <algorithm>

#include "core/model/encoder_tokenizer.h"
#include "core/model/hf_loaders.h"
#include "core/text/gpt2_tokenizer.h"
#include "core/text/tokenizer_json.h"
#include "core/util/errors.h"

namespace hs {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_name(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const size_t slash = dir.find_last_of('/');
  return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

std::shared_ptr<const SubwordTokenizer> load_folder_tokenizer(const std::string& dir) {
  if (exists(dir + "/tokenizer.json")) return load_tokenizer_json(dir + "/tokenizer.json");
  if (exists(dir + "/vocab.json") && exists(dir + "/merges.txt")) return load_gpt2_tokenizer(dir + "/vocab.json", dir + "/merges.txt");
  if (exists(dir + "/tokenizer.model")) {
    throw InputError(dir + ": only tokenizer.model (SentencePiece protobuf) was found; headscope reads tokenizer.json " +
                     "(or vocab.json + merges.txt) — save the tokenizer with a recent transformers to get one");
  }
  throw InputError(dir + ": no tokenizer files (tokenizer.json, or vocab.json + merges.txt)");
}

}  // namespace

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> types = {"gpt2",   "llama",      "qwen2",   "qwen3",       "mistral",
                                                 "phi3",   "gemma",      "gemma2",  "gemma3_text", "gemma3",
                                                 "bert",   "roberta",    "xlm-roberta", "distilbert", "electra",
                                                 "modernbert"};
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
    throw InputError(config.path() + ": model_type \"" + type + "\" is not supported; headscope reads " + list +
                     " folders and llama2.c checkpoints");
  }
  HfModel out;
  const bool encoder = is_hf_encoder_type(type);
  if (encoder) {
    out.sentences = load_encoder_tokenizer(dir, config, [&] { return load_folder_tokenizer(dir); });
    out.tokenizer = out.sentences->tokenizer();
  } else {
    out.tokenizer = load_folder_tokenizer(dir);
  }
  const HfTensors tensors(dir);
  const std::string name = folder_name(dir);
  if (type == "gpt2") out.model = load_hf_gpt2(config, tensors, name);
  else if (encoder) out.model = load_hf_encoder(config, tensors, name);
  else out.model = load_hf_decoder(config, tensors, name);
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
