#pragma once
// One description of "which model on which input", shared by the CLI, the app and sessions:
// synthetic (a sentence + shape + seed), --weights (nn.MultiheadAttention state_dict) on a
// sentence or a .npy input, a pretrained checkpoint (--model) on a sentence (an encoder: or a
// sentence pair) or on token ids, or attention maps made elsewhere (--attention FILE).
// prepare() does the slow, input-dependent set-up once (tokenizing, embedding, loading);
// Prepared::run() is the engine and can be timed and repeated.
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/model_run.h"
#include "core/model/synthetic_model.h"

namespace hs {

struct ModelRequest {
  std::string sentence;     // --sentence
  std::string sentence_b;   // --sentence-b: an encoder's second sentence ([CLS] A [SEP] B [SEP])
  std::vector<int> input_ids;       // --input-ids: token ids given directly (pretrained models), instead of --sentence
  std::vector<int> token_type_ids;  // --token-type-ids: with --input-ids, each token's segment (0 or 1)
  std::string attention_file;       // --attention FILE: attention maps from elsewhere (.safetensors or .npz)
  std::string input_npy;    // --input FILE.npy: [T, d_model] float32
  std::string weights;      // --weights FILE.safetensors
  std::string model_path;   // --model PATH (llama2.c .bin or a Hugging Face folder)
  std::string tokenizer;    // --tokenizer FILE (llama2.c)
  AttentionConfig attention;
  uint64_t seed = 0;
  int generate = 0;         // pretrained: greedily continue the sentence by this many tokens
  // Pretrained: a text longer than the model's context is cut to the tokens it reads (the first
  // ones), and the run's notes say so, instead of an error (--fit-context; the app always fits).
  bool fit_context = false;

  // Equality: every field, nested structs by their own (AttentionConfig::tie), floats with NaN
  // equal to NaN (core/util/same_fields.h). A new field goes into input_tie() (or, like
  // fit_context, into tie()): tests/core/model/model_request_equality_test.cpp counts the fields
  // and fails to compile until it is, then changes each one in turn and expects a difference.
  // The model and its input: every field but fit_context (what to do with a text longer than the
  // context). The app runs every request fitted and compares these (same_model_request).
  auto input_tie() const {
    return std::tie(sentence, sentence_b, input_ids, token_type_ids, attention_file, input_npy, weights, model_path,
                    tokenizer, attention, seed, generate);
  }
  auto tie() const { return std::tuple_cat(input_tie(), std::tie(fit_context)); }
  bool operator==(const ModelRequest& o) const { return same_fields(tie(), o.tie()); }
  bool operator!=(const ModelRequest& o) const { return !(*this == o); }
};

// Whether a program that opens on a default sentence (the app) should put it in: only when the
// request names no input of its own. A checkpoint asked to --generate with no text starts from
// nothing (its BOS), as headscope-cli does: one rule for the app and the CLI.
bool wants_default_sentence(const ModelRequest& request);

class Prepared {
 public:
  virtual ~Prepared() = default;
  virtual AttentionRun run(const RunOptions& options) const = 0;
  // What run() will produce: tokens T and [T, T] maps (layers x heads), known before running, so
  // a caller can pick long-input mode (RunOptions::display_size) when whole maps would not fit.
  virtual int64_t tokens() const = 0;
  virtual int64_t maps() const = 0;
  // True when the run's maps are already whole in memory and long-input mode cannot be made from
  // them (maps read from a file: there are no queries and keys for exact rows).
  virtual bool whole_maps_only() const { return false; }

  // Token ids of a caller's choosing (the induction probe, core/analysis/head_roles.h): the ids
  // this model can run, its BOS id (-1: it adds none) and the longest sequence. size 0: the model
  // runs only its own input (an --input array).
  struct Vocabulary {
    int size = 0;
    int bos_id = -1;
    int max_tokens = 0;
  };
  virtual Vocabulary vocabulary() const { return {}; }
  // The model on `ids` (each < vocabulary().size), whole maps. Throws InputError when it cannot.
  virtual AttentionRun run_ids(const std::vector<int>& ids, const RunOptions& options) const;
};

class CheckpointCache;

// Throws InputError / FormatError / IoError for anything wrong with the request or its files.
// With a cache (core/model/checkpoint_cache.h), an unchanged checkpoint is not read again.
std::unique_ptr<Prepared> prepare(const ModelRequest& request, CheckpointCache* cache = nullptr);

// prepare + run.
AttentionRun run_request(const ModelRequest& request, const RunOptions& options = {});

}  // namespace hs
