#pragma once
// What one sentence or a sentence pair becomes for an encoder: the special tokens its
// tokenizer's post-processor puts around the text ([CLS] A [SEP] B [SEP] for BERT, <s> A </s></s>
// B </s> for RoBERTa), each token's type (segment) id, which tokens are special and where the
// second sentence starts. The tokenizer frames the text (SubwordTokenizer::encode_pair); this
// turns its Encoding into what a run records.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/tokenizer_base.h"

namespace hs {

// A tokenized input as the model reads it.
struct EncodedText {
  std::vector<int> ids;
  std::vector<int> type_ids;   // [T]; 0 for the first sentence (and its specials), 1 for the second. Empty: all 0
  std::vector<bool> special;   // [T]; true for special tokens ([CLS], [SEP], <s>, [MASK], ...). Empty: none
  int segment_b_start = -1;    // index of the second sentence's first piece (after the specials between), -1 without one
};

class SentenceEncoder {
 public:
  explicit SentenceEncoder(std::shared_ptr<const SubwordTokenizer> tokenizer);

  // `b` null: one sentence. InputError when a pair is asked of a tokenizer without a pair form.
  EncodedText encode(std::string_view a, const std::string* b) const;
  // Ids given directly (a full sequence with its specials, as a Python tokenizer returns it):
  // specials marked by the tokenizer, type ids as given (may be empty), the second sentence from
  // the first type 1.
  EncodedText from_ids(std::vector<int> ids, std::vector<int> type_ids) const;
  const std::shared_ptr<const SubwordTokenizer>& tokenizer() const { return tokenizer_; }

 private:
  std::shared_ptr<const SubwordTokenizer> tokenizer_;
};

}  // namespace hs
