// SentencePiece's tokenizer.model: the protobuf reader (fields kept, others skipped, every
// malformed variant a FormatError naming the byte), the checks SentencePiece makes when it loads
// a model, and a Hugging Face folder that has only tokenizer.model. Files are written here with a
// small protobuf writer (the ids of real models are checked in tokenizer_cases_test.cpp).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "core/formats/sentencepiece_proto.h"
#include "core/model/hf_folder.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/util/errors.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

using Bytes = std::string;

Bytes varint(uint64_t v) {
  Bytes out;
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out += char(v ? b | 0x80 : b);
  } while (v);
  return out;
}
Bytes field_varint(int n, int64_t v) { return varint(uint64_t(n) << 3) + varint(uint64_t(v)); }
Bytes field_bytes(int n, const Bytes& b) { return varint(uint64_t(n) << 3 | 2) + varint(b.size()) + b; }
Bytes field_float(int n, float f) {
  Bytes out = varint(uint64_t(n) << 3 | 5);
  char raw[4];
  std::memcpy(raw, &f, 4);
  return out + Bytes(raw, 4);
}
Bytes piece(const std::string& text, float score, int type = 1) {
  return field_bytes(1, field_bytes(1, text) + field_float(2, score) + (type != 1 ? field_varint(3, type) : Bytes()));
}

// <unk> <s> </s> ▁ a b ▁a ab; BPE unless model_type says otherwise.
Bytes small_model(int model_type = 2, const Bytes& extra_pieces = "", const Bytes& extra_trainer = "") {
  Bytes m = piece("<unk>", 0, 2) + piece("<s>", 0, 3) + piece("</s>", 0, 3) + piece("\xE2\x96\x81", -5) + piece("a", -6) +
            piece("b", -7) + piece("\xE2\x96\x81" "a", -1) + piece("ab", -2) + extra_pieces;
  m += field_bytes(2, field_varint(3, model_type) + field_bytes(1, "corpus.txt") + field_float(10, 0.9995f) + extra_trainer);
  m += field_bytes(3, field_bytes(1, "identity") + field_varint(4, 0));
  return m;
}

SentencePieceProto parse(const Bytes& b) {
  return parse_sentencepiece_proto(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "tokenizer.model");
}

std::string error_of(const Bytes& b) {
  try {
    sentencepiece_tokenizer(parse(b), {}, "tokenizer.model");
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SentencePieceProto, ReadsTheFieldsItNeedsAndSkipsTheRest) {
  Bytes b = small_model(1, "", field_varint(35, 1) + field_varint(41, -1) + field_bytes(46, "<bos>") + field_varint(24, 1));
  b += field_varint(60, 7) + varint(61 << 3 | 1) + Bytes(8, 'x') + varint(62 << 3 | 5) + Bytes(4, 'y');  // unknown fields
  b += field_bytes(3, field_bytes(2, "RULES") + field_varint(3, 0) + field_varint(5, 0));  // a second normalizer_spec merges
  const SentencePieceProto p = parse(b);
  ASSERT_EQ(p.pieces.size(), 8u);
  EXPECT_EQ(p.pieces[0].type, SentencePieceProto::PieceType::unknown);
  EXPECT_EQ(p.pieces[6].piece, "\xE2\x96\x81" "a");
  EXPECT_EQ(p.pieces[6].score, -1.0f);
  EXPECT_EQ(p.pieces[6].type, SentencePieceProto::PieceType::normal);
  EXPECT_EQ(p.model_type, SentencePieceProto::ModelType::unigram);
  EXPECT_TRUE(p.byte_fallback);
  EXPECT_TRUE(p.treat_whitespace_as_suffix);
  EXPECT_EQ(p.bos_id, -1) << "negative int32 values are ten-byte varints";
  EXPECT_EQ(p.bos_piece, "<bos>");
  EXPECT_EQ(p.normalizer_name, "identity");
  EXPECT_EQ(p.precompiled_charsmap, "RULES");
  EXPECT_FALSE(p.add_dummy_prefix);
  EXPECT_FALSE(p.remove_extra_whitespaces);
  EXPECT_FALSE(p.escape_whitespaces);
}

TEST(SentencePieceProto, MalformedBytesAreFormatErrorsNamingTheByte) {
  const auto error = [](const Bytes& b) {
    try {
      parse(b);
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const Bytes good = small_model();
  EXPECT_NE(error(good.substr(0, good.size() - 1)).find("past the end of its message"), std::string::npos);
  EXPECT_NE(error("\xE0\x03\xFF\xFF").find("ends inside a varint"), std::string::npos) << "unknown field 60";
  EXPECT_NE(error(Bytes("\xEB\x03", 2)).find("at byte 0 has wire type 3"), std::string::npos) << "a group, field 61";
  EXPECT_NE(error(field_varint(1, 5)).find("has field 1 with wire type 0; expected 2"), std::string::npos);
  EXPECT_NE(error(field_bytes(1, field_varint(3, 9))).find("piece type 9"), std::string::npos);
  EXPECT_NE(error(field_bytes(2, field_varint(3, 7))).find("model_type 7"), std::string::npos);
  EXPECT_NE(error(Bytes(11, '\xFF')).find("varint longer than 10 bytes"), std::string::npos);
  EXPECT_NE(error(field_bytes(1, varint(2 << 3 | 5) + "ab")).find("SentencePiece at byte 2 ends inside a 4-byte value"),
            std::string::npos) << "offsets count from the start of the file";
}

TEST(SentencePieceProto, ModelsSentencePieceWouldNotLoadAreRefused) {
  EXPECT_NE(error_of("").find("the model has no pieces"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("a", -1))).find("piece \"a\" is defined twice (ids 4 and 8)"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("<unk2>", 0, 2))).find("both the unknown piece"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("", -1))).find("piece 8 is empty"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("<0x41>", 0, 6))).find("although byte_fallback is false"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("<0x41>", 0, 6), field_varint(35, 1))).find("byte piece <0x00> is missing"),
            std::string::npos);
  EXPECT_NE(error_of(small_model(3)).find("model_type WORD is not supported"), std::string::npos);
  EXPECT_NE(error_of(small_model(2, piece("x", std::nanf("")))).find("is not finite"), std::string::npos);
  Bytes no_unk = small_model();
  no_unk.replace(0, piece("<unk>", 0, 2).size(), piece("<unk>", 0, 3));
  EXPECT_NE(error_of(no_unk).find("no unknown piece"), std::string::npos);
  const Bytes charsmap = field_bytes(3, field_bytes(2, Bytes("\x10\x00\x00\x00\x01", 5)));
  EXPECT_NE(error_of(small_model() + charsmap).find("precompiled_charsmap says its trie has 16 bytes"), std::string::npos);
}

TEST(SentencePieceProto, EncodesWithBosAndControlTokens) {
  const auto tok = sentencepiece_tokenizer(parse(small_model()), {}, "tokenizer.model");
  // "ab a": ▁ab? no such piece: ▁a (score -1) merges first, then b stays; then ▁a again.
  EXPECT_EQ(tok->encode("ab a"), std::vector<int>({1, 6, 5, 6}));
  EXPECT_EQ(tok->encode("a</s>b"), std::vector<int>({1, 6, 2, 3, 5})) << "each piece of text gets the dummy prefix (legacy)";
  SentencePieceOptions o;
  o.legacy = false;
  o.add_eos = true;
  const auto modern = sentencepiece_tokenizer(parse(small_model()), o, "tokenizer.model");
  EXPECT_EQ(modern->encode("a</s>b"), std::vector<int>({1, 6, 2, 5, 2}));
  EXPECT_EQ(tok->encode("zz"), std::vector<int>({1, 3, 0})) << "unknown characters fuse into one <unk>";
  EXPECT_EQ(tok->label(6), "\xE2\x96\x81" "a");
  EXPECT_EQ(tok->label(2), "</s>");
  EXPECT_TRUE(tok->is_special(1));
  EXPECT_FALSE(tok->is_special(6));
  const Encoding pair = tok->encode_pair("a", std::string_view("b"));
  EXPECT_EQ(pair.ids, std::vector<int>({1, 6, 1, 3, 5}));
  EXPECT_EQ(pair.type_ids, std::vector<int>({0, 0, 1, 1, 1}));
}

// A Llama folder whose only tokenizer file is tokenizer.model opens (the tiny random folder of
// tests/fuzz/hf_folder, its tokenizer.json's vocabulary rewritten as a SentencePiece BPE model whose
// scores follow the merge ranks), and tokenizes as its tokenizer.json did.
TEST(SentencePieceProto, HuggingFaceFolderWithOnlyTokenizerModelOpens) {
  namespace fs = std::filesystem;
  const std::string src = std::string(HEADSCOPE_SOURCE_DIR) + "/tests/fuzz";
  const std::string dir = test::scratch_dir("spm_folder");
  const std::string with_json = test::scratch_dir("spm_folder_json");
  for (const std::string& d : {dir, with_json}) {
    fs::copy_file(src + "/hf_folder/model.safetensors", d + "/model.safetensors");
    fs::copy_file(src + "/corpus/hf_config/llama.json", d + "/config.json");
  }
  fs::copy_file(src + "/hf_folder/tokenizer.json", with_json + "/tokenizer.json");
  const auto bytes = test::read_bytes(src + "/hf_folder/tokenizer.json");
  const nlohmann::json tj = nlohmann::json::parse(bytes.begin(), bytes.end());
  std::vector<std::string> pieces(tj["model"]["vocab"].size());
  for (auto it = tj["model"]["vocab"].begin(); it != tj["model"]["vocab"].end(); ++it) pieces[it.value().get<size_t>()] = it.key();
  std::map<std::string, float> merged;
  const auto& merges = tj["model"]["merges"];
  for (size_t r = 0; r < merges.size(); ++r) {
    const std::string m = merges[r];
    merged[m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1)] = -float(r);
  }
  Bytes model;
  for (size_t id = 0; id < pieces.size(); ++id) {
    const std::string& p = pieces[id];
    const int type = id == 0 ? 2 : id < 3 ? 3 : p.rfind("<0x", 0) == 0 && p.size() == 6 ? 6 : 1;
    model += piece(p, merged.count(p) ? merged[p] : -1000.0f - float(id), type);
  }
  model += field_bytes(2, field_varint(3, 2) + field_varint(35, 1));
  model += field_bytes(3, field_bytes(1, "identity") + field_varint(4, 0));
  test::write_bytes(dir + "/tokenizer.model", std::vector<uint8_t>(model.begin(), model.end()));

  const HfModel spm = load_hf_folder(dir);
  const HfModel reference = load_hf_folder(with_json);
  ASSERT_EQ(spm.tokenizer->vocab_size(), reference.tokenizer->vocab_size());
  for (const char* text : {"Lily saw a cat.", "The cat, the tall cat!", "  two spaces", "caf\u00e9 \U0001F436"}) {
    EXPECT_EQ(spm.tokenizer->encode(text), reference.tokenizer->encode(text)) << text;
  }
  EXPECT_EQ(spm.tokenizer->encode("a").front(), 1) << "BOS first (transformers' default add_bos_token)";
}

}  // namespace
}  // namespace hs
