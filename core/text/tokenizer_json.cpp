#include "core/text/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/formats/mapped_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;

std::string type_of(const json& j) { return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : ""; }

// Steps of a component, flattening {"type": "Sequence", "<key>": [...]}.
std::vector<json> steps_of(const json& j, const char* list_key) {
  if (j.is_null()) return {};
  if (type_of(j) == "Sequence" && j.contains(list_key) && j[list_key].is_array()) {
    std::vector<json> out;
    for (const json& s : j[list_key]) {
      const std::vector<json> inner = steps_of(s, list_key);
      out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
  }
  return {j};
}

std::string pattern_of(const json& step, const std::string& where, bool& is_regex) {
  if (!step.contains("pattern") || !step["pattern"].is_object()) throw FormatError(where + " has no pattern");
  const json& p = step["pattern"];
  if (p.contains("Regex") && p["Regex"].is_string()) {
    is_regex = true;
    return p["Regex"].get<std::string>();
  }
  if (p.contains("String") && p["String"].is_string()) {
    is_regex = false;
    return p["String"].get<std::string>();
  }
  throw FormatError(where + " has a pattern that is neither {\"Regex\": ...} nor {\"String\": ...}");
}

// A literal string as a PCRE2 pattern.
std::string quote_regex(const std::string& s) { return "\\Q" + s + "\\E"; }

std::string str_or(const json& j, const char* key, const std::string& fallback) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

bool bool_or(const json& j, const char* key, bool fallback) {
  return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

std::unique_ptr<BpeModel> read_model(const json& m, const std::string& path) {
  const std::string type = type_of(m);
  if (type != "BPE" && !(type.empty() && m.contains("merges"))) {
    throw FormatError(path + ": model type \"" + type + "\" is not supported (BPE only; WordPiece and Unigram are not)");
  }
  if (!m.contains("vocab") || !m["vocab"].is_object()) throw FormatError(path + ": model.vocab is missing");
  if (!str_or(m, "continuing_subword_prefix", "").empty() || !str_or(m, "end_of_word_suffix", "").empty()) {
    throw FormatError(path + ": BPE with continuing_subword_prefix / end_of_word_suffix is not supported");
  }
  std::unordered_map<std::string, int> vocab;
  for (auto it = m["vocab"].begin(); it != m["vocab"].end(); ++it) {
    vocab[it.key()] = int(json_integer_in(it.value(), 0, kMaxVocabSize - 1, path + ": model.vocab[\"" + it.key() + "\"]"));
  }
  std::vector<std::pair<std::string, std::string>> merges;
  if (m.contains("merges") && m["merges"].is_array()) {
    for (size_t i = 0; i < m["merges"].size(); ++i) {
      const json& e = m["merges"][i];
      if (e.is_string()) {
        const std::string s = e.get<std::string>();
        const size_t space = s.find(' ');
        if (space == std::string::npos) throw FormatError(path + ": model.merges[" + std::to_string(i) + "] is not \"A B\"");
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
        merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      } else {
        throw FormatError(path + ": model.merges[" + std::to_string(i) + "] is neither \"A B\" nor [\"A\", \"B\"]");
      }
    }
  }
  auto model = std::make_unique<BpeModel>(std::move(vocab), merges, path);
  model->byte_fallback = bool_or(m, "byte_fallback", false);
  model->ignore_merges = bool_or(m, "ignore_merges", false);
  const std::string unk = str_or(m, "unk_token", "");
  if (!unk.empty()) model->unk_id = model->id_of(unk);
  return model;
}

void read_normalizer(const json& j, const std::string& path, TokenizerPipeline& tok) {
  for (const json& s : steps_of(j, "normalizers")) {
    const std::string type = type_of(s);
    const std::string where = path + ": normalizer " + type;
    NormalizeStep n;
    if (type == "Prepend") {
      n.kind = NormalizeStep::Kind::prepend;
      n.text = str_or(s, "prepend", "");
    } else if (type == "Replace") {
      bool is_regex = false;
      n.kind = NormalizeStep::Kind::replace;
      n.text = pattern_of(s, where, is_regex);
      if (is_regex) throw FormatError(where + " with a regex pattern is not supported");
      n.content = str_or(s, "content", "");
    } else {
      throw FormatError(where + " is not supported (Prepend and Replace are)");
    }
    tok.normalizers.push_back(n);
  }
}

void read_pre_tokenizer(const json& j, const std::string& path, TokenizerPipeline& tok) {
  for (const json& s : steps_of(j, "pretokenizers")) {
    const std::string type = type_of(s);
    const std::string where = path + ": pre_tokenizer " + type;
    PreTokenizeStep p;
    if (type == "ByteLevel") {
      p.kind = PreTokenizeStep::Kind::byte_level;
      p.add_prefix_space = bool_or(s, "add_prefix_space", false);
      if (bool_or(s, "use_regex", true)) p.regex = std::make_shared<const RegexSplitter>(kGpt2SplitPattern, where);
      tok.byte_level = true;
    } else if (type == "Metaspace") {
      p.kind = PreTokenizeStep::Kind::metaspace;
      p.replacement = str_or(s, "replacement", "\xE2\x96\x81");
      const std::string scheme = str_or(s, "prepend_scheme", bool_or(s, "add_prefix_space", true) ? "always" : "never");
      p.prepend = scheme == "first" ? PreTokenizeStep::Prepend::first
                  : scheme == "never" ? PreTokenizeStep::Prepend::never : PreTokenizeStep::Prepend::always;
      p.split_words = bool_or(s, "split", true);
    } else if (type == "Split") {
      bool is_regex = false;
      const std::string pattern = pattern_of(s, where, is_regex);
      const std::string behavior = str_or(s, "behavior", "Isolated");
      if (bool_or(s, "invert", false)) throw FormatError(where + " with invert true is not supported");
      if (behavior != "Isolated" && behavior != "Removed") {
        throw FormatError(where + " with behavior " + behavior + " is not supported (Isolated, Removed)");
      }
      p.kind = PreTokenizeStep::Kind::split;
      p.keep_matches = behavior == "Isolated";
      p.regex = std::make_shared<const RegexSplitter>(is_regex ? pattern : quote_regex(pattern), where);
    } else if (type == "Digits") {
      p.kind = PreTokenizeStep::Kind::digits;
      // Hugging Face splits on char::is_numeric(): general categories Nd, Nl and No (½, ², Ⅻ, ①,
      // Arabic-Indic and full-width digits), not only 0-9.
      p.regex = std::make_shared<const RegexSplitter>(bool_or(s, "individual_digits", false) ? "\\p{N}" : "\\p{N}+", where);
    } else {
      throw FormatError(where + " is not supported (ByteLevel, Metaspace, Split, Digits are)");
    }
    tok.pre_tokenizers.push_back(p);
  }
}

void read_post_processor(const json& j, const std::string& path, TokenizerPipeline& tok) {
  for (const json& s : steps_of(j, "processors")) {
    const std::string type = type_of(s);
    if (type == "ByteLevel") continue;  // only adjusts offsets
    if (type != "TemplateProcessing") throw FormatError(path + ": post_processor " + type + " is not supported");
    if (!s.contains("single") || !s["single"].is_array()) throw FormatError(path + ": TemplateProcessing has no \"single\" template");
    bool after = false;
    for (const json& piece : s["single"]) {
      if (piece.contains("Sequence")) {
        after = true;
        continue;
      }
      if (!piece.contains("SpecialToken")) continue;
      const std::string id = str_or(piece["SpecialToken"], "id", "");
      const json& specials = s.contains("special_tokens") ? s["special_tokens"] : json::object();
      if (!specials.contains(id) || !specials[id].contains("ids") || !specials[id]["ids"].is_array()) {
        throw FormatError(path + ": TemplateProcessing uses special token \"" + id + "\" without ids");
      }
      for (const json& v : specials[id]["ids"]) {
        (after ? tok.suffix_ids : tok.prefix_ids)
            .push_back(int(json_integer_in(v, 0, kMaxVocabSize - 1, path + ": the id of special token \"" + id + "\"")));
      }
    }
  }
}

}  // namespace

std::unique_ptr<TokenizerPipeline> load_tokenizer_json(const std::string& path) {
  const MappedFile f(path);
  const json j = parse_json_strict(reinterpret_cast<const char*>(f.data()), reinterpret_cast<const char*>(f.data()) + f.size(),
                                   path);
  if (!j.is_object() || !j.contains("model")) throw FormatError(path + ": not a tokenizer.json (no \"model\")");
  std::vector<AddedToken> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& a : j["added_tokens"]) {
      if (!a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") || !a["content"].is_string()) {
        throw FormatError(path + ": an added_tokens entry lacks an integer id or a content string");
      }
      const int id = int(json_integer_in(a["id"], 0, kMaxVocabSize - 1,
                                         path + ": the id of added token \"" + a["content"].get<std::string>() + "\""));
      added.push_back({a["content"].get<std::string>(), id, bool_or(a, "special", false)});
    }
  }
  auto tok = std::make_unique<TokenizerPipeline>(read_model(j["model"], path), std::move(added));
  if (j.contains("normalizer")) read_normalizer(j["normalizer"], path, *tok);
  if (j.contains("pre_tokenizer")) read_pre_tokenizer(j["pre_tokenizer"], path, *tok);
  if (j.contains("post_processor")) read_post_processor(j["post_processor"], path, *tok);
  for (const int id : tok->prefix_ids)
    if (id < 0 || id >= tok->vocab_size()) throw FormatError(path + ": post_processor adds id " + std::to_string(id) + ", outside the vocabulary");
  return tok;
}

}  // namespace hs
