#pragma once
// What a minimal pair asks of a language model beyond its maps (`headscope-cli compare --target
// TEXT --versus TEXT [--patch]`, the app's Contrast view): the logit difference between two
// continuations after each sentence, and optionally activation patching of every head
// (core/analysis/activation_patching.h). Each continuation counts by its first piece: the token
// the text starts with after the sentence (a text of several pieces is compared by its first,
// and the notes say so).
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/activation_patching.h"
#include "core/analysis/run_analysis.h"

namespace hs {

class CheckpointCache;

struct PairQuestion {
  std::string target, versus;  // continuations, e.g. " are" and " is"
  bool patch = false;          // also patch every head (one pass each)
};

struct PairAnswer {
  PairQuestion question;
  TargetPair ids;                          // each continuation's first piece
  std::string target_token, versus_token;  // their labels
  int target_pieces = 0, versus_pieces = 0;
  double logit_diff_a = 0, logit_diff_b = 0;  // LD after A's last token and after B's
  std::shared_ptr<const HeadPatching> patching;  // null unless asked for
  bool every_position = false;                // patching: equal token lengths, every position patched
  std::vector<std::string> notes;             // what the numbers leave out, one sentence each
};

// On the two runs `compare` made (a, b: the request's sentence and the contrast, one model) and
// their alignment. Throws InputError for a request that is no language model (the synthetic layer,
// --weights, --attention files, encoders), a continuation that starts differently after the two
// sentences, or equal first pieces.
PairAnswer answer_pair(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const PairQuestion& question,
                       const PatchingOptions& options = {}, CheckpointCache* cache = nullptr);

}  // namespace hs
