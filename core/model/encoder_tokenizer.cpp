#include "core/model/encoder_tokenizer.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "core/formats/mapped_file.h"
#include "core/text/tokenizer_json.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using nlohmann::json;

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

json read_json(const std::string& path) {
  const MappedFile f(path);
  try {
    return json::parse(reinterpret_cast<const char*>(f.data()), reinterpret_cast<const char*>(f.data()) + f.size());
  } catch (const json::exception& e) {
    throw FormatError(path + ": not valid JSON (" + e.what() + ")");
  }
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; !from.empty() && (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

// Labels only: the vocabulary of a tokenizer core/text cannot read yet. Text cannot be encoded
// (the loader's message says why); ids given directly are named.
class VocabularyLabels : public SubwordTokenizer {
 public:
  VocabularyLabels(std::vector<std::string> pieces, std::string why) : pieces_(std::move(pieces)), why_(std::move(why)) {}
  std::vector<int> encode(std::string_view text) const override {
    (void)text;
    throw InputError(why_ + "; give the token ids instead with --input-ids (and --token-type-ids for a pair)");
  }
  std::string piece_bytes(int id) const override { return id >= 0 && id < vocab_size() ? pieces_[size_t(id)] : ""; }
  std::string label(int id) const override { return utf8_repair(piece_bytes(id)); }
  int vocab_size() const override { return static_cast<int>(pieces_.size()); }

 private:
  std::vector<std::string> pieces_;
  std::string why_;
};

void put_piece(std::vector<std::string>& pieces, int64_t id, const std::string& piece) {
  if (id < 0 || id >= (int64_t(1) << 22)) return;
  if (int64_t(pieces.size()) <= id) pieces.resize(size_t(id) + 1);
  pieces[size_t(id)] = piece;
}

// id -> piece from tokenizer.json (model.vocab: {piece: id} for WordPiece and BPE, [[piece, score],
// ...] for Unigram; added_tokens), vocab.txt (one piece per line) or vocab.json. Empty when none reads.
std::vector<std::string> vocabulary(const std::string& dir, const json* tokenizer_json) {
  std::vector<std::string> pieces;
  if (tokenizer_json && tokenizer_json->contains("model") && (*tokenizer_json)["model"].is_object()) {
    const json& m = (*tokenizer_json)["model"];
    if (m.contains("vocab") && m["vocab"].is_object()) {
      for (auto it = m["vocab"].begin(); it != m["vocab"].end(); ++it)
        if (it.value().is_number_integer()) put_piece(pieces, it.value().get<int64_t>(), it.key());
    } else if (m.contains("vocab") && m["vocab"].is_array()) {
      int64_t id = 0;
      for (const json& e : m["vocab"]) {
        if (e.is_array() && !e.empty() && e[0].is_string()) put_piece(pieces, id, e[0].get<std::string>());
        ++id;
      }
    }
    if (tokenizer_json->contains("added_tokens") && (*tokenizer_json)["added_tokens"].is_array())
      for (const json& a : (*tokenizer_json)["added_tokens"])
        if (a.is_object() && a.contains("id") && a["id"].is_number_integer() && a.contains("content") && a["content"].is_string())
          put_piece(pieces, a["id"].get<int64_t>(), a["content"].get<std::string>());
    return pieces;
  }
  if (exists(dir + "/vocab.txt")) {
    std::ifstream in(dir + "/vocab.txt");
    std::string line;
    for (int64_t id = 0; std::getline(in, line); ++id) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      put_piece(pieces, id, line);
    }
  } else if (exists(dir + "/vocab.json")) {
    const json v = read_json(dir + "/vocab.json");
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it)
        if (it.value().is_number_integer()) put_piece(pieces, it.value().get<int64_t>(), it.key());
  }
  return pieces;
}

// The id of `piece` in the folder's vocabulary, if it has one.
std::optional<int> vocabulary_id(const std::vector<std::string>& pieces, const std::string& piece) {
  for (size_t i = 0; i < pieces.size(); ++i)
    if (pieces[i] == piece) return static_cast<int>(i);
  return std::nullopt;
}

// Without a tokenizer.json: the family's template, its ids from config.json or the vocabulary.
PostProcessor family_post_processor(const std::string& dir, const HfConfig& config) {
  const std::string type = config.string("model_type", "");
  const bool roberta = type == "roberta" || type == "xlm-roberta";
  const char* cls_key = roberta ? "bos_token_id" : "cls_token_id";
  const char* sep_key = roberta ? "eos_token_id" : "sep_token_id";
  std::optional<int> cls, sep;
  if (config.has(cls_key)) cls = config.integer(cls_key, 0, 1 << 22);
  if (config.has(sep_key)) sep = config.integer(sep_key, 0, 1 << 22);
  if (!cls || !sep) {
    const std::vector<std::string> pieces = vocabulary(dir, nullptr);
    if (!cls) cls = vocabulary_id(pieces, roberta ? "<s>" : "[CLS]");
    if (!sep) sep = vocabulary_id(pieces, roberta ? "</s>" : "[SEP]");
  }
  if (!cls || !sep) return PostProcessor();
  return roberta ? PostProcessor::roberta(*cls, *sep) : PostProcessor::bert(*cls, *sep);
}

// tokenizer.json loaded by core/text with its post_processor left out (set to null): the copy is
// handed over in an anonymous in-memory file. Messages name the real file.
std::shared_ptr<const SubwordTokenizer> load_without_post_processor(const std::string& path, json j) {
  j["post_processor"] = nullptr;
  const std::string text = j.dump();
  const int fd = ::memfd_create("tokenizer.json", MFD_CLOEXEC);
  if (fd < 0) throw IoError(path + ": cannot make an in-memory copy without its post_processor");
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      ::close(fd);
      throw IoError(path + ": cannot make an in-memory copy without its post_processor");
    }
    written += size_t(n);
  }
  const std::string copy = "/proc/self/fd/" + std::to_string(fd);
  try {
    std::shared_ptr<const SubwordTokenizer> tok = load_tokenizer_json(copy);
    ::close(fd);
    return tok;
  } catch (const FormatError& e) {
    ::close(fd);
    std::string message = e.what();
    replace_all(message, copy, path);
    throw FormatError(message);
  } catch (...) {
    ::close(fd);
    throw;
  }
}

}  // namespace

std::shared_ptr<const SentenceEncoder> load_encoder_tokenizer(
    const std::string& dir, const HfConfig& config, const std::function<std::shared_ptr<const SubwordTokenizer>()>& load) {
  const std::string tj_path = dir + "/tokenizer.json";
  std::optional<json> tj;
  if (exists(tj_path)) tj = read_json(tj_path);
  PostProcessor post = tj ? PostProcessor::from_json(tj->is_object() && tj->contains("post_processor") ? (*tj)["post_processor"] : json(),
                                                     tj_path + ": post_processor")
                          : family_post_processor(dir, config);
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  try {
    tokenizer = load();
  } catch (const Error& e) {
    // A post-processor core/text does not read yet: the rest of tokenizer.json may still be readable.
    if (tj && tj->is_object() && tj->contains("post_processor") && !(*tj)["post_processor"].is_null()) {
      try {
        tokenizer = load_without_post_processor(tj_path, *tj);
      } catch (const Error&) {
      }
    }
    if (!tokenizer) {
      std::vector<std::string> pieces = vocabulary(dir, tj ? &*tj : nullptr);
      if (pieces.empty()) throw;
      tokenizer = std::make_shared<const VocabularyLabels>(std::move(pieces), e.what());
    }
  }
  return std::make_shared<const SentenceEncoder>(std::move(tokenizer), std::move(post));
}

}  // namespace hs
