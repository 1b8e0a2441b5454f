#include "core/text/sentencepiece_tokenizer.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/text/byte_piece.h"
#include "core/text/scored_bpe_model.h"
#include "core/text/unigram_model.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using PieceType = SentencePieceProto::PieceType;

std::string double_quoted(const std::string& s) { return "\"" + utf8_repair(s) + "\""; }


UnigramRole role_of(PieceType t) {
  switch (t) {
    case PieceType::normal: return UnigramRole::normal;
    case PieceType::user_defined: return UnigramRole::user_defined;
    case PieceType::unused: return UnigramRole::unused;
    default: return UnigramRole::reserved;  // unknown, control, byte
  }
}

}  // namespace

std::unique_ptr<TokenizerPipeline> sentencepiece_tokenizer(const SentencePieceProto& proto, const SentencePieceOptions& options,
                                                           const std::string& where) {
  if (proto.model_type != SentencePieceProto::ModelType::unigram && proto.model_type != SentencePieceProto::ModelType::bpe) {
    throw FormatError(where + ": model_type " + (proto.model_type == SentencePieceProto::ModelType::word ? "WORD" : "CHAR") +
                      " is not supported (UNIGRAM and BPE are)");
  }
  const size_t n = proto.pieces.size();
  if (n == 0) throw FormatError(where + ": the model has no pieces");
  // As SentencePiece's ModelInterface::InitializePieces: normal, user-defined and unused pieces
  // share one namespace, control, unknown and byte pieces another; neither may repeat a piece.
  std::unordered_map<std::string, size_t> normal_ids, reserved_ids;
  std::vector<std::string> pieces(n);
  std::vector<UnigramRole> roles(n);
  std::vector<AddedToken> added;
  int unk = -1;
  bool byte_found[256] = {};
  for (size_t id = 0; id < n; ++id) {
    const SentencePieceProto::Piece& p = proto.pieces[id];
    if (p.piece.empty()) throw FormatError(where + ": piece " + std::to_string(id) + " is empty");
    if (!std::isfinite(p.score)) throw FormatError(where + ": the score of piece " + std::to_string(id) + " (" + double_quoted(p.piece) + ") is not finite");
    roles[id] = role_of(p.type);
    auto& ids = roles[id] == UnigramRole::reserved ? reserved_ids : normal_ids;
    if (const auto [it, fresh] = ids.emplace(p.piece, id); !fresh) {
      throw FormatError(where + ": piece " + double_quoted(p.piece) + " is defined twice (ids " + std::to_string(it->second) + " and " +
                        std::to_string(id) + ")");
    }
    if (p.type == PieceType::unknown) {
      if (unk >= 0) throw FormatError(where + ": pieces " + std::to_string(unk) + " and " + std::to_string(id) + " are both the unknown piece");
      unk = int(id);
    }
    if (p.type == PieceType::byte) {
      const int b = byte_piece_value(p.piece);
      if (!proto.byte_fallback) throw FormatError(where + ": byte piece " + double_quoted(p.piece) + " is found although byte_fallback is false");
      if (b < 0) throw FormatError(where + ": byte piece " + double_quoted(p.piece) + " is not named <0xHH>");
      byte_found[b] = true;
    }
    if (p.type == PieceType::control || p.type == PieceType::unknown) added.push_back({p.piece, int(id), true});
    pieces[id] = p.piece;
  }
  if (unk < 0) throw FormatError(where + ": the model has no unknown piece (type UNKNOWN)");
  if (proto.byte_fallback) {
    for (int b = 0; b < 256; ++b)
      if (!byte_found[b]) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        throw FormatError(where + ": byte_fallback is true but byte piece " + name + " is missing (there must be 256)");
      }
  }

  auto normalizer = std::make_shared<SentencePieceNormalizer>();
  if (!proto.precompiled_charsmap.empty()) {
    normalizer->rules = std::make_shared<const PrecompiledCharsMap>(proto.precompiled_charsmap, where + ": normalizer_spec");
  }
  std::vector<std::pair<std::string, int>> user_defined;
  for (size_t id = 0; id < n; ++id)
    if (roles[id] == UnigramRole::user_defined) user_defined.emplace_back(pieces[id], int(id));
  normalizer->user_defined = PieceTrie(std::move(user_defined));
  normalizer->add_dummy_prefix = proto.add_dummy_prefix;
  normalizer->remove_extra_whitespaces = proto.remove_extra_whitespaces;
  normalizer->escape_whitespaces = proto.escape_whitespaces;
  normalizer->treat_whitespace_as_suffix = proto.treat_whitespace_as_suffix;
  normalizer->prefix_first_only = !options.legacy;

  std::unique_ptr<PieceModel> model;
  if (proto.model_type == SentencePieceProto::ModelType::bpe) {
    std::vector<float> scores(n);
    for (size_t id = 0; id < n; ++id) scores[id] = proto.pieces[id].score;
    model = std::make_unique<ScoredBpeModel>(pieces, std::move(scores), roles, unk, proto.byte_fallback);
  } else {
    std::vector<double> scores(n);
    for (size_t id = 0; id < n; ++id) scores[id] = double(proto.pieces[id].score);
    model = std::make_unique<UnigramModel>(pieces, std::move(scores), roles, unk, proto.byte_fallback, UnigramModel::Flavor::sentencepiece, where);
  }
  auto tok = std::make_unique<TokenizerPipeline>(std::move(model), std::move(added));
  NormalizeStep step;
  step.kind = NormalizeStep::Kind::sentencepiece;
  step.sentencepiece = std::move(normalizer);
  step.where = where + ": normalizer";
  tok->normalizers.push_back(std::move(step));

  const auto find = [&](const std::string& piece) {
    for (size_t id = 0; id < n; ++id)
      if (pieces[id] == piece) return int(id);
    return -1;
  };
  const int bos = options.add_bos ? find(options.bos_token.empty() ? proto.bos_piece : options.bos_token) : -1;
  const int eos = options.add_eos ? find(options.eos_token.empty() ? proto.eos_piece : options.eos_token) : -1;
  tok->post = PostProcessor::bos_eos(bos, eos);
  // transformers' LlamaTokenizer: BOS A EOS BOS B EOS, token types 0 for the first half, 1 after.
  tok->post.pair = tok->post.single;
  for (TemplateItem item : tok->post.single) {
    item.type_id = 1;
    if (item.kind == TemplateItem::Kind::sequence_a) item.kind = TemplateItem::Kind::sequence_b;
    tok->post.pair.push_back(item);
  }
  return tok;
}

std::unique_ptr<TokenizerPipeline> load_sentencepiece_tokenizer(const std::string& path, const SentencePieceOptions& options) {
  return sentencepiece_tokenizer(read_sentencepiece_model(path), options, path);
}

}  // namespace hs
