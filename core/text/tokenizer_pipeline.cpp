#include "core/text/tokenizer_pipeline.h"

#include <algorithm>

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

TokenizerPipeline::TokenizerPipeline(std::unique_ptr<BpeModel> model, std::vector<AddedToken> added)
    : model_(std::move(model)), added_(std::move(added)) {
  std::stable_sort(added_.begin(), added_.end(),
                   [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
}

int TokenizerPipeline::vocab_size() const {
  int n = model_->size();
  for (const AddedToken& t : added_) n = std::max(n, t.id + 1);
  return n;
}

std::vector<int> TokenizerPipeline::encode(std::string_view raw) const {
  const std::string text = utf8_repair(raw);
  std::vector<int> out = prefix_ids;
  size_t pos = 0, segment_begin = 0;
  bool first = true;
  while (pos < text.size()) {
    const AddedToken* hit = nullptr;
    for (const AddedToken& t : added_)
      if (!t.content.empty() && text.compare(pos, t.content.size(), t.content) == 0) {
        hit = &t;
        break;
      }
    if (!hit) {
      ++pos;
      continue;
    }
    if (pos > segment_begin) encode_segment(text.substr(segment_begin, pos - segment_begin), first, out);
    first = false;
    out.push_back(hit->id);
    pos += hit->content.size();
    segment_begin = pos;
  }
  if (segment_begin < text.size()) encode_segment(text.substr(segment_begin), first, out);
  out.insert(out.end(), suffix_ids.begin(), suffix_ids.end());
  return out;
}

void TokenizerPipeline::encode_segment(std::string text, bool first, std::vector<int>& out) const {
  for (const NormalizeStep& n : normalizers) {
    if (n.kind == NormalizeStep::Kind::prepend) {
      if (!text.empty()) text = n.text + text;
    } else {
      replace_all(text, n.text, n.content);
    }
  }
  std::vector<std::string> words{text};
  for (const PreTokenizeStep& p : pre_tokenizers) {
    std::vector<std::string> next;
    for (size_t w = 0; w < words.size(); ++w) {
      std::string word = words[w];
      switch (p.kind) {
        case PreTokenizeStep::Kind::split:
          p.regex->split(word, p.keep_matches, true, next);
          break;
        case PreTokenizeStep::Kind::digits:
          p.regex->split(word, true, true, next);
          break;
        case PreTokenizeStep::Kind::byte_level: {
          if (p.add_prefix_space && w == 0 && !starts_with(word, " ")) word = " " + word;
          std::vector<std::string> parts;
          if (p.regex) p.regex->split(word, true, true, parts);
          else parts.push_back(word);
          for (const std::string& part : parts) next.push_back(gpt2_bytes_to_unicode(part));
          break;
        }
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

std::string TokenizerPipeline::piece_bytes(int id) const {
  for (const AddedToken& t : added_)
    if (t.id == id) return t.content;
  if (id < 0 || id >= model_->size()) return "";
  const std::string& p = model_->piece(id);
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
  for (const AddedToken& t : added_)
    if (t.id == id) return utf8_repair(t.content);
  return visible_label(piece_bytes(id));
}

}  // namespace hs
