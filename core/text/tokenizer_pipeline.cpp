#include "core/text/tokenizer_pipeline.h"

#include <algorithm>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// Metaspace with split: each word starts at a replacement character (merged with what follows).
void split_before(const std::string& s, const std::string& mark, std::vector<std::string>& out) {
  size_t begin = 0;
  for (size_t pos = s.find(mark, mark.size()); pos != std::string::npos; pos = s.find(mark, pos + mark.size())) {
    if (pos > begin) out.push_back(s.substr(begin, pos - begin));
    begin = pos;
  }
  if (begin < s.size()) out.push_back(s.substr(begin));
}

// BertPreTokenizer, WhitespaceSplit: code points where `drop` holds end a word and
// vanish; those where `isolate` holds are words of their own (kept when keep_isolated).
void split_code_points(const std::string& s, bool (*drop)(char32_t), bool (*isolate)(char32_t), bool keep_isolated,
                       std::vector<std::string>& out) {
  size_t begin = 0;
  for_each_code_point(s, [&](char32_t c, size_t pos, size_t len) {
    const bool dropped = drop && drop(c);
    const bool isolated = !dropped && isolate && isolate(c);
    if (!dropped && !isolated) return;
    if (pos > begin) out.push_back(s.substr(begin, pos - begin));
    if (isolated && keep_isolated) out.push_back(s.substr(pos, len));
    begin = pos + len;
  });
  if (begin < s.size()) out.push_back(s.substr(begin));
}

// Byte value of a "<0xHH>" piece, or -1.
int byte_piece(const std::string& p) {
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
  try {
    size_t used = 0;
    const int v = std::stoi(p.substr(3, 2), &used, 16);
    return used == 2 ? v : -1;
  } catch (...) {
    return -1;
  }
}

}  // namespace

TokenizerPipeline::TokenizerPipeline(std::unique_ptr<PieceModel> model, std::vector<AddedToken> added)
    : model_(std::move(model)), added_(std::move(added)) {
  std::stable_sort(added_.begin(), added_.end(),
                   [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  std::vector<std::pair<std::string, int>> entries;
  for (size_t i = added_.size(); i-- > 0;) entries.emplace_back(added_[i].content, int(i));  // the trie keeps the last given
  added_trie_ = PieceTrie(std::move(entries));
  for (size_t i = 0; i < added_.size(); ++i) added_by_id_.emplace(added_[i].id, i);
}

int TokenizerPipeline::vocab_size() const {
  int n = model_->size();
  for (const AddedToken& t : added_) n = std::max(n, t.id + 1);
  return n;
}

TokenizerPipeline::Sequence TokenizerPipeline::encode_sequence(std::string_view raw) const {
  const std::string text = utf8_repair(raw);
  RegexBudget budget(text.size());
  Sequence out;
  size_t pos = 0, segment_begin = 0;
  bool first = true;
  const auto segment = [&](size_t end) {
    if (end <= segment_begin) return;
    encode_segment(text.substr(segment_begin, end - segment_begin), first, out.ids, budget);
    out.special.resize(out.ids.size(), false);
  };
  while (pos < text.size()) {
    const int found = added_trie_.longest_prefix(text, pos).second;  // the longest added token here
    const AddedToken* hit = found >= 0 ? &added_[size_t(found)] : nullptr;
    if (!hit) {
      ++pos;
      continue;
    }
    size_t before = pos;  // lstrip: the whitespace before the token goes with it
    while (hit->lstrip && before > segment_begin) {
      size_t start = before - 1;
      while (start > segment_begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
      size_t len = 1;
      const int32_t c = utf8_decode(text, start, len);
      if (c < 0 || !unicode_is_white_space(char32_t(c))) break;
      before = start;
    }
    segment(before);
    first = false;
    out.ids.push_back(hit->id);
    out.special.push_back(hit->special);
    pos += hit->content.size();
    while (hit->rstrip && pos < text.size()) {  // rstrip: and the whitespace after it
      size_t len = 1;
      const int32_t c = utf8_decode(text, pos, len);
      if (c < 0 || !unicode_is_white_space(char32_t(c))) break;
      pos += len;
    }
    segment_begin = pos;
  }
  segment(text.size());
  return out;
}

std::vector<int> TokenizerPipeline::encode(std::string_view text) const { return frame(text, std::nullopt, false).ids; }

Encoding TokenizerPipeline::encode_pair(std::string_view a, std::optional<std::string_view> b) const { return frame(a, b, true); }

Encoding TokenizerPipeline::frame(std::string_view a, std::optional<std::string_view> b, bool with_labels) const {
  const std::vector<TemplateItem>& items = b ? post.pair : post.single;
  if (b && items.empty()) {
    throw InputError("the tokenizer's post-processor has no pair template: it encodes one text, not a sentence pair");
  }
  const Sequence first = encode_sequence(a);
  const Sequence second = b ? encode_sequence(*b) : Sequence{};
  Encoding e;
  const auto add = [&](int id, int type_id, int sequence, bool special) {
    e.ids.push_back(id);
    e.type_ids.push_back(type_id);
    e.sequence_ids.push_back(sequence);
    e.special.push_back(special);
    if (with_labels) e.labels.push_back(label(id));
  };
  for (const TemplateItem& item : items) {
    if (item.kind == TemplateItem::Kind::special) {
      for (const int id : item.ids) add(id, item.type_id, -1, true);
      continue;
    }
    const bool is_b = item.kind == TemplateItem::Kind::sequence_b;
    const Sequence& s = is_b ? second : first;
    for (size_t i = 0; i < s.ids.size(); ++i) add(s.ids[i], item.type_id, is_b ? 1 : 0, s.special[i]);
  }
  return e;
}

void TokenizerPipeline::encode_segment(std::string text, bool first, std::vector<int>& out, RegexBudget& budget) const {
  const size_t max_bytes = normalized_size_limit(text.size());
  for (const NormalizeStep& n : normalizers) text = n.apply(std::move(text), first, max_bytes, budget);
  std::vector<std::string> words{text};
  for (const PreTokenizeStep& p : pre_tokenizers) {
    std::vector<std::string> next;
    for (size_t w = 0; w < words.size(); ++w) {
      std::string word = words[w];
      switch (p.kind) {
        case PreTokenizeStep::Kind::split:
          split_by_spans(word, p.regex->find_matches(word, budget), p.behavior, p.invert, next);
          break;
        case PreTokenizeStep::Kind::digits:
          p.regex->split(word, true, true, next, budget);
          break;
        case PreTokenizeStep::Kind::byte_level: {
          if (p.add_prefix_space && w == 0 && !starts_with(word, " ")) word = " " + word;
          std::vector<std::string> parts;
          if (p.regex) p.regex->split(word, true, true, parts, budget);
          else parts.push_back(word);
          for (const std::string& part : parts) next.push_back(gpt2_bytes_to_unicode(part));
          break;
        }
        case PreTokenizeStep::Kind::bert:
          split_code_points(word, unicode_is_white_space, is_bert_punctuation, true, next);
          break;
        case PreTokenizeStep::Kind::whitespace_split:
          split_code_points(word, unicode_is_white_space, nullptr, false, next);
          break;
        case PreTokenizeStep::Kind::punctuation:
          split_by_spans(word, code_point_spans(word, is_bert_punctuation), p.behavior, false, next);
          break;
        case PreTokenizeStep::Kind::metaspace: {
          replace_all(word, " ", p.replacement);
          const bool prepend = p.prepend == PreTokenizeStep::Prepend::always ||
                               (p.prepend == PreTokenizeStep::Prepend::first && first && w == 0);
          if (prepend && !starts_with(word, p.replacement)) word = p.replacement + word;
          if (p.split_words) split_before(word, p.replacement, next);
          else next.push_back(word);
          break;
        }
      }
    }
    words = std::move(next);
  }
  for (const std::string& w : words) model_->encode_word(w, out);
}

const AddedToken* TokenizerPipeline::added_token(int id) const {
  const auto it = added_by_id_.find(id);
  return it == added_by_id_.end() ? nullptr : &added_[it->second];
}

int TokenizerPipeline::token_id(const std::string& text) const {
  for (const AddedToken& t : added_)
    if (t.content == text) return t.id;
  return model_->id_of(text);
}

bool TokenizerPipeline::is_special(int id) const {
  const AddedToken* t = added_token(id);
  if (t && t->special) return true;
  for (const auto* items : {&post.single, &post.pair})  // what the post-processor adds ([CLS], <s>, ...)
    for (const TemplateItem& item : *items)
      if (std::find(item.ids.begin(), item.ids.end(), id) != item.ids.end()) return true;
  return false;
}

std::string TokenizerPipeline::piece_bytes(int id) const {
  // An added token reads as written, unless it is also the model's piece (Gemma's "▁▁" runs):
  // then it reads as the model's pieces do.
  const AddedToken* t = added_token(id);
  if (t && !(id < model_->size() && model_->piece(id) == t->content)) return t->content;
  if (id < 0 || id >= model_->size()) return "";
  const std::string& p = model_->piece(id);
  if (!continuing_prefix.empty()) return starts_with(p, continuing_prefix) ? p.substr(continuing_prefix.size()) : p;
  if (byte_level) {
    std::string bytes;
    return gpt2_unicode_to_bytes(p, bytes) ? bytes : p;
  }
  if (const int b = byte_piece(p); b >= 0) return std::string(1, static_cast<char>(b));
  std::string s = p;
  replace_all(s, "\xE2\x96\x81", " ");
  return s;
}

std::string TokenizerPipeline::label(int id) const {
  if (const AddedToken* t = added_token(id)) return utf8_repair(t->content);
  if (!continuing_prefix.empty() && id >= 0 && id < model_->size()) return visible_label(model_->piece(id));  // "##ing"
  return visible_label(piece_bytes(id));
}

}  // namespace hs
