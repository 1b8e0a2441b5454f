#include "core/model/tokenizer_only.h"

#include "core/formats/gguf.h"
#include "core/model/encoder_tokenizer.h"
#include "core/model/gguf_loader.h"
#include "core/model/hf_config.h"
#include "core/model/hf_loaders.h"
#include "core/model/pretrained.h"
#include "core/model/shipped_models.h"
#include "core/model/teaching_model.h"
#include "core/text/gguf_tokenizer.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/text/tokenizer_folder.h"
#include "core/text/tokenizer_json.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/format.h"

namespace hs {
namespace {

LoadedTokenizer llama2c(const std::string& path) {
  return {std::make_shared<const Llama2cTokenizer>(path, Llama2cTokenizer::count_entries(path)), "llama2.c tokenizer.bin", path};
}

// The file load_folder_tokenizer reads first (for the report).
std::string folder_kind(const std::string& dir) {
  for (const char* name : {"tokenizer.json", "vocab.json", "tokenizer.model", "vocab.txt"})
    if (is_regular_file(dir + "/" + name)) return std::string(name) == "vocab.json" ? "vocab.json + merges.txt" : name;
  return "folder";
}

}  // namespace

LoadedTokenizer load_tokenizer_only(const std::string& model_path, const std::string& llama2c_tokenizer) {
  if (!llama2c_tokenizer.empty()) return llama2c(llama2c_tokenizer);
  if (model_path.empty()) throw InputError("give --model FOLDER|FILE (a model folder, a GGUF file, a tokenizer.json) or --tokenizer FILE (llama2.c)");
  // The models that come with headscope, by name, as every other command opens them.
  if (is_teaching_model(model_path)) return {teaching_tokenizer(), "teaching model", model_path};
  const std::string shipped = resolve_shipped_model(model_path);
  if (shipped != model_path) return load_tokenizer_only(shipped, "");
  if (is_folder(model_path)) {
    const std::string config_path = model_path + "/config.json";
    if (is_regular_file(config_path)) {
      const HfConfig config(config_path);
      if (is_hf_encoder_type(config.string("model_type", ""))) {
        return {load_encoder_tokenizer(model_path, config)->tokenizer(), folder_kind(model_path), model_path};
      }
    }
    return {load_folder_tokenizer(model_path), folder_kind(model_path), model_path};
  }
  if (!is_regular_file(model_path)) throw InputError("--model " + model_path + ": no such file or folder");
  if (is_gguf_file(model_path) || ends_with(model_path, ".gguf")) {
    const GgufFile f(model_path);
    return {load_gguf_tokenizer(f), "GGUF", model_path};
  }
  if (ends_with(model_path, ".json")) return {load_tokenizer_json(model_path), "tokenizer.json", model_path};
  const std::string found = find_llama2c_tokenizer(model_path);
  if (found.empty()) {
    throw InputError("--model " + model_path + ": not a folder, a GGUF file or a tokenizer.json, and no llama2.c tokenizer.bin "
                     "beside it; give --tokenizer FILE for a llama2.c tokenizer");
  }
  return llama2c(found);
}

}  // namespace hs
