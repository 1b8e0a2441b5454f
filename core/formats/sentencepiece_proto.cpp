#include "core/formats/sentencepiece_proto.h"

#include <cstring>

#include "core/formats/mapped_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr size_t kMaxPieces = size_t(1) << 24;

// One message's bytes, read field by field; every read is bounds-checked.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size, size_t base, const std::string& where, const char* message)
      : data_(data), size_(size), base_(base), where_(where), message_(message) {}

  bool done() const { return pos_ >= size_; }

  // The next field's number and wire type.
  void key(uint32_t& field, uint32_t& wire) {
    field_offset_ = pos_;
    const uint64_t k = varint();
    field = uint32_t(k >> 3);
    wire = uint32_t(k & 7);
    if (field == 0 || k >> 3 > 0x1FFFFFFF) fail("has field number 0 or one too large");
  }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= size_) fail("ends inside a varint");
      const uint8_t b = data_[pos_++];
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("has a varint longer than 10 bytes");
    return 0;
  }

  // A length-delimited value: (pointer, length, offset of its first byte in the file).
  const uint8_t* bytes(size_t& length) {
    const uint64_t n = varint();
    if (n > size_ - pos_) fail("has a length of " + std::to_string(n) + " bytes, past the end of its message");
    length = size_t(n);
    const uint8_t* p = data_ + pos_;
    pos_ += length;
    return p;
  }

  std::string string() {
    size_t n = 0;
    const uint8_t* p = bytes(n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }

  float fixed32_float() {
    if (size_ - pos_ < 4) fail("ends inside a 4-byte value");
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | data_[pos_ + size_t(i)];
    pos_ += 4;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

  // A proto2 int32 (negative values are ten-byte varints).
  int int32() { return int(int32_t(uint32_t(varint()))); }
  bool boolean() { return varint() != 0; }

  void skip(uint32_t wire) {
    switch (wire) {
      case 0: varint(); break;
      case 1:
        if (size_ - pos_ < 8) fail("ends inside an 8-byte value");
        pos_ += 8;
        break;
      case 2: {
        size_t n = 0;
        bytes(n);
        break;
      }
      case 5:
        if (size_ - pos_ < 4) fail("ends inside a 4-byte value");
        pos_ += 4;
        break;
      default:
        fail("has wire type " + std::to_string(wire) + " (groups and unknown types are not part of this format)");
    }
  }

  // A nested message's reader (the value of a length-delimited field).
  Reader nested(const char* message) {
    size_t n = 0;
    const uint8_t* p = bytes(n);
    return Reader(p, n, base_ + size_t(p - data_), where_, message);
  }

  void expect_wire(uint32_t wire, uint32_t expected, uint32_t field) {
    if (wire != expected) {
      fail("has field " + std::to_string(field) + " with wire type " + std::to_string(wire) + "; expected " + std::to_string(expected));
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(where_ + ": " + message_ + " at byte " + std::to_string(base_ + field_offset_) + " " + what +
                      " (not a SentencePiece model)");
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t base_;  // offset of data_[0] in the file, for messages
  size_t pos_ = 0;
  size_t field_offset_ = 0;
  const std::string& where_;
  const char* message_;
};

void read_piece(Reader r, SentencePieceProto& out) {
  if (out.pieces.size() >= kMaxPieces) r.fail("is piece " + std::to_string(out.pieces.size()) + ", past the limit of 2^24 pieces");
  SentencePieceProto::Piece piece;
  while (!r.done()) {
    uint32_t field = 0, wire = 0;
    r.key(field, wire);
    if (field == 1) {
      r.expect_wire(wire, 2, field);
      piece.piece = r.string();
    } else if (field == 2) {
      r.expect_wire(wire, 5, field);
      piece.score = r.fixed32_float();
    } else if (field == 3) {
      r.expect_wire(wire, 0, field);
      const int type = r.int32();
      if (type < 1 || type > 6) r.fail("has piece type " + std::to_string(type) + "; expected 1 (NORMAL) to 6 (BYTE)");
      piece.type = SentencePieceProto::PieceType(type);
    } else {
      r.skip(wire);
    }
  }
  out.pieces.push_back(std::move(piece));
}

void read_trainer_spec(Reader r, SentencePieceProto& out) {
  while (!r.done()) {
    uint32_t field = 0, wire = 0;
    r.key(field, wire);
    switch (field) {
      case 3: {
        r.expect_wire(wire, 0, field);
        const int type = r.int32();
        if (type < 1 || type > 4) r.fail("has model_type " + std::to_string(type) + "; expected 1 (UNIGRAM) to 4 (CHAR)");
        out.model_type = SentencePieceProto::ModelType(type);
        break;
      }
      case 24: r.expect_wire(wire, 0, field); out.treat_whitespace_as_suffix = r.boolean(); break;
      case 35: r.expect_wire(wire, 0, field); out.byte_fallback = r.boolean(); break;
      case 40: r.expect_wire(wire, 0, field); out.unk_id = r.int32(); break;
      case 41: r.expect_wire(wire, 0, field); out.bos_id = r.int32(); break;
      case 42: r.expect_wire(wire, 0, field); out.eos_id = r.int32(); break;
      case 43: r.expect_wire(wire, 0, field); out.pad_id = r.int32(); break;
      case 45: r.expect_wire(wire, 2, field); out.unk_piece = r.string(); break;
      case 46: r.expect_wire(wire, 2, field); out.bos_piece = r.string(); break;
      case 47: r.expect_wire(wire, 2, field); out.eos_piece = r.string(); break;
      case 48: r.expect_wire(wire, 2, field); out.pad_piece = r.string(); break;
      default: r.skip(wire);
    }
  }
}

void read_normalizer_spec(Reader r, SentencePieceProto& out) {
  while (!r.done()) {
    uint32_t field = 0, wire = 0;
    r.key(field, wire);
    switch (field) {
      case 1: r.expect_wire(wire, 2, field); out.normalizer_name = r.string(); break;
      case 2: r.expect_wire(wire, 2, field); out.precompiled_charsmap = r.string(); break;
      case 3: r.expect_wire(wire, 0, field); out.add_dummy_prefix = r.boolean(); break;
      case 4: r.expect_wire(wire, 0, field); out.remove_extra_whitespaces = r.boolean(); break;
      case 5: r.expect_wire(wire, 0, field); out.escape_whitespaces = r.boolean(); break;
      default: r.skip(wire);
    }
  }
}

}  // namespace

SentencePieceProto parse_sentencepiece_proto(const uint8_t* data, size_t size, const std::string& where) {
  SentencePieceProto out;
  Reader r(data, size, 0, where, "ModelProto");
  while (!r.done()) {
    uint32_t field = 0, wire = 0;
    r.key(field, wire);
    if (field == 1) {
      r.expect_wire(wire, 2, field);
      read_piece(r.nested("SentencePiece"), out);
    } else if (field == 2) {
      r.expect_wire(wire, 2, field);
      read_trainer_spec(r.nested("TrainerSpec"), out);
    } else if (field == 3) {
      r.expect_wire(wire, 2, field);
      read_normalizer_spec(r.nested("NormalizerSpec"), out);
    } else {
      r.skip(wire);
    }
  }
  return out;
}

SentencePieceProto read_sentencepiece_model(const std::string& path) {
  const MappedFile f(path);
  return parse_sentencepiece_proto(f.data(), f.size(), path);
}

}  // namespace hs
