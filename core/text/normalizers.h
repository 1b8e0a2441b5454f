#pragma once
// Text normalizers of Hugging Face tokenizers (tokenizer.json "normalizer"), and SentencePiece's
// own normalizer (tokenizer.model's NormalizerSpec), each a step on valid UTF-8 text:
//   Prepend          the prefix before non-empty text
//   Replace          every (non-overlapping, left to right) match of a literal or regex -> content
//   NFC NFD NFKC NFKD  Unicode normalization forms (ICU)
//   Lowercase        each code point's full lowercase mapping, without context
//   StripAccents     drops combining marks (General_Category M)
//   Strip            drops White_Space code points on the left and/or right
//   Nmt              drops the control characters U+0001-0008, 000B, 000E-001F, 007F, 008F, 009F;
//                    TAB, LF, FF, CR, U+1680, U+200B-200F, U+2028, U+2029, U+2581, U+FEFF, U+FFFD
//                    become a space
//   BertNormalizer   clean_text (drops NUL, U+FFFD and Cc/Cf/Co except TAB/LF/CR, maps White_Space
//                    and TAB/LF/CR to a space), handle_chinese_chars (a space either side of each
//                    CJK ideograph of BERT's blocks), strip_accents (NFD, then drops Mn; default:
//                    the lowercase setting), lowercase
//   Precompiled      SentencePiece's rules, as Hugging Face applies them (precompiled_charsmap.h)
//   SentencePiece    tokenizer.model's normalizer (SentencePieceNormalizer below)
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/text/gpt2_byte_map.h"
#include "core/text/piece_trie.h"
#include "core/text/precompiled_charsmap.h"
#include "core/text/unicode_text.h"

namespace hs {

// SentencePiece's Normalizer::Normalize (normalizer.cc), for one piece of text:
//   1. rules: at each position the user-defined symbol or else the longest precompiled rule that
//      matches there is applied (a user-defined symbol is kept as it is); invalid UTF-8 bytes
//      become U+FFFD;
//   2. remove_extra_whitespaces: leading spaces dropped, runs of spaces collapsed to one, trailing
//      spaces dropped (spaces as the rules produce them);
//   3. add_dummy_prefix: one space before the text (after it with treat_whitespace_as_suffix);
//   4. escape_whitespaces: every space becomes "▁" (U+2581).
struct SentencePieceNormalizer {
  std::shared_ptr<const PrecompiledCharsMap> rules;  // may be null (the "identity" normalizer)
  PieceTrie user_defined;                            // symbols kept whole (values unused)
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
  bool treat_whitespace_as_suffix = false;
  // The dummy prefix only for the text's first piece (none after a special token): transformers'
  // legacy=false. SentencePiece itself (and legacy=true) gives each piece its own.
  bool prefix_first_only = false;

  // first: the text starts the input (no special token before it). Stops once the output passes
  // max_bytes (the caller refuses it).
  std::string normalize(std::string_view text, bool first, size_t max_bytes = SIZE_MAX) const;
};

struct NormalizeStep {
  enum class Kind {
    prepend, replace, replace_regex, unicode, lowercase, strip_accents, strip, nmt, bert, precompiled, sentencepiece
  } kind = Kind::prepend;
  std::string text;                                    // prepend: the prefix; replace: the literal to find
  std::string content;                                 // replace, replace_regex: what a match becomes
  std::shared_ptr<const RegexSplitter> regex;          // replace_regex
  NormalForm form = NormalForm::nfc;                   // unicode
  bool left = true, right = true;                      // strip
  bool clean_text = true, chinese_chars = true;        // bert
  bool strip_accents = true, lowercase = true;         // bert
  std::shared_ptr<const PrecompiledCharsMap> charsmap;  // precompiled
  std::shared_ptr<const SentencePieceNormalizer> sentencepiece;
  std::string where;  // "tokenizer.json: normalizer Replace", for messages

  // The step applied to valid UTF-8 text. `first`: the text starts the input (SentencePiece's
  // dummy prefix when only the first piece gets one). InputError naming `where` when the result
  // would pass max_bytes (normalized_size_limit of the text the normalizers started from): a
  // Replace of "a" by a megabyte would otherwise make gigabytes of a short sentence.
  // A regex Replace is charged to `budget`.
  std::string apply(std::string text, bool first, size_t max_bytes, RegexBudget& budget) const;

 private:
  std::string run(std::string text, bool first, size_t max_bytes, RegexBudget& budget) const;
};

// The most normalizers may make of a text of `text_bytes` bytes: 64 times it plus 4 KiB (NFKC
// grows a character at most 18-fold; a Prepend adds a few bytes).
constexpr size_t kNormalizedGrowth = 64;
constexpr size_t kNormalizedSlack = 4096;
size_t normalized_size_limit(size_t text_bytes);

// True for the CJK ideograph blocks BERT puts spaces around (U+4E00-9FFF, 3400-4DBF,
// 20000-2A6DF, 2A700-2B73F, 2B740-2B81F, 2B920-2CEAF, F900-FAFF, 2F800-2FA1F).
bool is_bert_chinese_char(char32_t c);

// BERT's punctuation: ASCII punctuation (symbols such as $ + < = > ^ ` | ~ included) or Unicode
// General_Category P.
bool is_bert_punctuation(char32_t c);

}  // namespace hs
