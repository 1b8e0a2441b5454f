#include "core/model/model_request.h"

#include <sstream>

#include "core/formats/npy.h"
#include "core/model/attention_file.h"
#include "core/model/attention_layer.h"
#include "core/model/attention_weights.h"
#include "core/model/embedding.h"
#include "core/model/mha_weights_file.h"
#include "core/model/pretrained.h"
#include "core/model/shipped_models.h"
#include "core/text/word_tokenizer.h"
#include "core/util/errors.h"
#include "core/util/finite.h"

namespace hs {
namespace {

class PreparedLayer : public Prepared {
 public:
  PreparedLayer(std::vector<std::string> tokens, Map x, AttentionWeights w, AttentionConfig c, std::string kind)
      : tokens_(std::move(tokens)), x_(std::move(x)), w_(std::move(w)), c_(c), kind_(std::move(kind)) {}

  AttentionRun run(const RunOptions& options) const override {
    // Live typing: the synthetic layer on a sentence is named by its settings and seed (a
    // --weights file or an --input array runs whole).
    AttentionRun r = run_attention_layer_cached(x_, w_, c_, tokens_, embedded_ && kind_ == "synthetic" ? cache_key() : "",
                                                options);
    r.info.kind = kind_;
    r.info.name = kind_ + " d_model " + std::to_string(c_.d_model);
    return r;
  }
  int64_t tokens() const override { return int64_t(tokens_.size()); }
  int64_t maps() const override { return c_.n_heads; }

  // A sentence's layer embeds words by their text, so any word is in its vocabulary: id k runs
  // as the word "w<k>". An --input array has no vocabulary.
  Vocabulary vocabulary() const override {
    if (!embedded_) return {};
    return {kSyntheticVocabulary, -1, kMaxTokens};
  }
  AttentionRun run_ids(const std::vector<int>& ids, const RunOptions& options) const override {
    if (!embedded_) return Prepared::run_ids(ids, options);
    std::vector<std::string> words;
    for (const int id : ids) {
      if (id < 0 || id >= kSyntheticVocabulary) {
        throw InputError("token id " + std::to_string(id) + " is outside the synthetic vocabulary of " +
                         std::to_string(kSyntheticVocabulary));
      }
      words.push_back("w" + std::to_string(id));
    }
    check_map_memory(int64_t(words.size()), c_.n_heads);
    const Map x = embed_tokens(words, c_.d_model, seed_);  // [P, d_model]
    AttentionRun r = run_attention_layer(x, w_, c_, std::move(words), options);
    r.info.kind = kind_;
    r.info.name = kind_ + " d_model " + std::to_string(c_.d_model);
    return r;
  }

  // Everything the synthetic layer's weights and embeddings depend on besides the words.
  std::string cache_key() const {
    std::ostringstream k;
    k.precision(9);
    k << "synthetic " << c_.d_model << ' ' << c_.n_heads << ' ' << c_.n_kv_heads << ' ' << c_.d_head << ' ' << c_.causal
      << ' ' << c_.window << ' ' << c_.temperature << ' ' << c_.scale << ' ' << c_.softcap << ' ' << c_.bias << ' '
      << c_.scrambled_reshape << " seed " << seed_;
    return k.str();
  }

  bool embedded_ = false;  // x_ embeds a sentence (not an --input array)
  uint64_t seed_ = 0;      // of the embedding

 private:
  static constexpr int kSyntheticVocabulary = 50000;
  std::vector<std::string> tokens_;
  Map x_;
  AttentionWeights w_;
  AttentionConfig c_;
  std::string kind_;
};

Map load_input(const std::string& path, int d_model) {
  Map x = read_npy_matrix(path);
  if (x.rows() == 0) throw InputError(path + ": the input has no tokens (shape [0, " + std::to_string(x.cols()) + "])");
  if (x.cols() != d_model) {
    throw InputError(path + ": input has shape [" + std::to_string(x.rows()) + ", " + std::to_string(x.cols()) +
                     "]; expected [T, " + std::to_string(d_model) + "] (d_model " + std::to_string(d_model) + ")");
  }
  if (const int64_t i = first_non_finite(x.data(), x.size()); i >= 0) {
    throw InputError(path + ": element " + element_text(i, {x.rows(), x.cols()}) + " is " + non_finite_name(x.data()[i]) +
                     ", not a finite number");
  }
  if (x.rows() > kMaxTokens) {
    throw InputError(path + ": the input has " + std::to_string(x.rows()) + " tokens; the limit is " + std::to_string(kMaxTokens));
  }
  return x;
}

std::vector<std::string> numbered_tokens(int64_t n) {
  std::vector<std::string> t;
  for (int64_t i = 0; i < n; ++i) t.push_back(std::to_string(i));
  return t;
}

}  // namespace

bool wants_default_sentence(const ModelRequest& r) {
  if (!r.sentence.empty() || !r.input_npy.empty() || !r.input_ids.empty() || !r.attention_file.empty()) return false;
  return r.model_path.empty() || r.generate == 0;
}

std::unique_ptr<Prepared> prepare(const ModelRequest& req, CheckpointCache* cache) {
  const bool has_sentence = !req.sentence.empty(), has_input = !req.input_npy.empty();
  if (has_sentence && has_input) throw InputError("give either --sentence or --input, not both");
  if (!req.attention_file.empty()) {
    // Maps made elsewhere: the file is the whole run.
    const auto refuse = [](bool given, const char* flag) {
      if (given) throw InputError(std::string("--attention FILE brings its own maps and tokens; leave out ") + flag);
    };
    refuse(!req.model_path.empty(), "--model");
    refuse(!req.weights.empty(), "--weights");
    refuse(has_sentence, "--sentence");
    refuse(!req.sentence_b.empty(), "--sentence-b");
    refuse(has_input, "--input");
    refuse(!req.input_ids.empty(), "--input-ids");
    refuse(!req.token_type_ids.empty(), "--token-type-ids");
    refuse(req.generate != 0, "--generate");
    refuse(req.attention.scrambled_reshape, "--scrambled-reshape");
    return prepare_attention_file(req.attention_file);
  }
  if (req.model_path.empty()) {
    if (!req.sentence_b.empty()) throw InputError("--sentence-b (a second sentence) is for encoder checkpoints (--model FOLDER of bert, roberta, ...)");
    if (!req.input_ids.empty()) throw InputError("--input-ids needs a pretrained model (--model)");
    if (!req.token_type_ids.empty()) throw InputError("--token-type-ids goes with --input-ids and an encoder checkpoint (--model)");
  }
  if (!req.model_path.empty()) {
    if (!req.weights.empty()) throw InputError("give either --model or --weights, not both");
    if (has_input) throw InputError("--input feeds one attention layer; it works with the synthetic model or --weights, not --model");
    if (req.attention.scrambled_reshape && !is_teaching_model(req.model_path)) {
      throw InputError("--scrambled-reshape is a lesson on the synthetic layer and the teaching model; it does not apply to --model " + req.model_path);
    }
    return prepare_pretrained(req, cache);
  }
  if (!has_sentence && !has_input) throw InputError("no input: give --sentence TEXT or --input FILE.npy");
  if (req.generate != 0) throw InputError("--generate needs a pretrained model (--model)");

  AttentionConfig c = req.attention;
  AttentionWeights w;
  std::string kind = "synthetic";
  if (!req.weights.empty()) {
    MhaWeightsFile f = load_mha_weights(req.weights, c);
    c = f.config;
    w = std::move(f.weights);
    kind = "weights";
  } else {
    c.validate();
    check_synthetic_size(c);
    w = init_attention_weights(c, req.seed);
  }
  if (has_input) {
    Map x = load_input(req.input_npy, c.d_model);
    std::vector<std::string> tokens = numbered_tokens(x.rows());
    return std::make_unique<PreparedLayer>(std::move(tokens), std::move(x), std::move(w), c, kind);
  }
  std::vector<std::string> tokens = token_texts(tokenize_words(req.sentence));
  if (int64_t(tokens.size()) > kMaxTokens) {
    throw InputError("the sentence has " + std::to_string(tokens.size()) + " tokens; the limit is " + std::to_string(kMaxTokens));
  }
  check_map_memory(int64_t(tokens.size()), c.n_heads);  // before the [T, d_model] embedding is allocated
  Map x = embed_tokens(tokens, c.d_model, req.seed);
  auto prepared = std::make_unique<PreparedLayer>(std::move(tokens), std::move(x), std::move(w), c, kind);
  prepared->embedded_ = true;
  prepared->seed_ = req.seed;
  return prepared;
}

AttentionRun Prepared::run_ids(const std::vector<int>& ids, const RunOptions& options) const {
  (void)ids;
  (void)options;
  throw InputError("this model runs only its own input (an --input array has no token vocabulary)");
}

AttentionRun run_request(const ModelRequest& request, const RunOptions& options) {
  return prepare(request)->run(options);
}

}  // namespace hs
