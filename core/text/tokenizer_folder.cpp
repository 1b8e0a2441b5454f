#include "core/text/tokenizer_folder.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/formats/mapped_file.h"
#include "core/text/gpt2_tokenizer.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/text/tokenizer_json.h"
#include "core/text/wordpiece_model.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using nlohmann::json;

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_text(const std::string& path) {
  const MappedFile f(path);
  return std::string(reinterpret_cast<const char*>(f.data()), f.size());
}

json read_config(const std::string& path) {
  if (path.empty() || !is_file(path)) return json::object();
  const json j = parse_json_strict(read_text(path), path);
  if (!j.is_object()) throw FormatError(path + ": expected a JSON object");
  return j;
}

bool config_bool(const json& c, const char* key, bool fallback, const std::string& path) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_boolean()) throw FormatError(path + ": \"" + key + "\" is " + json_excerpt(c[key]) + "; expected true or false");
  return c[key].get<bool>();
}

// A token setting: "[CLS]" or {"content": "[CLS]", ...} (transformers' AddedToken); `fallback`
// when absent or null.
std::string config_token(const json& c, const char* key, const std::string& fallback, const std::string& path) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  const json& v = c[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  throw FormatError(path + ": \"" + key + "\" is " + json_excerpt(v) + "; expected a token string");
}

// tokenizer_config.json's add_bos_token / add_eos_token for a tokenizer.json whose post-processor
// adds nothing (DeepSeek V3's files: a ByteLevel post-processor, add_bos_token true):
// transformers' fast tokenizer then adds them (LlamaTokenizerFast.update_post_processor).
void apply_config_bos_eos(TokenizerPipeline& tok, const std::string& config_path) {
  if (!tok.post.adds_nothing()) return;
  const json config = read_config(config_path);
  const bool add_bos = config_bool(config, "add_bos_token", false, config_path);
  const bool add_eos = config_bool(config, "add_eos_token", false, config_path);
  const auto id_of = [&](bool wanted, const char* add_key, const char* token_key) {
    if (!wanted) return -1;
    const std::string token = config_token(config, token_key, "", config_path);
    const int id = token.empty() ? -1 : tok.token_id(token);
    if (id < 0) {
      throw FormatError(config_path + ": \"" + add_key + "\" is true but \"" + token_key + "\" is " +
                        (token.empty() ? std::string("not set") : "\"" + utf8_repair(token) + "\", which is not in the vocabulary"));
    }
    return id;
  };
  const int bos = id_of(add_bos, "add_bos_token", "bos_token"), eos = id_of(add_eos, "add_eos_token", "eos_token");
  if (bos >= 0 || eos >= 0) tok.post = PostProcessor::bos_eos_pair(bos, eos);
}

}  // namespace

std::unique_ptr<TokenizerPipeline> load_bert_vocab(const std::string& vocab_txt, const std::string& config_json) {
  const json config = read_config(config_json);
  const std::string text = read_text(vocab_txt);
  std::vector<std::string> pieces;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    pieces.push_back(text.substr(begin, end - begin));  // transformers strips only the "\n"
    begin = end + 1;
  }
  if (pieces.empty()) throw FormatError(vocab_txt + ": the vocabulary is empty");
  const std::string unk = config_token(config, "unk_token", "[UNK]", config_json);
  const std::string cls = config_token(config, "cls_token", "[CLS]", config_json);
  const std::string sep = config_token(config, "sep_token", "[SEP]", config_json);
  const std::string pad = config_token(config, "pad_token", "[PAD]", config_json);
  const std::string mask = config_token(config, "mask_token", "[MASK]", config_json);
  auto model = std::make_unique<WordPieceModel>(pieces, unk, "##", 100, vocab_txt);
  const WordPieceModel& wp = *model;
  std::vector<AddedToken> added;
  for (const std::string& t : {pad, unk, cls, sep, mask})
    if (const int id = wp.id_of(t); id >= 0 && !t.empty()) added.push_back({t, id, true});
  auto tok = std::make_unique<TokenizerPipeline>(std::move(model), std::move(added));
  tok->continuing_prefix = "##";
  NormalizeStep n;
  n.kind = NormalizeStep::Kind::bert;
  n.clean_text = true;
  n.chinese_chars = config_bool(config, "tokenize_chinese_chars", true, config_json);
  n.lowercase = config_bool(config, "do_lower_case", true, config_json);
  n.strip_accents = config_bool(config, "strip_accents", n.lowercase, config_json);
  tok->normalizers.push_back(n);
  PreTokenizeStep p;
  p.kind = PreTokenizeStep::Kind::bert;
  tok->pre_tokenizers.push_back(p);
  const int cls_id = tok->model().id_of(cls), sep_id = tok->model().id_of(sep);
  if (cls_id >= 0 && sep_id >= 0) tok->post = PostProcessor::bert(cls_id, sep_id);
  return tok;
}

std::unique_ptr<TokenizerPipeline> load_folder_tokenizer(const std::string& dir) {
  const std::string config_path = dir + "/tokenizer_config.json";
  if (is_file(dir + "/tokenizer.json")) {
    std::unique_ptr<TokenizerPipeline> tok = load_tokenizer_json(dir + "/tokenizer.json");
    apply_config_bos_eos(*tok, config_path);
    return tok;
  }
  if (is_file(dir + "/vocab.json") && is_file(dir + "/merges.txt")) return load_gpt2_tokenizer(dir + "/vocab.json", dir + "/merges.txt");
  if (is_file(dir + "/tokenizer.model")) {
    const json config = read_config(config_path);
    SentencePieceOptions o;
    o.add_bos = config_bool(config, "add_bos_token", true, config_path);
    o.add_eos = config_bool(config, "add_eos_token", false, config_path);
    o.legacy = config_bool(config, "legacy", true, config_path);
    o.bos_token = config_token(config, "bos_token", "", config_path);
    o.eos_token = config_token(config, "eos_token", "", config_path);
    return load_sentencepiece_tokenizer(dir + "/tokenizer.model", o);
  }
  if (is_file(dir + "/vocab.txt")) return load_bert_vocab(dir + "/vocab.txt", config_path);
  throw InputError(dir + ": no tokenizer files (tokenizer.json, vocab.json + merges.txt, tokenizer.model or vocab.txt)");
}

}  // namespace hs
