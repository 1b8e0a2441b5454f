#include "core/text/gguf_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text/bpe_model.h"
#include "core/text/gpt2_byte_map.h"
#include "core/text/piece_index.h"
#include "core/text/spm_tokenizer.h"
#include "core/text/tokenizer_pipeline.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

// Pre-tokenizers of byte-level BPE vocabularies, by tokenizer.ggml.pre. The regexes are those of
// the models' own tokenizer.json files (llama.cpp's comments keep them), applied one after the
// other, each splitting the pieces of the previous one into matches and the text between them;
// \s is Unicode White_Space (gpt2_byte_map.h).
struct PreTokenizer {
  std::vector<const char*> names;
  std::vector<const char*> regexes;
  bool ignore_merges = false;  // a piece that is itself in the vocabulary is not split
  bool add_bos = false;        // llama.cpp's default for add_bos_token
};

const char* const kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kTekkenRegex =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

const std::vector<PreTokenizer>& pre_tokenizers() {
  static const std::vector<PreTokenizer> table = {
      // llama.cpp's own fallback for files converted without a pre-tokenizer name: punctuation
      // runs first, then GPT-2's regex, then number runs cut into groups of three digits.
      {{"default"}, {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2SplitPattern, R"(\p{N}+)", "[0-9][0-9][0-9]"}, false, false},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"}, {kLlama3Regex}, true, true},
      {{"dbrx", "smaug-bpe"}, {kLlama3Regex}, false, false},
      {{"gpt-2", "phi-2", "mpt", "olmo", "jais", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
        "mellum", "trillion", "granite-docling", "exaone4"},
       {kGpt2SplitPattern}, false, false},
      {{"qwen2", "deepseek-r1-qwen", "stablelm2", "megrez", "hunyuan", "solar-open", "kormo", "f2llmv2"}, {kQwen2Regex}, false, false},
      // Hugging Face: Digits (individual) then ByteLevel's GPT-2 regex.
      {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b", "mellum2"},
       {R"(\p{N})", kGpt2SplitPattern}, false, false},
      {{"tekken"}, {kTekkenRegex}, true, true},
  };
  return table;
}

const PreTokenizer* find_pre_tokenizer(const std::string& name) {
  for (const PreTokenizer& p : pre_tokenizers())
    for (const char* n : p.names)
      if (name == n) return &p;
  return nullptr;
}

std::string single_quoted(const std::string& s) { return "'" + utf8_repair(s) + "'"; }

// The pieces are copied once out of the mapped file (most fit std::string's inline buffer) and
// indexed once; the index goes on to the BPE model.
struct Vocabulary {
  std::vector<std::string> tokens;
  PieceIndex index;  // over tokens
  std::vector<int> types;
  std::vector<float> scores;
};

Vocabulary read_vocabulary(const GgufFile& f, bool need_scores) {
  const std::string where = f.path() + ": metadata ";
  Vocabulary v;
  const GgufValue& pieces = f.string_array("tokenizer.ggml.tokens");
  const size_t n = size_t(pieces.size());
  if (n == 0) throw FormatError(where + "'tokenizer.ggml.tokens' is empty");
  if (n > size_t(std::numeric_limits<int>::max())) throw FormatError(where + "'tokenizer.ggml.tokens' has too many tokens");
  v.tokens.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view piece = pieces.string_at(i);
    if (piece.empty()) v.tokens.push_back("[EMPTY_" + std::to_string(i) + "]");  // as llama.cpp
    else v.tokens.emplace_back(piece);
  }
  if (const int repeated = v.index.build(v.tokens); repeated >= 0) {
    throw FormatError(where + "'tokenizer.ggml.tokens' has " + single_quoted(v.tokens[size_t(repeated)]) + " twice (ids " +
                      std::to_string(v.index.find(v.tokens, v.tokens[size_t(repeated)])) + " and " +
                      std::to_string(repeated) + ")");
  }
  v.types.assign(n, int(TokenType::normal));
  if (f.has("tokenizer.ggml.token_type")) {
    const std::vector<int64_t> types = f.get_int_array("tokenizer.ggml.token_type");
    if (types.size() < n) {
      throw FormatError(where + "'tokenizer.ggml.token_type' has " + std::to_string(types.size()) + " entries for " +
                        std::to_string(n) + " tokens");
    }
    for (size_t i = 0; i < n; ++i) v.types[i] = int(std::clamp<int64_t>(types[i], -1, 7));
  }
  v.scores.assign(n, 0.0f);
  if (need_scores && f.has("tokenizer.ggml.scores")) {
    const std::vector<double> scores = f.get_float_array("tokenizer.ggml.scores");
    if (scores.size() < n) {
      throw FormatError(where + "'tokenizer.ggml.scores' has " + std::to_string(scores.size()) + " entries for " +
                        std::to_string(n) + " tokens");
    }
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(scores[i])) {
        throw FormatError(where + "'tokenizer.ggml.scores'[" + std::to_string(i) + "] is not a finite number");
      }
      v.scores[i] = float(scores[i]);
    }
  }
  return v;
}

// A special token id: the key's value (which must be inside the vocabulary), else the model's
// default when that is inside the vocabulary, else -1.
int special_id(const GgufFile& f, const char* key, int fallback, size_t n) {
  if (!f.has(key)) return fallback >= 0 && size_t(fallback) < n ? fallback : -1;
  const int64_t id = f.get_int(key);
  if (id < 0 || uint64_t(id) >= n) {
    throw FormatError(f.path() + ": metadata '" + key + "' is " + std::to_string(id) + ", outside the vocabulary of " +
                      std::to_string(n) + " tokens");
  }
  return int(id);
}

void require_id(const GgufFile& f, bool add, int id, const char* add_key, const char* id_key) {
  if (add && id < 0) {
    throw FormatError(f.path() + ": metadata '" + add_key + "' is true, but the file names no '" + id_key + "'");
  }
}

std::unique_ptr<SubwordTokenizer> load_spm(const GgufFile& f) {
  Vocabulary v = read_vocabulary(f, true);
  const size_t n = v.tokens.size();
  SpmOptions o;
  o.bos = special_id(f, "tokenizer.ggml.bos_token_id", 1, n);
  o.eos = special_id(f, "tokenizer.ggml.eos_token_id", 2, n);
  o.unk = special_id(f, "tokenizer.ggml.unknown_token_id", 0, n);
  o.add_bos = f.get_bool_or("tokenizer.ggml.add_bos_token", true);
  o.add_eos = f.get_bool_or("tokenizer.ggml.add_eos_token", false);
  o.add_space_prefix = f.get_bool_or("tokenizer.ggml.add_space_prefix", true);
  require_id(f, o.add_bos, o.bos, "tokenizer.ggml.add_bos_token", "tokenizer.ggml.bos_token_id");
  require_id(f, o.add_eos, o.eos, "tokenizer.ggml.add_eos_token", "tokenizer.ggml.eos_token_id");
  return std::make_unique<SpmTokenizer>(std::move(v.tokens), std::move(v.scores), std::move(v.types), o);
}

std::unique_ptr<SubwordTokenizer> load_bpe(const GgufFile& f) {
  const std::string pre_name = f.get_string_or("tokenizer.ggml.pre", "default");
  const PreTokenizer* pre = find_pre_tokenizer(pre_name);
  if (!pre) {
    std::string known;
    for (const std::string& name : gguf_pre_tokenizer_names()) known += (known.empty() ? "" : ", ") + name;
    throw FormatError(f.path() + ": metadata 'tokenizer.ggml.pre' is " + single_quoted(pre_name) +
                      ", a pre-tokenizer headscope does not know (it knows " + known + ")");
  }
  Vocabulary v = read_vocabulary(f, false);
  const size_t n = v.tokens.size();
  if (!f.has("tokenizer.ggml.merges")) {
    throw FormatError(f.path() + ": metadata 'tokenizer.ggml.merges' is missing (a gpt2 tokenizer needs its BPE merges)");
  }
  const GgufValue& merges = f.string_array("tokenizer.ggml.merges");
  std::vector<AddedToken> added;
  for (size_t i = 0; i < n; ++i)
    if (is_special_token_type(v.types[i])) added.push_back({v.tokens[i], int(i), true});
  BpeModel::Options options;  // llama.cpp: lowest (rank, position) first; a repeated merge keeps its first rank
  options.repeated_merge_keeps_last = false;
  auto model = std::make_unique<BpeModel>(std::move(v.tokens), std::move(v.index), f.path() + ": tokenizer", options);
  {
    std::vector<std::pair<std::string_view, std::string_view>> pairs;  // views into the mapped file
    pairs.reserve(size_t(merges.size()));
    for (uint64_t i = 0; i < merges.size(); ++i) {
      const std::string_view line = merges.string_at(i);
      const size_t space = line.find(' ', 1);  // as llama.cpp: the first piece is never empty
      if (space == std::string_view::npos || space + 1 == line.size()) {
        throw FormatError(f.path() + ": metadata 'tokenizer.ggml.merges'[" + std::to_string(i) + "] is " +
                          single_quoted(std::string(line)) + "; expected two pieces \"A B\"");
      }
      pairs.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    model->add_merges(pairs);
  }
  model->ignore_merges = pre->ignore_merges;
  model->unk_id = special_id(f, "tokenizer.ggml.unknown_token_id", -1, n);
  const int bos = special_id(f, "tokenizer.ggml.bos_token_id", 11, n);
  const int eos = special_id(f, "tokenizer.ggml.eos_token_id", 11, n);
  const bool add_bos = f.get_bool_or("tokenizer.ggml.add_bos_token", pre->add_bos);
  const bool add_eos = f.get_bool_or("tokenizer.ggml.add_eos_token", false);
  require_id(f, add_bos, bos, "tokenizer.ggml.add_bos_token", "tokenizer.ggml.bos_token_id");
  require_id(f, add_eos, eos, "tokenizer.ggml.add_eos_token", "tokenizer.ggml.eos_token_id");

  auto tok = std::make_unique<TokenizerPipeline>(std::move(model), std::move(added));
  tok->byte_level = true;
  const std::string where = f.path() + ": tokenizer.ggml.pre " + single_quoted(pre_name);
  for (const char* regex : pre->regexes) {
    PreTokenizeStep step;
    step.kind = PreTokenizeStep::Kind::split;
    step.regex = std::make_shared<const RegexSplitter>(regex, where);
    tok->pre_tokenizers.push_back(step);
  }
  PreTokenizeStep bytes;  // each piece into GPT-2's byte alphabet, no further split
  bytes.kind = PreTokenizeStep::Kind::byte_level;
  tok->pre_tokenizers.push_back(bytes);
  tok->post = PostProcessor::bos_eos(add_bos ? bos : -1, add_eos ? eos : -1);
  return tok;
}

}  // namespace

std::vector<std::string> gguf_pre_tokenizer_names() {
  std::vector<std::string> names;
  for (const PreTokenizer& p : pre_tokenizers())
    for (const char* n : p.names) names.emplace_back(n);
  return names;
}

std::unique_ptr<SubwordTokenizer> load_gguf_tokenizer(const GgufFile& file) {
  if (!file.has("tokenizer.ggml.model")) {
    throw FormatError(file.path() + ": the file has no tokenizer (metadata 'tokenizer.ggml.model' is missing)");
  }
  const std::string model = file.get_string("tokenizer.ggml.model");
  if (model == "llama") return load_spm(file);
  if (model == "gpt2") return load_bpe(file);
  throw FormatError(file.path() + ": metadata 'tokenizer.ggml.model' is " + single_quoted(model) +
                    ", a tokenizer headscope does not read (it reads 'llama', SentencePiece, and 'gpt2', byte-level BPE)");
}

}  // namespace hs
