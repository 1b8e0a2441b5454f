#include "core/model/encoder_tokenizer.h"

#include <optional>

#include "core/text/tokenizer_folder.h"

namespace hs {
namespace {

std::optional<int> config_id(const HfConfig& config, const char* key) {
  if (!config.has(key)) return std::nullopt;
  return int(config.integer(key, 0, kMaxVocabSize - 1));
}

std::optional<int> vocabulary_id(const TokenizerPipeline& tok, const std::string& piece) {
  const int id = tok.model().id_of(piece);
  if (id >= 0) return id;
  for (int i = 0; i < tok.vocab_size(); ++i)  // an added token
    if (tok.is_special(i) && tok.piece_bytes(i) == piece) return i;
  return std::nullopt;
}

}  // namespace

std::shared_ptr<const SentenceEncoder> load_encoder_tokenizer(const std::string& dir, const HfConfig& config) {
  std::unique_ptr<TokenizerPipeline> tok = load_folder_tokenizer(dir);
  if (tok->post.adds_nothing()) {
    const std::string type = config.string("model_type", "");
    const bool roberta = type == "roberta" || type == "xlm-roberta";
    std::optional<int> cls = config_id(config, roberta ? "bos_token_id" : "cls_token_id");
    std::optional<int> sep = config_id(config, roberta ? "eos_token_id" : "sep_token_id");
    if (!cls) cls = vocabulary_id(*tok, roberta ? "<s>" : "[CLS]");
    if (!sep) sep = vocabulary_id(*tok, roberta ? "</s>" : "[SEP]");
    if (cls && sep) tok->post = roberta ? PostProcessor::roberta(*cls, *sep) : PostProcessor::bert(*cls, *sep);
  }
  return std::make_shared<const SentenceEncoder>(std::move(tok));
}

}  // namespace hs
