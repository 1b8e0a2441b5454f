#pragma once
// Byte pieces: SentencePiece vocabularies name the piece of one raw byte "<0xHH>".
#include <string_view>

namespace hs {

// The byte of a "<0xHH>" piece, or -1. SentencePiece writes the hex digits in upper case (its
// tokenizers take "<0xab>" for an ordinary piece); llama2.c's tokenizer.bin is read with
// `lower_case_too`, accepting either case.
int byte_piece_value(std::string_view piece, bool lower_case_too = false);

}  // namespace hs
