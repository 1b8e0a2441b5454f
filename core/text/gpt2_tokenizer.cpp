#include "core/text/gpt2_tokenizer.h"

#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/formats/mapped_file.h"
#include "core/text/bpe_model.h"
#include "core/util/errors.h"

namespace hs {
namespace {

std::string read_text(const std::string& path) {
  const MappedFile f(path);
  return std::string(reinterpret_cast<const char*>(f.data()), f.size());
}

}  // namespace

std::unique_ptr<TokenizerPipeline> load_gpt2_tokenizer(const std::string& vocab_json, const std::string& merges_txt) {
  const nlohmann::json j = parse_json_strict(read_text(vocab_json), vocab_json);
  if (!j.is_object() || j.empty()) throw FormatError(vocab_json + ": expected a JSON object mapping pieces to ids");
  std::unordered_map<std::string, int> vocab;
  for (auto it = j.begin(); it != j.end(); ++it) {
    vocab[it.key()] = int(json_integer_in(it.value(), 0, kMaxVocabSize - 1, vocab_json + ": the id of \"" + it.key() + "\""));
  }

  std::vector<std::pair<std::string, std::string>> merges;
  const std::string text = read_text(merges_txt);
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos) {
      throw FormatError(merges_txt + ": line " + std::to_string(line_no) + " is not a merge \"A B\"");
    }
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  // GPT-2's own encoder.py merge order (transformers' slow GPT2Tokenizer) for a vocab.json +
  // merges.txt folder; it agrees with tokenizers' order on merges in build order, as GPT-2's are.
  BpeModel::Options options;
  options.order = BpeModel::MergeOrder::whole_sweeps;
  auto model = std::make_unique<BpeModel>(vocab, merges, vocab_json + " + " + merges_txt, options);
  std::vector<AddedToken> added;
  if (const int eot = model->id_of("<|endoftext|>"); eot >= 0) added.push_back({"<|endoftext|>", eot, true});
  auto tok = std::make_unique<TokenizerPipeline>(std::move(model), std::move(added));
  tok->byte_level = true;
  PreTokenizeStep step;
  step.kind = PreTokenizeStep::Kind::byte_level;
  step.regex = std::make_shared<const RegexSplitter>(kGpt2SplitPattern, merges_txt);
  tok->pre_tokenizers.push_back(step);
  return tok;
}

}  // namespace hs
