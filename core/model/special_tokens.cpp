#include "core/model/special_tokens.h"

#include <algorithm>

#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;

std::string type_of(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "";
}

// BertProcessing / RobertaProcessing's "cls" or "sep": ["[CLS]", 101].
int token_pair_id(const json& p, const char* key, const std::string& where) {
  if (!p.contains(key) || !p[key].is_array() || p[key].size() != 2 || !p[key][1].is_number_integer() ||
      p[key][1].get<int64_t>() < 0 || p[key][1].get<int64_t>() > (int64_t(1) << 30)) {
    throw FormatError(where + "." + key + " is " + (p.contains(key) ? p[key].dump() : "missing") +
                      "; expected [\"token\", id]");
  }
  return p[key][1].get<int>();
}

// One TemplateProcessing template ("single" or "pair"), special tokens expanded to their ids.
std::vector<TemplatePiece> read_template(const json& p, const char* key, const std::string& where) {
  std::vector<TemplatePiece> out;
  if (!p.contains(key) || p[key].is_null()) return out;
  if (!p[key].is_array()) throw FormatError(where + "." + key + " is not a list");
  const json specials = p.contains("special_tokens") && p["special_tokens"].is_object() ? p["special_tokens"] : json::object();
  for (const json& e : p[key]) {
    const auto type_id = [&](const json& body) {
      if (!body.contains("type_id")) return 0;
      if (!body["type_id"].is_number_integer() || body["type_id"].get<int64_t>() < 0 || body["type_id"].get<int64_t>() > 1024) {
        throw FormatError(where + "." + key + ": type_id " + body["type_id"].dump() + " is not a small non-negative integer");
      }
      return body["type_id"].get<int>();
    };
    if (e.is_object() && e.contains("Sequence") && e["Sequence"].is_object()) {
      const json& s = e["Sequence"];
      const std::string id = s.contains("id") && s["id"].is_string() ? s["id"].get<std::string>() : "A";
      if (id != "A" && id != "B") throw FormatError(where + "." + key + ": sequence \"" + id + "\" is neither A nor B");
      out.push_back({id == "A" ? TemplatePiece::Kind::sentence_a : TemplatePiece::Kind::sentence_b, -1, type_id(s)});
    } else if (e.is_object() && e.contains("SpecialToken") && e["SpecialToken"].is_object()) {
      const json& s = e["SpecialToken"];
      const std::string id = s.contains("id") && s["id"].is_string() ? s["id"].get<std::string>() : "";
      if (!specials.contains(id) || !specials[id].is_object() || !specials[id].contains("ids") || !specials[id]["ids"].is_array()) {
        throw FormatError(where + ": special token \"" + id + "\" has no ids in special_tokens");
      }
      for (const json& v : specials[id]["ids"]) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 30)) {
          throw FormatError(where + ": special token \"" + id + "\" has id " + v.dump() + "; expected a token id");
        }
        out.push_back({TemplatePiece::Kind::special, v.get<int>(), type_id(s)});
      }
    } else {
      throw FormatError(where + "." + key + ": entry " + e.dump() + " is neither {\"SpecialToken\": ...} nor {\"Sequence\": ...}");
    }
  }
  return out;
}

}  // namespace

PostProcessor::PostProcessor(std::vector<TemplatePiece> single, std::vector<TemplatePiece> pair)
    : single_(std::move(single)), pair_(std::move(pair)) {}

PostProcessor PostProcessor::bert(int cls, int sep) {
  using K = TemplatePiece::Kind;
  return PostProcessor({{K::special, cls, 0}, {K::sentence_a, -1, 0}, {K::special, sep, 0}},
                       {{K::special, cls, 0}, {K::sentence_a, -1, 0}, {K::special, sep, 0}, {K::sentence_b, -1, 1},
                        {K::special, sep, 1}});
}

PostProcessor PostProcessor::roberta(int cls, int sep) {
  using K = TemplatePiece::Kind;
  return PostProcessor({{K::special, cls, 0}, {K::sentence_a, -1, 0}, {K::special, sep, 0}},
                       {{K::special, cls, 0}, {K::sentence_a, -1, 0}, {K::special, sep, 0}, {K::special, sep, 0},
                        {K::sentence_b, -1, 0}, {K::special, sep, 0}});
}

PostProcessor PostProcessor::from_json(const json& p, const std::string& where) {
  if (p.is_null()) return PostProcessor();
  const std::string type = type_of(p);
  if (type == "Sequence") {
    if (!p.contains("processors") || !p["processors"].is_array()) throw FormatError(where + ": Sequence without processors");
    PostProcessor out;
    for (const json& step : p["processors"]) {
      PostProcessor one = from_json(step, where);
      if (one.adds_nothing()) continue;
      if (!out.adds_nothing()) throw FormatError(where + ": a Sequence with two processors that add special tokens");
      out = std::move(one);
    }
    return out;
  }
  if (type == "ByteLevel") return PostProcessor();  // only adjusts offsets
  if (type == "TemplateProcessing") return PostProcessor(read_template(p, "single", where), read_template(p, "pair", where));
  if (type == "BertProcessing") return bert(token_pair_id(p, "cls", where), token_pair_id(p, "sep", where));
  if (type == "RobertaProcessing") return roberta(token_pair_id(p, "cls", where), token_pair_id(p, "sep", where));
  throw FormatError(where + " type \"" + type +
                    "\" is not supported (TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence)");
}

std::vector<int> PostProcessor::single_prefix() const {
  std::vector<int> out;
  for (const TemplatePiece& p : single_) {
    if (p.kind != TemplatePiece::Kind::special) break;
    out.push_back(p.id);
  }
  return out;
}

std::vector<int> PostProcessor::single_suffix() const {
  std::vector<int> out;
  for (auto it = single_.rbegin(); it != single_.rend() && it->kind == TemplatePiece::Kind::special; ++it)
    out.insert(out.begin(), it->id);
  return out;
}

bool PostProcessor::is_special(int id) const {
  for (const std::vector<TemplatePiece>* t : {&single_, &pair_})
    for (const TemplatePiece& p : *t)
      if (p.kind == TemplatePiece::Kind::special && p.id == id) return true;
  return false;
}

EncodedText PostProcessor::apply(const std::vector<int>& a, const std::vector<int>* b) const {
  using K = TemplatePiece::Kind;
  // Without a template: A then B, types 0 and 1 (what tokenizers does with no post-processor).
  std::vector<TemplatePiece> plain = {{K::sentence_a, -1, 0}};
  if (b) plain.push_back({K::sentence_b, -1, 1});
  if (b && pair_.empty() && !single_.empty()) {
    throw InputError("this tokenizer's post-processor has no template for a sentence pair; leave out the second sentence");
  }
  const std::vector<TemplatePiece>& t = adds_nothing() ? plain : b ? pair_ : single_;
  EncodedText out;
  for (const TemplatePiece& p : t) {
    if (p.kind == K::special) {
      out.ids.push_back(p.id);
      out.type_ids.push_back(p.type_id);
      out.special.push_back(true);
      continue;
    }
    const std::vector<int>* pieces = p.kind == K::sentence_a ? &a : b;
    if (!pieces) continue;  // a single-sentence template never names B; a pair one without B: nothing
    if (p.kind == K::sentence_b) out.segment_b_start = static_cast<int>(out.ids.size());
    out.ids.insert(out.ids.end(), pieces->begin(), pieces->end());
    out.type_ids.insert(out.type_ids.end(), pieces->size(), p.type_id);
    out.special.insert(out.special.end(), pieces->size(), false);
  }
  return out;
}

SentenceEncoder::SentenceEncoder(std::shared_ptr<const SubwordTokenizer> tokenizer, PostProcessor post)
    : tokenizer_(std::move(tokenizer)), post_(std::move(post)) {
  // Does the tokenizer already wrap every text in the single template's specials?
  std::vector<int> wrapped = post_.single_prefix();
  const std::vector<int> suffix = post_.single_suffix();
  wrapped.insert(wrapped.end(), suffix.begin(), suffix.end());
  bool wraps = false;
  try {
    wraps = !wrapped.empty() && tokenizer_->encode("") == wrapped;
  } catch (const Error&) {
    // A tokenizer that encodes no text (labels only): only ids given directly reach it.
  }
  if (wraps) {
    strip_front_ = post_.single_prefix().size();
    strip_back_ = suffix.size();
  }
}

std::vector<int> SentenceEncoder::pieces(std::string_view text) const {
  std::vector<int> ids = tokenizer_->encode(text);
  if (strip_front_ + strip_back_ > 0 && ids.size() >= strip_front_ + strip_back_) {
    ids.erase(ids.end() - long(strip_back_), ids.end());
    ids.erase(ids.begin(), ids.begin() + long(strip_front_));
  }
  return ids;
}

EncodedText SentenceEncoder::encode(std::string_view a, const std::string* b) const {
  const std::vector<int> pa = pieces(a);
  if (!b) return post_.apply(pa, nullptr);
  const std::vector<int> pb = pieces(*b);
  return post_.apply(pa, &pb);
}

EncodedText SentenceEncoder::from_ids(std::vector<int> ids, std::vector<int> type_ids) const {
  EncodedText out;
  for (const int id : ids) out.special.push_back(post_.is_special(id));
  const auto b = std::find_if(type_ids.begin(), type_ids.end(), [](int t) { return t != 0; });
  if (b != type_ids.end()) out.segment_b_start = static_cast<int>(b - type_ids.begin());
  out.ids = std::move(ids);
  out.type_ids = std::move(type_ids);
  return out;
}

}  // namespace hs
