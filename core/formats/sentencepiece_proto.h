#pragma once
// SentencePiece's tokenizer.model: a serialized protocol buffer `ModelProto`
// (sentencepiece_model.proto, proto2), read here without a protobuf library. What is kept:
//   ModelProto      1 pieces (repeated SentencePiece), 2 trainer_spec, 3 normalizer_spec
//   SentencePiece   1 piece (string), 2 score (float), 3 type (NORMAL 1, UNKNOWN 2, CONTROL 3,
//                   USER_DEFINED 4, UNUSED 5, BYTE 6; default NORMAL)
//   TrainerSpec     3 model_type (UNIGRAM 1, BPE 2, WORD 3, CHAR 4; default UNIGRAM),
//                   24 treat_whitespace_as_suffix, 35 byte_fallback, 40 unk_id, 41 bos_id,
//                   42 eos_id, 43 pad_id, 45 unk_piece, 46 bos_piece, 47 eos_piece, 48 pad_piece
//   NormalizerSpec  1 name, 2 precompiled_charsmap, 3 add_dummy_prefix, 4 remove_extra_whitespaces,
//                   5 escape_whitespaces (the three default true)
// Every other field is skipped by its wire type. The wire format: each field is a varint key
// (field number << 3 | wire type) and a value: 0 varint, 1 eight bytes, 2 varint length + bytes,
// 5 four bytes (3 and 4, groups, are not used by this message and are refused). A repeated
// optional field keeps its last value; a repeated message field is merged, as protobuf does.
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

struct SentencePieceProto {
  enum class PieceType : int { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };
  enum class ModelType : int { unigram = 1, bpe = 2, word = 3, character = 4 };

  struct Piece {
    std::string piece;
    float score = 0.0f;
    PieceType type = PieceType::normal;
  };
  std::vector<Piece> pieces;

  // trainer_spec
  ModelType model_type = ModelType::unigram;
  bool byte_fallback = false;
  bool treat_whitespace_as_suffix = false;
  int unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
  std::string unk_piece = "<unk>", bos_piece = "<s>", eos_piece = "</s>", pad_piece = "<pad>";

  // normalizer_spec
  std::string normalizer_name;
  std::string precompiled_charsmap;
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
};

// Parses the bytes of a ModelProto. Throws FormatError, prefixed by `where`, naming the message,
// field and byte offset when the bytes are not a well-formed message (truncated varint or value,
// a length past the end, a group, an unknown wire type, an enum value outside the proto's), or
// hold more than 2^24 pieces.
SentencePieceProto parse_sentencepiece_proto(const uint8_t* data, size_t size, const std::string& where);

// Reads and parses a tokenizer.model file (IoError when it cannot be read).
SentencePieceProto read_sentencepiece_model(const std::string& path);

}  // namespace hs
