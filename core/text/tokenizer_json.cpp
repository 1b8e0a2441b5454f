// Sections, in order: JSON helpers (steps, patterns, ids, base64), the model (vocabulary, BPE,
// Unigram), the normalizer, the pre-tokenizer, the post-processor's templates,
// load_tokenizer_json.
#include "core/text/tokenizer_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/formats/mapped_file.h"
#include "core/text/bpe_model.h"
#include "core/text/unigram_model.h"
#include "core/text/wordpiece_model.h"
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using nlohmann::json;

std::string type_of(const json& j) { return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : ""; }

// Steps of a component, flattening {"type": "Sequence", "<key>": [...]}.
std::vector<json> steps_of(const json& j, const char* list_key, int depth = 0) {
  if (j.is_null()) return {};
  if (type_of(j) == "Sequence" && j.contains(list_key) && j[list_key].is_array() && depth < 16) {
    std::vector<json> out;
    for (const json& s : j[list_key]) {
      const std::vector<json> inner = steps_of(s, list_key, depth + 1);
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

// An integer id in [0, 2^31): the id, else throws naming `what`.
int id_value(const json& v, const std::string& what) {
  return int(json_integer_in(v, 0, kMaxVocabSize - 1, what));
}

std::vector<uint8_t> base64_decode(const std::string& text, const std::string& where) {
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=' || c == '\n' || c == '\r') continue;
    else throw FormatError(where + " is not base64 (it holds '" + utf8_repair(std::string(1, c)) + "')");
    bits = (bits << 6) | uint32_t(v);
    if (++count == 4) {
      out.push_back(uint8_t(bits >> 16));
      out.push_back(uint8_t(bits >> 8));
      out.push_back(uint8_t(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out.push_back(uint8_t(bits >> 4));
  if (count == 3) {
    out.push_back(uint8_t(bits >> 10));
    out.push_back(uint8_t(bits >> 2));
  }
  return out;
}

// model.vocab as a JSON object piece -> id: the pieces in id order (ids 0..n-1, no gaps).
std::vector<std::string> vocab_in_id_order(const json& m, const std::string& path) {
  if (!m.contains("vocab") || !m["vocab"].is_object()) throw FormatError(path + ": model.vocab is missing (expected an object piece -> id)");
  const size_t n = m["vocab"].size();
  std::vector<std::string> pieces(n);
  std::vector<bool> seen(n, false);
  for (auto it = m["vocab"].begin(); it != m["vocab"].end(); ++it) {
    const int id = id_value(it.value(), path + ": model.vocab[\"" + excerpt(it.key()) + "\"]");
    if (size_t(id) >= n || seen[size_t(id)]) {
      throw FormatError(path + ": model.vocab gives \"" + excerpt(it.key()) + "\" id " + std::to_string(id) +
                        "; expected each of 0.." + std::to_string(n - 1) + " once");
    }
    seen[size_t(id)] = true;
    pieces[size_t(id)] = it.key();
  }
  return pieces;
}

struct ModelParts {
  std::unique_ptr<PieceModel> model;
  std::string continuing_prefix;  // WordPiece
};

// model.vocab and model.merges as parse_json_strict_flat read them (no json value per entry).
struct FlatModel {
  JsonFlatMember vocab, merges;
};

// The flat vocabulary object piece -> id: the pieces in id order (ids 0..n-1, each once).
std::vector<std::string> flat_vocab_in_id_order(JsonFlatMember& v, const std::string& path) {
  const size_t n = v.keys.size();
  std::vector<std::string> pieces(n);
  std::vector<bool> seen(n, false);
  size_t scalar = 0, nested = 0;
  for (size_t k = 0; k < n; ++k) {
    const std::string what = path + ": model.vocab[\"" + excerpt(v.keys[k]) + "\"]";
    json value;
    if (nested < v.nested.size() && v.nested[nested].first == k) {
      value = v.nested[nested++].second;
    } else {
      const size_t at = scalar++;
      value = v.string_of[at] >= 0 ? json(v.strings[size_t(v.string_of[at])]) : v.scalars[at];
    }
    const int id = id_value(value, what);
    if (size_t(id) >= n || seen[size_t(id)]) {
      throw FormatError(path + ": model.vocab gives \"" + excerpt(v.keys[k]) + "\" id " + std::to_string(id) +
                        "; expected each of 0.." + std::to_string(n - 1) + " once");
    }
    seen[size_t(id)] = true;
    pieces[size_t(id)] = std::move(v.keys[k]);
  }
  return pieces;
}

std::unique_ptr<PieceModel> read_bpe(const json& m, FlatModel& flat, const std::string& path) {
  if (!flat.vocab.found || !flat.vocab.is_object) throw FormatError(path + ": model.vocab is missing");
  if (!str_or(m, "continuing_subword_prefix", "").empty() || !str_or(m, "end_of_word_suffix", "").empty()) {
    throw FormatError(path + ": BPE with continuing_subword_prefix / end_of_word_suffix is not supported");
  }
  auto model = std::make_unique<BpeModel>(flat_vocab_in_id_order(flat.vocab, path), path, BpeModel::Options{});
  const JsonFlatMember& merges = flat.merges;
  if (merges.found && !merges.is_object) {
    std::vector<std::pair<std::string_view, std::string_view>> pairs;  // views into merges.strings
    if (!merges.element_begin.empty()) pairs.reserve(merges.element_begin.size() - 1);
    size_t next_nested = 0;
    for (size_t i = 0; i + 1 < merges.element_begin.size(); ++i) {
      const uint32_t b = merges.element_begin[i], e = merges.element_begin[i + 1];
      const auto text = [&](uint32_t at) -> const std::string* {
        return merges.string_of[at] >= 0 ? &merges.strings[size_t(merges.string_of[at])] : nullptr;
      };
      const bool has_nested = next_nested < merges.nested.size() && merges.nested[next_nested].first == i;
      if (has_nested) ++next_nested;
      if (!has_nested && !merges.element_is_array[i] && e == b + 1 && text(b)) {
        const std::string_view s = *text(b);
        const size_t space = s.find(' ');
        if (space == std::string::npos) throw FormatError(path + ": model.merges[" + std::to_string(i) + "] is not \"A B\"");
        pairs.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (!has_nested && merges.element_is_array[i] && e == b + 2 && text(b) && text(b + 1)) {
        pairs.emplace_back(*text(b), *text(b + 1));
      } else {
        throw FormatError(path + ": model.merges[" + std::to_string(i) + "] is neither \"A B\" nor [\"A\", \"B\"]");
      }
    }
    model->add_merges(pairs);
  }
  model->byte_fallback = bool_or(m, "byte_fallback", false);
  model->ignore_merges = bool_or(m, "ignore_merges", false);
  model->fuse_unk = bool_or(m, "fuse_unk", false);
  const std::string unk = str_or(m, "unk_token", "");
  if (!unk.empty()) model->unk_id = model->id_of(unk);
  return model;
}

std::unique_ptr<PieceModel> read_unigram(const json& m, const std::string& path) {
  if (!m.contains("vocab") || !m["vocab"].is_array()) throw FormatError(path + ": model.vocab is missing (expected [[piece, score], ...])");
  const json& v = m["vocab"];
  std::vector<std::string> pieces;
  std::vector<double> scores;
  pieces.reserve(v.size());
  scores.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
      throw FormatError(path + ": model.vocab[" + std::to_string(i) + "] is " + json_excerpt(e) + "; expected [piece, score]");
    }
    pieces.push_back(e[0].get<std::string>());
    scores.push_back(e[1].get<double>());
  }
  int unk_id = -1;
  if (m.contains("unk_id") && !m["unk_id"].is_null()) unk_id = id_value(m["unk_id"], path + ": model.unk_id");
  if (unk_id >= int(pieces.size())) {
    throw FormatError(path + ": model.unk_id is " + std::to_string(unk_id) + ", outside the vocabulary of " + std::to_string(pieces.size()) + " pieces");
  }
  std::vector<UnigramRole> roles(pieces.size(), UnigramRole::normal);
  return std::make_unique<UnigramModel>(std::move(pieces), std::move(scores), std::move(roles), unk_id, bool_or(m, "byte_fallback", false),
                                        UnigramModel::Flavor::hugging_face, path);
}

ModelParts read_model(json& m, FlatModel& flat, const std::string& path) {
  const std::string type = type_of(m);
  if (type == "BPE" || (type.empty() && flat.merges.found)) return {read_bpe(m, flat, path), ""};
  // The other models read json: the flat members go back into the document.
  if (flat.vocab.found) m["vocab"] = flat.vocab.to_json(path);
  if (flat.merges.found) m["merges"] = flat.merges.to_json(path);
  if (type == "Unigram") return {read_unigram(m, path), ""};
  if (type == "WordPiece") {
    const std::string prefix = str_or(m, "continuing_subword_prefix", "##");
    int max_chars = 100;
    if (m.contains("max_input_chars_per_word")) max_chars = id_value(m["max_input_chars_per_word"], path + ": model.max_input_chars_per_word");
    return {std::make_unique<WordPieceModel>(vocab_in_id_order(m, path), str_or(m, "unk_token", "[UNK]"), prefix, max_chars, path), prefix};
  }
  throw FormatError(path + ": model type \"" + excerpt(type) + "\" is not supported (BPE, Unigram and WordPiece are)");
}

void read_normalizer(const json& j, const std::string& path, TokenizerPipeline& tok) {
  for (const json& s : steps_of(j, "normalizers")) {
    const std::string type = type_of(s);
    const std::string where = path + ": normalizer " + excerpt(type);
    NormalizeStep n;
    n.where = where;
    if (type == "Prepend") {
      n.kind = NormalizeStep::Kind::prepend;
      n.text = str_or(s, "prepend", "");
    } else if (type == "Replace") {
      bool is_regex = false;
      const std::string pattern = pattern_of(s, where, is_regex);
      n.content = str_or(s, "content", "");
      if (is_regex) {
        n.kind = NormalizeStep::Kind::replace_regex;
        n.regex = std::make_shared<const RegexSplitter>(pattern, where);
      } else {
        n.kind = NormalizeStep::Kind::replace;
        n.text = pattern;
      }
    } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
      n.kind = NormalizeStep::Kind::unicode;
      n.form = type == "NFC" ? NormalForm::nfc : type == "NFD" ? NormalForm::nfd : type == "NFKC" ? NormalForm::nfkc : NormalForm::nfkd;
    } else if (type == "Lowercase") {
      n.kind = NormalizeStep::Kind::lowercase;
    } else if (type == "StripAccents") {
      n.kind = NormalizeStep::Kind::strip_accents;
    } else if (type == "Strip") {
      n.kind = NormalizeStep::Kind::strip;
      n.left = bool_or(s, "strip_left", true);
      n.right = bool_or(s, "strip_right", true);
    } else if (type == "Nmt") {
      n.kind = NormalizeStep::Kind::nmt;
    } else if (type == "BertNormalizer") {
      n.kind = NormalizeStep::Kind::bert;
      n.clean_text = bool_or(s, "clean_text", true);
      n.chinese_chars = bool_or(s, "handle_chinese_chars", true);
      n.lowercase = bool_or(s, "lowercase", true);
      n.strip_accents = bool_or(s, "strip_accents", n.lowercase);  // null: follows lowercase
    } else if (type == "Precompiled") {
      n.kind = NormalizeStep::Kind::precompiled;
      if (!s.contains("precompiled_charsmap") || !(s["precompiled_charsmap"].is_string() || s["precompiled_charsmap"].is_null())) {
        throw FormatError(where + " has no precompiled_charsmap string");
      }
      const std::vector<uint8_t> blob = s["precompiled_charsmap"].is_string()
                                            ? base64_decode(s["precompiled_charsmap"].get<std::string>(), where + "'s precompiled_charsmap")
                                            : std::vector<uint8_t>();
      n.charsmap = std::make_shared<const PrecompiledCharsMap>(
          std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()), where);
      if (n.charsmap->empty()) continue;  // no rules
    } else {
      throw FormatError(where + " is not supported (Prepend, Replace, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Nmt, "
                                "BertNormalizer, Precompiled and Sequence are)");
    }
    tok.normalizers.push_back(n);
  }
}

// A Split's or Punctuation's "behavior" (Isolated when absent).
SplitBehavior behavior_of(const json& s, const std::string& where) {
  const std::string name = str_or(s, "behavior", "Isolated");
  if (const auto b = split_behavior_named(name)) return *b;
  throw FormatError(where + " has behavior \"" + excerpt(name) +
                    "\"; expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

void read_pre_tokenizer(const json& j, const std::string& path, TokenizerPipeline& tok) {
  for (const json& s : steps_of(j, "pretokenizers")) {
    const std::string type = type_of(s);
    const std::string where = path + ": pre_tokenizer " + excerpt(type);
    PreTokenizeStep p;
    if (type == "ByteLevel") {
      p.kind = PreTokenizeStep::Kind::byte_level;
      p.add_prefix_space = bool_or(s, "add_prefix_space", false);
      if (bool_or(s, "use_regex", true)) p.regex = std::make_shared<const RegexSplitter>(kGpt2SplitPattern, where);
      tok.byte_level = true;
    } else if (type == "Metaspace") {
      p.kind = PreTokenizeStep::Kind::metaspace;
      p.replacement = str_or(s, "replacement", "\xE2\x96\x81");
      if (p.replacement.empty() || utf8_length(p.replacement) != 1) {
        throw FormatError(where + " has replacement \"" + excerpt(p.replacement) + "\"; expected one character");
      }
      const std::string scheme = str_or(s, "prepend_scheme", bool_or(s, "add_prefix_space", true) ? "always" : "never");
      if (scheme != "always" && scheme != "first" && scheme != "never") {
        throw FormatError(where + " has prepend_scheme \"" + excerpt(scheme) + "\"; expected always, first or never");
      }
      p.prepend = scheme == "first" ? PreTokenizeStep::Prepend::first
                  : scheme == "never" ? PreTokenizeStep::Prepend::never : PreTokenizeStep::Prepend::always;
      p.split_words = bool_or(s, "split", true);
    } else if (type == "Split") {
      bool is_regex = false;
      const std::string pattern = pattern_of(s, where, is_regex);
      p.kind = PreTokenizeStep::Kind::split;
      p.behavior = behavior_of(s, where);
      p.invert = bool_or(s, "invert", false);
      p.regex = std::make_shared<const RegexSplitter>(is_regex ? pattern : quote_regex(pattern), where);
    } else if (type == "CharDelimiterSplit") {
      const std::string delimiter = str_or(s, "delimiter", "");
      if (utf8_length(delimiter) != 1) throw FormatError(where + " has delimiter \"" + excerpt(delimiter) + "\"; expected one character");
      p.kind = PreTokenizeStep::Kind::split;
      p.behavior = SplitBehavior::removed;
      p.regex = std::make_shared<const RegexSplitter>(quote_regex(delimiter), where);
    } else if (type == "Digits") {
      p.kind = PreTokenizeStep::Kind::digits;
      // Hugging Face splits on char::is_numeric(): general categories Nd, Nl and No (½, ², Ⅻ, ①,
      // Arabic-Indic and full-width digits), not only 0-9.
      p.regex = std::make_shared<const RegexSplitter>(bool_or(s, "individual_digits", false) ? "\\p{N}" : "\\p{N}+", where);
    } else if (type == "BertPreTokenizer") {
      p.kind = PreTokenizeStep::Kind::bert;
    } else if (type == "WhitespaceSplit") {
      p.kind = PreTokenizeStep::Kind::whitespace_split;
    } else if (type == "Whitespace") {
      // \w+|[^\w\s]+ with Rust's Unicode \w (Alphabetic, marks, decimal digits, connector
      // punctuation, joiners); the text between matches (whitespace) is dropped.
      const std::string w = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}";
      p.kind = PreTokenizeStep::Kind::split;
      p.regex = std::make_shared<const RegexSplitter>("[" + w + "]+|[^" + w + "\\s]+", where);
      PreTokenizeStep drop_gaps = p;  // the gaps are whitespace: split them away
      tok.pre_tokenizers.push_back(p);
      drop_gaps.kind = PreTokenizeStep::Kind::whitespace_split;
      drop_gaps.regex = nullptr;
      p = drop_gaps;
    } else if (type == "Punctuation") {
      p.kind = PreTokenizeStep::Kind::punctuation;
      p.behavior = behavior_of(s, where);
    } else {
      throw FormatError(where + " is not supported (ByteLevel, Metaspace, Split, Digits, BertPreTokenizer, WhitespaceSplit, "
                                "Whitespace, Punctuation, CharDelimiterSplit and Sequence are)");
    }
    tok.pre_tokenizers.push_back(p);
  }
}

// [token, id] of BertProcessing / RobertaProcessing.
int processing_token(const json& s, const char* key, const std::string& where) {
  if (!s.contains(key) || !s[key].is_array() || s[key].size() != 2 || !s[key][0].is_string()) {
    throw FormatError(where + " has no \"" + key + "\": [token, id]");
  }
  return id_value(s[key][1], where + "'s " + key + " id");
}

std::vector<TemplateItem> read_template(const json& s, const char* key, const std::string& where) {
  std::vector<TemplateItem> items;
  if (!s.contains(key) || !s[key].is_array()) return items;
  const json specials = s.contains("special_tokens") && s["special_tokens"].is_object() ? s["special_tokens"] : json::object();
  for (const json& piece : s[key]) {
    TemplateItem item;
    if (piece.is_object() && piece.contains("Sequence") && piece["Sequence"].is_object()) {
      const std::string id = str_or(piece["Sequence"], "id", "A");
      if (id != "A" && id != "B") throw FormatError(where + "'s " + key + " template has sequence \"" + excerpt(id) + "\"; expected A or B");
      item.kind = id == "A" ? TemplateItem::Kind::sequence_a : TemplateItem::Kind::sequence_b;
      if (piece["Sequence"].contains("type_id")) item.type_id = id_value(piece["Sequence"]["type_id"], where + "'s type_id");
    } else if (piece.is_object() && piece.contains("SpecialToken") && piece["SpecialToken"].is_object()) {
      const std::string id = str_or(piece["SpecialToken"], "id", "");
      if (!specials.contains(id) || !specials[id].is_object() || !specials[id].contains("ids") || !specials[id]["ids"].is_array()) {
        throw FormatError(where + " uses special token \"" + excerpt(id) + "\" without ids");
      }
      item.kind = TemplateItem::Kind::special;
      for (const json& v : specials[id]["ids"]) item.ids.push_back(id_value(v, where + "'s special token \"" + excerpt(id) + "\""));
      if (piece["SpecialToken"].contains("type_id")) item.type_id = id_value(piece["SpecialToken"]["type_id"], where + "'s type_id");
    } else {
      throw FormatError(where + "'s " + key + " template has an item that is neither {\"Sequence\": ...} nor {\"SpecialToken\": ...}");
    }
    items.push_back(std::move(item));
  }
  return items;
}

void read_post_processor(const json& j, const std::string& path, TokenizerPipeline& tok) {
  int templates = 0;
  for (const json& s : steps_of(j, "processors")) {
    const std::string type = type_of(s);
    const std::string where = path + ": post_processor " + excerpt(type);
    if (type == "ByteLevel") continue;  // only adjusts offsets
    if (++templates > 1) throw FormatError(path + ": post_processor has more than one processor that adds tokens");
    if (type == "TemplateProcessing") {
      if (!s.contains("single") || !s["single"].is_array()) throw FormatError(where + " has no \"single\" template");
      tok.post.single = read_template(s, "single", where);
      tok.post.pair = read_template(s, "pair", where);
    } else if (type == "BertProcessing") {
      tok.post = PostProcessor::bert(processing_token(s, "cls", where), processing_token(s, "sep", where));
    } else if (type == "RobertaProcessing") {
      tok.post = PostProcessor::roberta(processing_token(s, "cls", where), processing_token(s, "sep", where));
    } else {
      throw FormatError(where + " is not supported (TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel and Sequence are)");
    }
  }
}

}  // namespace

std::unique_ptr<TokenizerPipeline> load_tokenizer_json(const std::string& path) {
  const MappedFile f(path);
  // model.vocab and model.merges (150,000-260,000 entries each in Qwen3's, Llama 3's or Gemma 3's
  // files) are read flat: a json value per entry made loading ten times slower.
  std::vector<JsonFlatMember> flat_members;
  json j = parse_json_strict_flat(reinterpret_cast<const char*>(f.data()), reinterpret_cast<const char*>(f.data()) + f.size(),
                                  path, {{"model", "vocab"}, {"model", "merges"}}, flat_members);
  FlatModel flat{std::move(flat_members[0]), std::move(flat_members[1])};
  if (!j.is_object() || !j.contains("model")) throw FormatError(path + ": not a tokenizer.json (no \"model\")");
  std::vector<AddedToken> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& a : j["added_tokens"]) {
      if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id")) {
        throw FormatError(path + ": an added_tokens entry lacks an integer id or a content string");
      }
      added.push_back({a["content"].get<std::string>(), id_value(a["id"], path + ": the id of added token \"" + excerpt(a["content"].get<std::string>()) + "\""), bool_or(a, "special", false),
                       bool_or(a, "lstrip", false), bool_or(a, "rstrip", false)});
    }
  }
  ModelParts parts = read_model(j["model"], flat, path);
  auto tok = std::make_unique<TokenizerPipeline>(std::move(parts.model), std::move(added));
  tok->continuing_prefix = parts.continuing_prefix;
  if (j.contains("normalizer")) read_normalizer(j["normalizer"], path, *tok);
  if (j.contains("pre_tokenizer")) read_pre_tokenizer(j["pre_tokenizer"], path, *tok);
  if (j.contains("post_processor")) read_post_processor(j["post_processor"], path, *tok);
  for (const int id : tok->post.special_ids())
    if (id < 0 || id >= tok->vocab_size()) throw FormatError(path + ": post_processor adds id " + std::to_string(id) + ", outside the vocabulary");
  return tok;
}

}  // namespace hs
