#pragma once
// What the pretrained session needs from a sub-word tokenizer, whatever its family
// (llama2.c tokenizer.bin, GPT-2 byte-level BPE, Hugging Face tokenizer.json).
#include <string>
#include <string_view>
#include <vector>

namespace hs {

// Ids run from 0 to kMaxVocabSize - 1 (config.json's vocab_size has the same limit).
constexpr int kMaxVocabSize = 1 << 22;

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
};

// Token label as the model sees the piece, always valid UTF-8: every space is shown as "▁"
// (so a leading space is visible), newline as "↵", tab as "⇥", other control bytes and bytes
// that are not complete UTF-8 (a byte-fallback piece of a longer character) as "<0xHH>".
std::string visible_label(std::string_view bytes);

}  // namespace hs
