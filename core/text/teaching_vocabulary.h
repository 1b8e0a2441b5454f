#pragma once
// The teaching model's vocabulary (core/model/teaching_model.h, docs/teaching-model.md): its core
// table of about 200 words and punctuation marks for children's stories (ids 1 .. 199, as before
// the word list came), then every other word of the word list (core/text/teaching_lexicon.h:
// about 57,000 English words with their classes). Id 0 is <unk>: a word in neither (so two
// different unknown words look the same to the model); the tokenizer names them
// (unknown_words). Words are matched without regard to ASCII case ("The" is "the"), except that a
// capitalised word is first looked up as written, so "Will" is the name and "will" the verb.
//
// Every word has an identity code the heads compare, a slot of kTeachingSlots:
//   a core word   slot = its id (its own slot: it never looks like another word)
//   other words   slot = core size + FNV-1a(word as listed) mod (kTeachingSlots - core size)
// so two different words outside the core table share a slot (and look the same to the
// duplicate and induction heads) with probability 1 / teaching_hashed_slots() (about 0.3%).
//
// The core table is what a child's story needs; it is not a grammar: "her" is a pronoun even
// where it is a determiner, and "left" is a verb even where it is a direction.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/teaching_lexicon.h"
#include "core/text/tokenizer_base.h"

namespace hs {

constexpr int kTeachingSlots = 512;  // K: width of a word's identity code

struct TeachingWord {
  const char* text;
  WordFeature feature;
};

// The core table, id = index (0 is <unk>).
const std::vector<TeachingWord>& teaching_core_words();

struct TeachingEntry {
  std::string text;
  WordFeature feature = WordFeature::none;
  int slot = 0;  // identity code: the one slot of kTeachingSlots that is 1
};

// Every id: the core table, then the word list's other words.
const std::vector<TeachingEntry>& teaching_vocabulary();

// Slots shared by hashing: kTeachingSlots - the core table's size.
int teaching_hashed_slots();
// The slot of a word outside the core table (FNV-1a, 32 bits, of its bytes).
int teaching_hashed_slot(std::string_view word);

// Words and punctuation (core/text/word_tokenizer.h) looked up in the vocabulary.
class TeachingTokenizer : public SubwordTokenizer {
 public:
  std::vector<int> encode(std::string_view text) const override;  // empty text: no ids
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override { return piece_bytes(id); }
  int vocab_size() const override;
  // Id of a word (see the top of this file), 0 (<unk>) when it is in neither list.
  static int id_of(std::string_view word);
  // The distinct words of `text` that read as <unk>, in order of first appearance.
  static std::vector<std::string> unknown_words(std::string_view text);
};

// "3 words unknown to the teaching model (read as <unk>): zorb, blick, 1984", or "" when none.
std::string teaching_unknown_note(const std::vector<std::string>& unknown);

}  // namespace hs
