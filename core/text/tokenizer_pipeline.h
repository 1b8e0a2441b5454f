#pragma once
// A Hugging Face-style tokenizer pipeline (what tokenizer.json describes; GPT-2's vocab.json +
// merges.txt, BERT's vocab.txt and SentencePiece's tokenizer.model amount to one too):
//   1. added tokens ("<|endoftext|>", "<s>", "[CLS]") are cut out of the text and become their ids;
//   2. each remaining segment is normalized (normalizers.h), step by step;
//   3. pre-tokenizers split it into words, in order (below);
//   4. each word goes through the model (piece_model.h: BPE, SentencePiece BPE, Unigram, WordPiece);
//   5. the post-processor (post_processor.h) adds special tokens around the text or the pair.
// Pre-tokenizers:
//   Split         regex matches and the text between them, kept, dropped or joined by the
//                 behaviour (split_behavior.h), the two kinds swapped with invert
//   ByteLevel     GPT-2's regex (optional), then each piece into GPT-2's byte alphabet
//   Metaspace     each " " becomes the replacement "▁", which is prepended (always, or to the
//                 input's first word, or never) and starts each word (split)
//   Digits        runs of Unicode numbers (or each one alone) split off
//   BertPreTokenizer  White_Space removed and splits; BERT punctuation (normalizers.h) isolated
//   WhitespaceSplit   White_Space removed and splits
//   Punctuation   BERT punctuation as the matches of a Split (any behaviour)
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/gpt2_byte_map.h"
#include "core/text/normalizers.h"
#include "core/text/piece_trie.h"
#include "core/text/piece_model.h"
#include "core/text/post_processor.h"
#include "core/text/split_behavior.h"
#include "core/text/tokenizer_base.h"

namespace hs {

struct PreTokenizeStep {
  enum class Kind { split, byte_level, metaspace, digits, bert, whitespace_split, punctuation } kind = Kind::split;
  std::shared_ptr<const RegexSplitter> regex;  // split, byte_level with use_regex
  SplitBehavior behavior = SplitBehavior::isolated;  // split, punctuation
  bool invert = false;                               // split: the gaps are the matches
  bool add_prefix_space = false;               // byte_level
  std::string replacement = "\xE2\x96\x81";    // metaspace: "▁"
  enum class Prepend { always, first, never } prepend = Prepend::always;  // metaspace
  bool split_words = true;                     // metaspace: split before each replacement
};

struct AddedToken {
  std::string content;
  int id = -1;
  bool special = true;
  bool lstrip = false;  // the token also takes the White_Space before it (XLM-R's <mask>)
  bool rstrip = false;  // ... and after it
};

class TokenizerPipeline : public SubwordTokenizer {
 public:
  TokenizerPipeline(std::unique_ptr<PieceModel> model, std::vector<AddedToken> added);

  std::vector<NormalizeStep> normalizers;
  std::vector<PreTokenizeStep> pre_tokenizers;
  PostProcessor post;
  bool byte_level = false;        // pieces are in GPT-2's byte alphabet (else "▁" and <0xHH>)
  std::string continuing_prefix;  // WordPiece's "##": labels show it, piece_bytes drops it

  std::vector<int> encode(std::string_view text) const override;
  Encoding encode_pair(std::string_view a, std::optional<std::string_view> b = std::nullopt) const override;
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override;
  int vocab_size() const override;
  bool is_special(int id) const override;

  const PieceModel& model() const { return *model_; }
  // The id of an added token's content, else of the model's piece; -1 when neither.
  int token_id(const std::string& text) const;

 private:
  struct Sequence {
    std::vector<int> ids;
    std::vector<bool> special;  // special added tokens found in the text
  };
  Sequence encode_sequence(std::string_view text) const;
  // encode_pair's work; labels only when asked (encode() needs the ids alone).
  Encoding frame(std::string_view a, std::optional<std::string_view> b, bool with_labels) const;
  // budget: the regex matching of the whole text the segment is part of.
  void encode_segment(std::string text, bool first, std::vector<int>& out, RegexBudget& budget) const;
  const AddedToken* added_token(int id) const;

  std::unique_ptr<PieceModel> model_;
  std::vector<AddedToken> added_;  // longest content first
  PieceTrie added_trie_;           // content -> index in added_ (the first of equal contents)
  std::unordered_map<int, size_t> added_by_id_;  // id -> index in added_ (the first with that id)
};

}  // namespace hs
