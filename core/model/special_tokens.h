#pragma once
// What one sentence or a sentence pair becomes for an encoder: the special tokens its
// tokenizer's post-processor puts around the text ([CLS] A [SEP] B [SEP] for BERT, <s> A </s></s>
// B </s> for RoBERTa), each token's type (segment) id, which tokens are special and where the
// second sentence starts. Read from tokenizer.json's post_processor (TemplateProcessing,
// BertProcessing, RobertaProcessing, inside a Sequence or not), or the family's template when a
// folder has no tokenizer.json.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/tokenizer_base.h"

namespace hs {

// A tokenized input as the model reads it.
struct EncodedText {
  std::vector<int> ids;
  std::vector<int> type_ids;   // [T]; 0 for the first sentence (and its specials), 1 for the second. Empty: all 0
  std::vector<bool> special;   // [T]; true for the tokens the post-processor added. Empty: none
  int segment_b_start = -1;    // index of the second sentence's first piece (after the specials between), -1 without one
};

// One entry of a post-processor template: a special token, or the pieces of sentence A or B.
struct TemplatePiece {
  enum class Kind { special, sentence_a, sentence_b } kind = Kind::special;
  int id = -1;       // special: its token id
  int type_id = 0;
};

class PostProcessor {
 public:
  PostProcessor() = default;  // adds nothing
  PostProcessor(std::vector<TemplatePiece> single, std::vector<TemplatePiece> pair);

  // tokenizer.json's "post_processor" (null: adds nothing); `where` names it in messages.
  // FormatError for a malformed or unknown processor.
  static PostProcessor from_json(const nlohmann::json& post_processor, const std::string& where);
  // [CLS] A [SEP] / [CLS] A [SEP] B [SEP] (types 0, then 1 from B on): BERT's template.
  static PostProcessor bert(int cls, int sep);
  // <s> A </s> / <s> A </s> </s> B </s>, every type 0: RoBERTa's template.
  static PostProcessor roberta(int cls, int sep);

  // The special tokens of the single-sentence template before and after A.
  std::vector<int> single_prefix() const;
  std::vector<int> single_suffix() const;
  bool adds_nothing() const { return single_.empty() && pair_.empty(); }
  bool has_pair() const { return !pair_.empty(); }
  // True when `id` is one of the tokens a template adds.
  bool is_special(int id) const;

  // The template filled with sentence pieces `a` (and `b`); throws InputError when a pair is asked
  // of a processor without a pair template.
  EncodedText apply(const std::vector<int>& a, const std::vector<int>* b) const;

 private:
  std::vector<TemplatePiece> single_, pair_;
};

// A tokenizer with the post-processor of its model: encodes a sentence or a pair as the model
// reads it. The tokenizer's own encode() may already add the single template's specials (the
// tokenizer.json loader reads TemplateProcessing); that is found out once, by encoding "", and
// its specials are taken off before the template is applied, so they are never added twice.
class SentenceEncoder {
 public:
  SentenceEncoder(std::shared_ptr<const SubwordTokenizer> tokenizer, PostProcessor post);

  // `b` null: one sentence.
  EncodedText encode(std::string_view a, const std::string* b) const;
  // Ids given directly (a full sequence with its specials, as a Python tokenizer returns it):
  // specials marked by id, type ids as given (may be empty), the second sentence from the first type 1.
  EncodedText from_ids(std::vector<int> ids, std::vector<int> type_ids) const;
  const PostProcessor& post_processor() const { return post_; }
  const std::shared_ptr<const SubwordTokenizer>& tokenizer() const { return tokenizer_; }

 private:
  // The sentence's pieces without any special token the tokenizer added.
  std::vector<int> pieces(std::string_view text) const;

  std::shared_ptr<const SubwordTokenizer> tokenizer_;
  PostProcessor post_;
  size_t strip_front_ = 0, strip_back_ = 0;  // specials the tokenizer itself adds around every text
};

}  // namespace hs
