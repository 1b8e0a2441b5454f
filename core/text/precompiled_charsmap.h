#pragma once
// SentencePiece's precompiled normalization rules (NormalizerSpec.precompiled_charsmap, and the
// "Precompiled" normalizer of tokenizer.json, base64 of the same bytes):
//   blob: uint32 little-endian T, then T bytes of a darts-clone double-array trie (uint32 units),
//         then the replacement strings, each ending with a NUL byte.
//   trie: keys are UTF-8 source strings, each value the offset of its replacement in the strings.
//   unit: label = unit & 0x800000FF, has_leaf = bit 8, value = unit & 0x7FFFFFFF,
//         offset = (unit >> 10) << ((unit & 0x200) >> 6); from node position p, the child with
//         label c sits at p ^ offset(unit[p]) ^ c, and a node's value at p ^ offset(unit[p]).
// Every read is bounds-checked: a corrupt trie finds no rule instead of reading out of bounds.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

class PrecompiledCharsMap {
 public:
  // Throws FormatError (prefixed by `where`) when the blob is too short, the trie size does not
  // fit or is not a whole number of units, or the replacement strings are not valid UTF-8.
  PrecompiledCharsMap(std::string_view blob, const std::string& where);

  // SentencePiece's Normalizer::NormalizePrefix: the longest rule matching text[pos..]:
  // (replacement, source bytes consumed); consumed is 0 when no rule matches.
  std::pair<std::string_view, size_t> longest_rule(std::string_view text, size_t pos) const;

  // Hugging Face's Precompiled normalizer (the spm_precompiled crate): each extended grapheme
  // cluster shorter than 6 bytes is replaced whole by the replacement of the SHORTEST rule that
  // matches its start, if any; otherwise each of its code points is replaced by its own rule's
  // replacement, or kept.
  // Stops once the output passes max_bytes (the caller refuses it).
  std::string normalize_graphemes(std::string_view text, size_t max_bytes = SIZE_MAX) const;

  bool empty() const { return units_.empty(); }

 private:
  // Calls f(length, value) for each key that is a prefix of `key`, shortest first; f returns
  // false to stop.
  template <typename F>
  void common_prefixes(std::string_view key, F&& f) const;
  // The NUL-terminated replacement at `value`; false when it is outside the strings or cuts a character.
  bool replacement(uint32_t value, std::string_view& out) const;
  // The replacement of the shortest rule matching the start of `chunk`; false when none does.
  bool first_rule(std::string_view chunk, std::string_view& out) const;

  std::vector<uint32_t> units_;
  std::string strings_;
};

}  // namespace hs
