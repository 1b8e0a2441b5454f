#pragma once
// What the pretrained session needs from a sub-word tokenizer, whatever its family
// (llama2.c tokenizer.bin, GPT-2 byte-level BPE, Hugging Face tokenizer.json).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// Ids run from 0 to kMaxVocabSize - 1 (config.json's vocab_size has the same limit).
constexpr int kMaxVocabSize = 1 << 22;

// One encoded text or sentence pair, position by position (what encode_pair returns; the same
// fields as a Hugging Face Encoding).
struct Encoding {
  std::vector<int> ids;
  // Token type (segment) id of each position, as the post-processor's template says: BERT gives 0
  // to "[CLS] A [SEP]" and 1 to "B [SEP]"; RoBERTa and XLM-R give 0 everywhere; without a
  // template, 0 for A and 1 for B.
  std::vector<int> type_ids;
  // Which text each position came from: 0 (A), 1 (B), or -1 for a token the post-processor added
  // around them ([CLS], [SEP], <s>, </s>, BOS). The A/B boundary is where 0 turns into 1.
  std::vector<int> sequence_ids;
  // A special token: added by the post-processor, or a special added token written in the text
  // ("[MASK]", "<|endoftext|>"). Views can leave these out of the colour range.
  std::vector<bool> special;
  std::vector<std::string> labels;  // label(id) of each position

  size_t size() const { return ids.size(); }
};

class SubwordTokenizer {
 public:
  virtual ~SubwordTokenizer() = default;
  // The ids the reference tokenizer produces for `text` (including BOS when the model adds one).
  virtual std::vector<int> encode(std::string_view text) const = 0;
  // The raw bytes of one piece as it reads in decoded text (byte-fallback pieces are one byte).
  virtual std::string piece_bytes(int id) const = 0;
  // Axis label of one token: special tokens as written ("<s>", "<|endoftext|>"), others via
  // visible_label(piece_bytes(id)).
  virtual std::string label(int id) const = 0;
  virtual int vocab_size() const = 0;

  // Text A alone (b empty) or the sentence pair (A, B), framed by the special tokens the
  // tokenizer's post-processor adds (BERT: "[CLS] A [SEP]" and "[CLS] A [SEP] B [SEP]"), with each
  // position's token type, source text and special flag. encode_pair(a).ids == encode(a).
  // Throws InputError when b is given and the tokenizer has no pair form (decoder tokenizers
  // without a pair template: llama2.c, GGUF, a template with an empty "pair").
  virtual Encoding encode_pair(std::string_view a, std::optional<std::string_view> b = std::nullopt) const;

  // A special token (control tokens, special added tokens such as BOS, [CLS], <|endoftext|>).
  virtual bool is_special(int id) const;
};

// Token label as the model sees the piece, always valid UTF-8: every space is shown as "▁"
// (so a leading space is visible), newline as "↵", tab as "⇥", other control bytes and bytes
// that are not complete UTF-8 (a byte-fallback piece of a longer character) as "<0xHH>".
std::string visible_label(std::string_view bytes);

}  // namespace hs
