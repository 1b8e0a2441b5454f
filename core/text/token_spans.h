#pragma once
// Where each token of an encoded text sits in the text, in bytes, found by walking the text with
// the tokens' own bytes (piece_bytes) in order:
//   - a token whose bytes are next in the text covers them;
//   - one whose bytes are a space plus what is next (SentencePiece's and Metaspace's dummy prefix,
//     GPT-2's add_prefix_space) covers the text after the space;
//   - a token the post-processor added ([CLS], BOS) or one a normalizer changed (lowercasing,
//     NFKC, accents stripped) has no span; the walk goes on from where the text was matched last.
#include <string_view>
#include <vector>

#include "core/text/tokenizer_base.h"

namespace hs {

struct TokenSpan {
  bool found = false;
  size_t begin = 0, end = 0;  // [begin, end) in the text's bytes, when found
};

// e: tok.encode_pair(text) (positions with sequence id -1 were added by the post-processor).
std::vector<TokenSpan> token_byte_spans(const SubwordTokenizer& tok, std::string_view text, const Encoding& e);

}  // namespace hs
