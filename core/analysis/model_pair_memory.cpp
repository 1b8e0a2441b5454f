#include "core/analysis/model_pair_memory.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/formats/gguf.h"
#include "core/model/gguf_loader.h"
#include "core/model/hf_config.h"
#include "core/model/shipped_models.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

int64_t pair_file_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? int64_t(st.st_size) : 0;
}

// GGUF: the tensors are used in place (mapped); the shapes from the architecture's metadata.
void pair_gguf_shape(const std::string& path, ModelMemoryNeed& need, LlamaConfig& c) {
  const GgufFile f(path);  // maps the file and parses the header; no tensor data is touched
  need.weights = 0;
  for (const GgufTensor& t : f.tensors()) need.weights += int64_t(t.bytes);
  need.weights_mapped = true;
  const std::string arch = f.get_string("general.architecture") + ".";
  c.d_model = int(f.get_int(arch + "embedding_length"));
  c.n_layers = int(f.get_int(arch + "block_count"));
  c.n_heads = int(f.get_int(arch + "attention.head_count"));
  c.n_kv_heads = int(f.get_int_or(arch + "attention.head_count_kv", c.n_heads));
  c.d_head = int(f.get_int_or(arch + "attention.key_length", c.n_heads > 0 ? c.d_model / c.n_heads : 0));
  c.hidden = int(f.get_int_or(arch + "feed_forward_length", 4 * int64_t(c.d_model)));
  const GgufTensor* embed = f.find_tensor("token_embd.weight");
  c.vocab = embed && embed->dims.size() == 2 ? int(embed->dims[1]) : 0;
}

// llama2.c: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len);
// every weight is read into memory as float32 (the file's size).
void pair_llama2c_shape(const std::string& path, ModelMemoryNeed& need, LlamaConfig& c) {
  std::ifstream in(path, std::ios::binary);
  int32_t v[7] = {};
  if (!in.read(reinterpret_cast<char*>(v), sizeof v)) throw FormatError(path + ": too short for a llama2.c header");
  need.weights = pair_file_bytes(path);
  c.d_model = v[0], c.hidden = v[1], c.n_layers = v[2], c.n_heads = v[3], c.n_kv_heads = v[4];
  c.vocab = v[5] == INT32_MIN ? 0 : std::abs(v[5]);
  c.d_head = c.n_heads > 0 ? c.d_model / c.n_heads : 0;
}

// A Hugging Face folder: config.json's shapes; the safetensors (F32, F16, BF16) become float32 copies.
void pair_hf_shape(const std::string& dir, ModelMemoryNeed& need, LlamaConfig& c) {
  const HfConfig config(dir + "/config.json");
  int64_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".safetensors") files += pair_file_bytes(entry.path().string());
  const std::string dtype = config.string("torch_dtype", "float32");
  need.weights = dtype == "float16" || dtype == "bfloat16" ? 2 * files : files;
  const auto key = [&](const char* a, const char* b, int fallback) {
    return config.has(a) ? config.integer(a, 1, 1 << 20) : config.integer(b, 1, 1 << 20, fallback);
  };
  c.d_model = key("hidden_size", "n_embd", 0);
  c.n_layers = key("num_hidden_layers", "n_layer", 0);
  c.n_heads = key("num_attention_heads", "n_head", 0);
  c.n_kv_heads = key("num_key_value_heads", "num_attention_heads", c.n_heads);
  c.d_head = config.has("head_dim") ? config.integer("head_dim", 1, 1 << 16) : c.n_heads > 0 ? c.d_model / c.n_heads : 0;
  c.hidden = key("intermediate_size", "n_inner", 4 * c.d_model);
  c.vocab = config.integer("vocab_size", 1, 1 << 24, 0);
}

}  // namespace

int64_t parse_memory_budget(const std::string& text) {
  const bool bare = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (bare && text.size() > 12) return -1;  // past 10^12 MiB: not a budget
  return bare ? int64_t(std::stoll(text)) << 20 : parse_byte_size(text);
}

int64_t request_token_bound(const ModelRequest& request) {
  if (!request.input_ids.empty()) return int64_t(request.input_ids.size()) + std::max(request.generate, 0);
  return int64_t(request.sentence.size() + request.sentence_b.size()) + 2 + std::max(request.generate, 0);
}

ModelMemoryNeed estimate_model_memory(const std::string& given, int64_t tokens, int threads) {
  ModelMemoryNeed need;
  need.path = given;
  need.tokens = tokens;
  std::string path = given;
  LlamaConfig c;
  try {
    path = resolve_shipped_model(given);
    need.weights = pair_file_bytes(path);
    if (std::filesystem::is_directory(path)) pair_hf_shape(path, need, c);
    else if (is_gguf_file(path)) pair_gguf_shape(path, need, c);
    else if (path.size() > 4 && path.compare(path.size() - 4, 4, ".bin") == 0) pair_llama2c_shape(path, need, c);
  } catch (const Error&) {
    return need;  // what is known; loading the checkpoint says what is wrong with it
  } catch (const std::filesystem::filesystem_error&) {
    return need;
  }
  // A header's numbers out of any model's range (a damaged file): its run is not estimated; the
  // load says what is wrong. In range, no product below overflows for T up to 2^20.
  const auto sane = [](int64_t v, int64_t hi) { return v >= 1 && v <= hi; };
  if (!sane(c.d_model, 1 << 18) || !sane(c.hidden, 1 << 20) || !sane(c.n_layers, 1 << 12) || !sane(c.n_heads, 1 << 12) ||
      !sane(c.d_head, 1 << 14) || c.vocab < 0 || c.vocab > (1 << 24) || c.n_kv_heads > c.n_heads || tokens > (int64_t(1) << 20))
    return need;
  if (c.n_kv_heads <= 0) c.n_kv_heads = c.n_heads;
  need.shape_known = true;
  need.layers = c.n_layers;
  need.run = llama_run_bytes(c, tokens, resolve_threads(threads));
  // kept: the whole maps [L, H, T, T] and the next-token logits [T, vocab], float32 (counted in
  // double: a long input's maps can pass 2^63 bytes, and are then far over any budget anyway)
  const double kept = (double(c.n_layers) * c.n_heads * double(tokens) * double(tokens) + double(tokens) * c.vocab) * sizeof(float);
  need.kept = kept < 0x1p62 ? int64_t(kept) : (int64_t(1) << 62);
  return need;
}

namespace {

std::string pair_need_text(const char* which, const ModelMemoryNeed& n) {
  std::string s = std::string("model ") + which + " (" + n.path + ") needs about " + format_bytes(n.total()) + " (weights " +
                  format_bytes(n.weights) + (n.weights_mapped ? " mapped from the file" : " in memory");
  if (n.shape_known) {
    s += ", " + format_bytes(n.run) + " to run " + std::to_string(n.tokens) + " tokens, " + format_bytes(n.kept) + " of maps and logits kept)";
  } else {
    s += "; its run is not estimated)";
  }
  return s;
}

// Phase A: A's weights and run. Phase B: A's kept maps (and A's weights when both stay open)
// beside B's weights and run; B's kept maps are part of its run's peak.
int64_t pair_peak(const ModelMemoryNeed& a, const ModelMemoryNeed& b, PairResidence residence, bool count_mapped) {
  const auto weights = [&](const ModelMemoryNeed& n) { return count_mapped || !n.weights_mapped ? n.weights : 0; };
  const int64_t phase_a = weights(a) + a.run + a.kept;
  const int64_t phase_b = (residence == PairResidence::both_open ? weights(a) : 0) + a.kept + weights(b) + b.run + b.kept;
  return std::max(phase_a, phase_b);
}

}  // namespace

PairMemoryCheck check_model_pair_memory(const ModelRequest& ra, const ModelRequest& rb, PairResidence residence,
                                        int64_t budget_bytes, const std::string& budget_source,
                                        const AvailableMemory& available, int threads) {
  PairMemoryCheck out;
  out.a = estimate_model_memory(ra.model_path, request_token_bound(ra), threads);
  out.b = estimate_model_memory(rb.model_path, request_token_bound(rb), threads);
  out.peak = pair_peak(out.a, out.b, residence, true);
  out.peak_working = pair_peak(out.a, out.b, residence, false);
  const int64_t counted = available.counts_mapped ? out.peak : out.peak_working;
  const bool over_budget = budget_bytes >= 0 && out.peak > budget_bytes;
  const bool over_available = available.bytes >= 0 && counted > available.bytes;
  if (!over_budget && !over_available) return out;
  const std::string how = residence == PairResidence::both_open ? "both open" : "one at a time";
  const std::string budget = budget_bytes >= 0 ? "the memory budget is " + format_bytes(budget_bytes) + " (" + budget_source + ")"
                                               : "no memory budget is set";
  const std::string avail = available.bytes >= 0 ? format_bytes(available.bytes) + " is available (" + available.source + ")"
                                                 : "the memory available is unknown";
  throw InputError("the two models do not fit in memory: " + pair_need_text("A", out.a) + "; " + pair_need_text("B", out.b) +
                   "; compared " + how + " they need about " + format_bytes(out.peak) + " at the peak" +
                   (available.counts_mapped ? "" : " (" + format_bytes(out.peak_working) + " besides the mapped weights)") +
                   ", and " + budget + " and " + avail + ". No weights were read: raise the budget, free memory, shorten the input "
                   "or use smaller or more quantized files");
}

}  // namespace hs
