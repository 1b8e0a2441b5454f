#pragma once
// What `headscope-cli ablate` asks of a language model, in the user's terms (text, files), turned
// into core/analysis/head_ablation.h's ids and means: each head alone or a group knocked out
// together (--knock-out 1.3,2.5), the mean loss or a target (a continuation's first piece as the
// prediction made at a position), and mean ablation over a reference text (one sentence a line).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"

namespace hs {

class CheckpointCache;
class SubwordTokenizer;

struct AblationQuestion {
  std::vector<HeadRef> group;  // knocked out together; empty: each head alone
  std::string target;          // a continuation (" girl"): its first piece is measured; "" with a position: the actual next token
  int target_position = -1;    // the token the target follows (-1: the last one with a target; the mean loss without one)
  std::string reference;       // a text file: mean ablation uses each head's mean over its lines' positions
};

// The reference file's lines: used, or skipped and why.
struct ReferenceLineCounts {
  int lines = 0, used = 0, blank = 0, invalid_utf8 = 0, too_long = 0;
  int64_t tokens = 0;  // tokens of the lines used (every position pooled)
  int skipped() const { return blank + invalid_utf8 + too_long; }
};

struct AblationAnswer {
  std::shared_ptr<const HeadAblation> heads;   // each head alone (no group asked)
  std::shared_ptr<const GroupAblation> group;  // the group knocked out together
  std::vector<int> ids;
  std::vector<std::string> tokens;
  AblationTarget target;      // what the numbers measure
  std::string target_token;   // the target token's label ("" for the mean loss)
  int target_pieces = 0;      // pieces of the target text (0: no text)
  ReferenceLineCounts reference;
  std::vector<std::string> notes;  // what the numbers leave out, one sentence each
};

// Throws InputError for a request that is no language model, a target position outside the
// input, a continuation that merges with the sentence, a reference without --ablation mean or with
// no usable line, and a group head outside the model or listed twice. `options.target` and
// `options.reference` are set from the question.
AblationAnswer answer_ablation(const ModelRequest& request, const AblationQuestion& question, AblationOptions options = {},
                               CheckpointCache* cache = nullptr);

// The texts of a reference file's lines (each tokenized with `tokenizer`, at most `max_tokens`
// tokens), and the counts of lines used and skipped.
std::vector<std::vector<int>> reference_texts(const SubwordTokenizer& tokenizer, const std::string& path, int max_tokens,
                                              ReferenceLineCounts& counts);

}  // namespace hs
