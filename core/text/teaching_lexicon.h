#pragma once
// The teaching model's word list (core/model/teaching_model.h, docs/teaching-model.md): about
// 61,000 English words, each with the one word class the model's hand-wired heads read. Built
// from core/text/teaching_lexicon.txt (written by tools/make_teaching_lexicon.py from Debian's
// wamerican-small, WordNet 3.0 and a list of first names; provenance and licences in its header),
// which the build compiles in: nothing is read from disk at run time.
#include <string>
#include <vector>

namespace hs {

// A word's class, as the wired heads read it (at most one per word):
//   name     a first name (Priya, Lily, Aaron, ...)
//   pronoun  a third-person pronoun (he, she, it, they, him, her, hers, his, its, them, their, theirs)
//   noun     a common noun (keys, table, trophy, suitcase, ...)
enum class WordFeature { none, name, pronoun, noun };

struct LexiconWord {
  std::string text;  // as written: names capitalised, other words in lower case
  WordFeature feature = WordFeature::none;
};

// Every word of the list, expanded: each line's suffix flags give its inflected forms (the table in
// teaching_lexicon.cpp), every name and noun also gets its possessive ("Aaron's", "trophy's").
// Sorted by section (names, pronoun contractions, nouns, other words), then as the file lists
// them; no duplicates.
const std::vector<LexiconWord>& teaching_lexicon();

// One line of the file, decoded: a leading digit k stands for the first k characters of the line
// before (decoded). "4s" after "book/s" is "books".
std::string decode_lexicon_line(const std::string& line, const std::string& previous);
// The words of one decoded line: "book/s" gives {"book", "books"}, "stop/pn" {"stop", "stopped",
// "stopping"}. A flag that the suffix table does not know, or that does not apply, throws
// FormatError naming the line.
std::vector<std::string> expand_lexicon_line(const std::string& decoded);

}  // namespace hs
