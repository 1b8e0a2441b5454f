#pragma once
// A Hugging Face-style tokenizer pipeline for BPE models (what tokenizer.json describes, and
// what GPT-2's vocab.json + merges.txt amount to):
//   1. added tokens ("<|endoftext|>", "<s>") are cut out of the text and become their ids;
//   2. each remaining segment is normalized (Prepend, Replace);
//   3. pre-tokenizers split it into words (regex Split, ByteLevel, Metaspace, Digits), in order;
//   4. each word goes through the BPE model (byte-level words are in GPT-2's byte alphabet);
//   5. the post-processor adds special tokens around the sequence (e.g. BOS).
#include <memory>
#include <string>
#include <vector>

#include "core/text/bpe_model.h"
#include "core/text/gpt2_byte_map.h"
#include "core/text/tokenizer_base.h"

namespace hs {

struct NormalizeStep {
  enum class Kind { prepend, replace } kind = Kind::prepend;
  std::string text;     // prepend: the prefix; replace: the literal to find
  std::string content;  // replace: what it becomes
};

struct PreTokenizeStep {
  enum class Kind { split, byte_level, metaspace, digits } kind = Kind::split;
  std::shared_ptr<const RegexSplitter> regex;  // split, byte_level with use_regex
  bool keep_matches = true;                    // split: "Isolated" keeps them, "Removed" drops them
  bool add_prefix_space = false;               // byte_level
  std::string replacement = "\xE2\x96\x81";    // metaspace: "▁"
  enum class Prepend { always, first, never } prepend = Prepend::always;  // metaspace
  bool split_words = true;                     // metaspace: split before each replacement
};

struct AddedToken {
  std::string content;
  int id = -1;
  bool special = true;
};

class TokenizerPipeline : public SubwordTokenizer {
 public:
  TokenizerPipeline(std::unique_ptr<BpeModel> model, std::vector<AddedToken> added);

  std::vector<NormalizeStep> normalizers;
  std::vector<PreTokenizeStep> pre_tokenizers;
  std::vector<int> prefix_ids;  // post-processor: before the text (e.g. BOS)
  std::vector<int> suffix_ids;  // post-processor: after the text
  bool byte_level = false;      // pieces are in GPT-2's byte alphabet (else "▁" and <0xHH>)

  std::vector<int> encode(std::string_view text) const override;
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override;
  int vocab_size() const override;

 private:
  void encode_segment(std::string text, bool first, std::vector<int>& out) const;

  std::unique_ptr<BpeModel> model_;
  std::vector<AddedToken> added_;  // longest content first
};

}  // namespace hs
