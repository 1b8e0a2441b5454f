#pragma once
// Whether two models fit the memory budget together, decided before either model's weights are
// read: each checkpoint's resident need is estimated from its header (GGUF metadata, llama2.c's
// 28-byte header, a Hugging Face folder's config.json) and its files' sizes, and a pair that does
// not fit is refused with both needs, the budget and the available memory
// (docs/model-pairs.md#memory). run_model_pair (model_pair_run.h) calls it first.
#include <cstdint>
#include <string>

#include "core/model/model_request.h"
#include "core/util/memory_info.h"

namespace hs {

// One checkpoint's resident need when run on `tokens` positions and compared.
struct ModelMemoryNeed {
  std::string path;
  int64_t tokens = 0;
  int64_t weights = 0;       // the weights: mapped from the file (GGUF) or copied into memory as float32
  bool weights_mapped = false;
  int64_t run = 0;           // one forward over `tokens` positions: activations, maps, buffers (0 when shape_known is false)
  int64_t kept = 0;          // what the comparison keeps after the run: every head's map [L, H, T, T] and the logits [T, vocab]
  bool shape_known = false;  // false: a format whose shapes are not read here (weights: the files' size)
  int layers = 0;            // from the header (0 when shape_known is false)
  int64_t total() const { return weights + run + kept; }
};

// The estimate for the checkpoint at `path` (a GGUF file, a llama2.c .bin, a Hugging Face folder;
// else the file's size as weights). Reads headers only; a file that cannot be read gives what is
// known (the load then says what is wrong).
ModelMemoryNeed estimate_model_memory(const std::string& path, int64_t tokens, int threads = 0);

// The positions a request runs: its token ids, else at most one per byte of the sentence plus
// two (a start and an end token): an upper bound for the byte-level and SentencePiece tokenizers.
int64_t request_token_bound(const ModelRequest& request);

// A memory budget as given: a bare number is MiB (as the app's --memory-budget MIB), else a number
// with a unit as parse_byte_size reads it ("8G", "512M", "1.5GiB"); -1 when it is neither.
int64_t parse_memory_budget(const std::string& text);

// How the pair is held: one checkpoint open at a time (the CLI releases A before reading B: the
// peak is the larger of A's run and A's kept maps with B's run) or both open (the app: A's
// weights stay while B runs).
enum class PairResidence { one_at_a_time, both_open };

struct PairMemoryCheck {
  ModelMemoryNeed a, b;
  int64_t peak = 0;          // the estimated peak of the pair, everything counted
  int64_t peak_working = 0;  // the same without mapped weights (what a cgroup limit counts)
};

// The pair's peak need, refused (InputError naming both files' needs, the budget and the
// available memory) when it exceeds `budget_bytes` (-1: none; named by `budget_source`, e.g.
// "--memory-budget") or the memory available (memory_info.h).
PairMemoryCheck check_model_pair_memory(const ModelRequest& a, const ModelRequest& b, PairResidence residence,
                                        int64_t budget_bytes, const std::string& budget_source,
                                        const AvailableMemory& available, int threads = 0);

}  // namespace hs
