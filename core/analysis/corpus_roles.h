#pragma once
// Head role scores over a corpus (`headscope-cli heads --corpus FILE.txt`): the model runs on one
// sentence per line and each head's scores (head_roles.h) are folded into running statistics, so
// memory stays that of one sentence however long the corpus is. Shards (`--shard I/N`: the lines
// whose 0-based index i has i % N == I) run in separate processes and merge into what one
// unsharded run gives, up to float rounding.
//
// Statistics of one score over the sentences that measured it (x_1..x_n, each sentence weighs the
// same), Welford's update and Chan et al.'s merge of two parts (a, b):
//   mean_k = mean_{k-1} + (x_k - mean_{k-1}) / k,   m2_k = m2_{k-1} + (x_k - mean_{k-1}) (x_k - mean_k)
//   merge:  n = n_a + n_b,  delta = mean_b - mean_a,  mean = mean_a + delta n_b / n,
//           m2 = m2_a + m2_b + delta^2 n_a n_b / n
//   std = sqrt(m2 / (n - 1)) (the sample standard deviation; none below two sentences).
// Induction does not depend on the sentence (it is measured on the fixed probe): it is computed
// once per run, kept with n = 1, and shards must agree on it.
//
// The output is JSON lines (docs/head-roles-corpus.md): a header object, then one object per head.
#include <array>
#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "core/analysis/head_roles.h"
#include "core/model/model_request.h"

namespace hs {

struct RunningStat {
  int64_t n = 0;
  double mean = 0, m2 = 0, min = 0, max = 0;
  void add(double x);
  void merge(const RunningStat& other);
  double std_dev() const;  // NaN when n < 2
};

// "I/N": process the lines whose 0-based index i has i % N == I.
struct ShardSpec {
  int index = 0, count = 1;
};
// Throws InputError naming the text and what is expected ("3/2": the index must be below the count).
ShardSpec parse_shard(const std::string& text);

// The most any count of a result may be (lines, sentences, tokens, a role's n): 2^53, exact as a
// double; a merge refuses shards whose lines add up to more than the corpus's or whose tokens
// add up to more than this, so no sum wraps.
constexpr int64_t kMaxCorpusCount = int64_t(1) << 53;

// Lines longer than this are cut here (at a character boundary) before tokenizing, with a note.
constexpr int64_t kCorpusMaxLineBytes = 1 << 20;

struct CorpusLineCounts {
  int64_t in_shard = 0;      // lines of the file this shard takes
  int64_t scored = 0;        // sentences whose scores were added
  int64_t blank = 0;         // empty or only white space: skipped
  int64_t invalid_utf8 = 0;  // not valid UTF-8: skipped, with a note
  int64_t rejected = 0;      // the model refused the line (InputError, e.g. no token): skipped, with a note
  int64_t cut = 0;           // cut to the model's context (or kCorpusMaxLineBytes), then scored, with a note
  int64_t tokens = 0;        // tokens of the scored sentences
};

struct CorpusRoleStats {
  std::string model_name, model_kind;
  int n_layers = 0, n_heads = 0;  // 0 until a sentence was scored
  RoleOptions options;            // as used (probe_length: the probe's, shortened for short contexts)
  std::vector<int> probe_ids;     // empty: no probe (no induction)
  std::vector<std::vector<float>> induction;  // [layer][head] on the probe (NaN: not measured)
  std::string corpus;             // the file's name as given
  int64_t corpus_lines = 0;       // lines in the whole file
  int shard_count = 1;
  std::vector<int> shard_indices = {0};  // the shards these statistics cover (sorted)
  CorpusLineCounts lines;
  std::vector<std::vector<std::array<RunningStat, kHeadRoleCount>>> stats;  // [layer][head][role]; induction unused
  // [layer][role]: each sentence's chance level (HeadRoles::chance, which depends on its length),
  // so that a label clears the mean chance of the sentences its means average, as `heads` labels
  // clear one sentence's (empty: read from a file written before chance levels, no chance rule).
  std::vector<std::array<RunningStat, kHeadRoleCount>> chance;

  // Adds one sentence's scores (the shape is taken from the first).
  void add(const HeadRoles& roles);
  // Folds in another shard of the same corpus and model. InputError when they do not fit: another
  // model or settings, another corpus (line count), another shard count, a shard given twice, or
  // a different induction probe result.
  void merge(const CorpusRoleStats& other, const std::string& other_name);
  // The head's means as scores (induction: the probe's), for its label.
  HeadRoleScores means(int layer, int head) const;
  // The mean chance level of each role over the sentences of layer `layer` (NaN: none).
  HeadRoleScores chance_means(int layer) const;
  // The head's label: strongest_role of its means, each role at its mean chance + the margin.
  std::string label(int layer, int head) const;
};

struct CorpusOptions {
  ShardSpec shard;
  RoleOptions role_options;
  int threads = 0;
  // After each line of the shard: lines done, lines in the shard.
  std::function<void(int64_t done, int64_t total)> progress;
  // Skips and cuts: 1-based line number and what happened.
  std::function<void(int64_t line, const std::string& what)> note;
};

// Runs `request` (its sentence replaced by each line; cut to the model's context) over the lines
// of `path`. Model errors (a missing or broken checkpoint) propagate; a line the model refuses is
// counted and skipped. IoError when the file cannot be read.
CorpusRoleStats corpus_role_stats(const ModelRequest& request, const std::string& path, const CorpusOptions& options);

// JSON lines: the header, then [layer][head] objects in model order.
void write_corpus_stats(std::ostream& out, const CorpusRoleStats& stats);
// Reads what write_corpus_stats wrote; FormatError naming `where` and the line.
CorpusRoleStats read_corpus_stats(std::istream& in, const std::string& where);

}  // namespace hs
