#include "core/model/pretrained.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "core/model/gguf_loader.h"
#include "core/model/hf_folder.h"
#include "core/model/llama2c_checkpoint.h"
#include "core/model/shipped_models.h"
#include "core/model/synthetic_model.h"
#include "core/model/teaching_model.h"
#include "core/model/transformer_session.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/text/teaching_vocabulary.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/suggest.h"
#include "core/util/format.h"

namespace hs {
namespace {

bool is_directory(const std::string& path) { return is_folder(path); }

bool is_file(const std::string& path) { return is_regular_file(path); }

std::string parent_dir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// --tokenizer, else tokenizer.bin or tok<vocab>.bin beside the checkpoint (llama2.c's names).
std::string llama2c_tokenizer_path(const ModelRequest& request, int vocab) {
  if (!request.tokenizer.empty()) return request.tokenizer;
  const std::string found = find_llama2c_tokenizer(request.model_path, vocab);
  if (!found.empty()) return found;
  throw InputError("--model " + request.model_path + ": a llama2.c checkpoint needs its tokenizer; give --tokenizer FILE (" +
                   "no tokenizer.bin or tok" + std::to_string(vocab) + ".bin beside the checkpoint)");
}

LoadedCheckpoint load_llama2c_files(const ModelRequest& request) {
  std::shared_ptr<const LlamaModel> model = load_llama2c(request.model_path);
  const int vocab = model->info().vocab_size;
  auto tokenizer = std::make_shared<const Llama2cTokenizer>(llama2c_tokenizer_path(request, vocab), vocab);
  return {model, tokenizer, -1, nullptr};
}

LoadedCheckpoint load_gguf_file(const ModelRequest& request) {
  GgufModel g = load_gguf_model(request.model_path, request.sentence, request.generate);
  return {g.model, g.tokenizer, g.bos_id, nullptr};
}

LoadedCheckpoint load_hf_files(const std::string& dir) {
  HfModel hf = load_hf_folder(dir);
  return {hf.model, hf.tokenizer, hf.bos_id, hf.sentences};
}

// The request's text (or ids) as the model reads it: an encoder's post-processor adds its special
// tokens and the second sentence; a decoder's tokenizer adds what it adds (BOS).
EncodedText encode_input(const ModelRequest& request, const LoadedCheckpoint& c) {
  const std::string& name = c.model->info().name;
  if (!request.sentence_b.empty()) {
    if (!c.sentences) {
      throw InputError("--sentence-b: " + name + " is a decoder (" + c.model->info().kind +
                       "); sentence pairs are for encoders (bert, roberta, xlm-roberta, distilbert, electra, modernbert)");
    }
    if (!request.input_ids.empty()) throw InputError("--sentence-b goes with --sentence, not --input-ids");
    if (request.sentence.empty()) throw InputError("--sentence-b needs the first sentence too (--sentence)");
  }
  if (!request.token_type_ids.empty()) {
    if (request.input_ids.empty()) throw InputError("--token-type-ids goes with --input-ids (a sentence gets its types from the tokenizer)");
    if (c.model->type_vocab_size() == 0) {
      throw InputError("--token-type-ids: " + name + " (" + c.model->info().kind + ") has no token type embeddings");
    }
  }
  if (!request.input_ids.empty()) {
    if (!request.sentence.empty()) throw InputError("give either --sentence or --input-ids, not both");
    if (c.sentences) return c.sentences->from_ids(request.input_ids, request.token_type_ids);
    EncodedText t;
    t.ids = request.input_ids;
    return t;
  }
  if (c.sentences) return c.sentences->encode(request.sentence, request.sentence_b.empty() ? nullptr : &request.sentence_b);
  EncodedText t;
  t.ids = c.tokenizer->encode(request.sentence);
  // No text: a Hugging Face model starts from its BOS token (GPT-2's <|endoftext|>), as
  // generation from nothing does; llama2.c's encoder already gives BOS alone (run.c's encode of "").
  if (t.ids.empty() && c.bos_id >= 0) t.ids.push_back(c.bos_id);
  return t;
}

// A text longer than the model's context (with the tokens to generate): the first tokens it
// reads, and a sentence saying so; "" when it fits (or nothing could be kept: the session says why).
std::string fit_to_context(EncodedText& input, const TransformerModel& model, int generate) {
  const int64_t limit = std::min<int64_t>(model.max_positions(), kMaxTokens);
  const int64_t total = int64_t(input.ids.size()) + std::max(0, generate);
  if (total <= limit || generate < 0 || limit - generate < 1) return "";
  const size_t keep = size_t(limit - generate), had = input.ids.size();
  input.ids.resize(keep);
  if (input.type_ids.size() > keep) input.type_ids.resize(keep);
  if (input.special.size() > keep) input.special.resize(keep);
  if (input.segment_b_start >= int(keep)) input.segment_b_start = -1;
  return "The text has " + std::to_string(had) + " tokens; " + model.info().name + " reads at most " +
         std::to_string(limit) + " positions" + (generate > 0 ? " (with " + std::to_string(generate) + " to generate)" : "") +
         ", so the first " + std::to_string(keep) + " tokens are shown.";
}

// Every file a checkpoint may be read from: everything in a Hugging Face folder; a llama2.c
// .bin with --tokenizer, or else with the tokenizer.bin / tok*.bin beside it.
std::vector<std::string> checkpoint_files(const ModelRequest& request, bool folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (folder) {
    for (const fs::directory_entry& e : fs::directory_iterator(request.model_path, ec)) files.push_back(e.path().string());
  } else {
    files.push_back(request.model_path);
    if (!request.tokenizer.empty()) {
      files.push_back(request.tokenizer);
    } else {
      for (const fs::directory_entry& e : fs::directory_iterator(parent_dir(request.model_path), ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("tok", 0) == 0 && ends_with(name, ".bin")) files.push_back(e.path().string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::string find_llama2c_tokenizer(const std::string& checkpoint, int vocab) {
  if (checkpoint.empty() || !is_file(checkpoint)) return "";
  const std::string dir = parent_dir(checkpoint);
  if (is_file(dir + "/tokenizer.bin")) return dir + "/tokenizer.bin";
  if (vocab <= 0) {
    // llama2.c header: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len (int32);
    // a negative vocab_size means an unshared classifier.
    int32_t header[7] = {};
    try {
      // The header alone, from a regular file (a FIFO or a device is not a checkpoint).
      const OpenedFile f(checkpoint);
      if (::pread(f.fd(), header, sizeof header, 0) != ssize_t(sizeof header)) return "";
    } catch (const Error&) {
      return "";
    }
    const int64_t v = header[5] < 0 ? -int64_t(header[5]) : int64_t(header[5]);
    if (v <= 0 || v > 10'000'000) return "";
    vocab = int(v);
  }
  const std::string tok = dir + "/tok" + std::to_string(vocab) + ".bin";
  return is_file(tok) ? tok : "";
}

namespace {

// The built-in teaching model: no files; its own word vocabulary.
std::unique_ptr<Prepared> prepare_teaching(const ModelRequest& request) {
  if (!request.tokenizer.empty()) {
    throw InputError("--tokenizer is for llama2.c checkpoints; the teaching model reads words from its own vocabulary");
  }
  // Lesson 1's variants of the same weights: grouped key/value heads (--kv-heads 2 or 1), the
  // scrambled head split (--scrambled-reshape) and a sliding window (--window W).
  TeachingVariant variant;
  variant.kv_heads = request.attention.n_kv_heads > 0 ? request.attention.n_kv_heads : variant.kv_heads;
  variant.scrambled_reshape = request.attention.scrambled_reshape;
  variant.window = request.attention.window;
  if (variant.scrambled_reshape && request.generate != 0)
    throw InputError("--generate with --scrambled-reshape: the scrambled split mixes each token with later ones, so it cannot continue a text");
  const LoadedCheckpoint c{teaching_model(variant), teaching_tokenizer(), -1, nullptr};
  EncodedText input = encode_input(request, c);
  const std::string cut = request.fit_context ? fit_to_context(input, *c.model, request.generate) : std::string();
  auto session = std::make_unique<TransformerSession>(c.model, c.tokenizer, std::move(input), request.generate);
  if (!cut.empty()) session->add_note(cut);
  // Words outside its vocabulary read as <unk>: say which ("2 words unknown to the teaching model ...").
  if (const std::string unknown = teaching_unknown_note(TeachingTokenizer::unknown_words(request.sentence)); !unknown.empty())
    session->add_note(unknown);
  return session;
}

}  // namespace

std::unique_ptr<Prepared> prepare_pretrained(const ModelRequest& original, CheckpointCache* cache) {
  if (is_teaching_model(original.model_path)) return prepare_teaching(original);
  // A shipped model's name (stories260K) stands for its files in assets/models.
  ModelRequest request = original;
  request.model_path = resolve_shipped_model(original.model_path);
  const std::string& path = request.model_path;
  const bool folder = is_directory(path);
  bool gguf = false;
  if (folder) {
    if (!request.tokenizer.empty()) {
      throw InputError("--tokenizer is for llama2.c checkpoints; a Hugging Face folder brings its own tokenizer files");
    }
  } else {
    if (const std::string why = not_a_file_reason(path); !why.empty()) {
      // "--model /dev/zero is a character device, not a file": say what it is, not "missing".
      std::vector<std::string> shipped;
      for (const ShippedModel& m : shipped_models()) shipped.push_back(m.name);
      const std::string near = path.find('/') == std::string::npos ? did_you_mean(path, shipped) : "";
      throw IoError("--model " + path + " " + why + near +
                    " (expected a llama2.c .bin checkpoint, a GGUF file, a Hugging Face folder or a shipped model: " +
                    or_list(shipped) + ")");
    }
    gguf = is_gguf_file(path) || ends_with(path, ".gguf");  // a .gguf without the magic gets the reader's message
    if (gguf && !request.tokenizer.empty()) {
      throw InputError("--tokenizer is for llama2.c checkpoints; a GGUF file brings its own tokenizer in its metadata");
    }
    if (ends_with(path, ".safetensors") || ends_with(path, "config.json")) {
      throw InputError("--model " + path + ": give the Hugging Face folder that holds config.json, the safetensors " +
                       "weights and the tokenizer files, not a file inside it");
    }
  }
  const auto load = [&] {
    return folder ? load_hf_files(path) : gguf ? load_gguf_file(request) : load_llama2c_files(request);
  };
  // A GGUF file is one file with its tokenizer inside.
  const std::vector<std::string> files = gguf ? std::vector<std::string>{path} : checkpoint_files(request, folder);
  const LoadedCheckpoint c = cache ? cache->get(path + '\n' + request.tokenizer, files, load) : load();
  EncodedText input = encode_input(request, c);
  const std::string cut = request.fit_context ? fit_to_context(input, *c.model, request.generate) : std::string();
  auto session = std::make_unique<TransformerSession>(c.model, c.tokenizer, std::move(input), request.generate);
  if (!cut.empty()) session->add_note(cut);
  return session;
}

}  // namespace hs
