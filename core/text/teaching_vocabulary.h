#pragma once
// The teaching model's vocabulary (core/model/teaching_model.h): a fixed table of about 200
// English words and punctuation marks, each with the word features the model's hand-wired heads
// read. Id 0 is <unk>: every word outside the table (so two different unknown words look the
// same to the model). Words are matched without regard to ASCII case ("The" is "the"); the
// labels are the table's spelling (names capitalised).
//
// Features, one per word (at most one is set):
//   name     a first name (Priya, Lily, Tom, ...)
//   pronoun  a third-person pronoun (he, she, it, they, him, her, hers, his, its, them, their, theirs)
//   noun     a common noun (keys, table, cat, ball, park, ...)
// The table is what a child's story needs; it is not a grammar: "her" is a pronoun even where it
// is a determiner, and "left" is a verb even where it is a direction.
#include <string>
#include <string_view>
#include <vector>

#include "core/text/tokenizer_base.h"

namespace hs {

enum class WordFeature { none, name, pronoun, noun };

struct TeachingWord {
  const char* text;
  WordFeature feature;
};

// The table, id = index (0 is <unk>).
const std::vector<TeachingWord>& teaching_vocabulary();

// Words and punctuation (core/text/word_tokenizer.h) looked up in the table.
class TeachingTokenizer : public SubwordTokenizer {
 public:
  std::vector<int> encode(std::string_view text) const override;  // empty text: no ids
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override { return piece_bytes(id); }
  int vocab_size() const override;
  // Id of a word in the table (ASCII case ignored), 0 (<unk>) when it is not there.
  static int id_of(std::string_view word);
};

}  // namespace hs
