// Corpus role statistics (core/analysis/corpus_roles.h): Welford's running mean and spread equal
// their definitions, shards merge into the unsharded result, the JSON lines round-trip, shard
// specs and mismatched merges are refused by name, and blank, invalid and over-long lines are
// counted, skipped or cut instead of failing the run.
#include "core/analysis/corpus_roles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "core/analysis/run_analysis.h"
#include "core/util/errors.h"

namespace hs {
namespace {

TEST(CorpusRoles, RunningStatEqualsItsDefinition) {
  const std::vector<double> x = {0.25, 0.5, 0.125, 0.875, 0.3, 0.3, 0.9};
  RunningStat s;
  for (double v : x) s.add(v);
  double mean = 0;
  for (double v : x) mean += v;
  mean /= double(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  EXPECT_EQ(s.n, 7);
  EXPECT_NEAR(s.mean, mean, 1e-15);
  EXPECT_NEAR(s.m2, ss, 1e-15);
  EXPECT_NEAR(s.std_dev(), std::sqrt(ss / 6), 1e-15);
  EXPECT_EQ(s.min, 0.125);
  EXPECT_EQ(s.max, 0.9);
  RunningStat one;
  one.add(0.5);
  EXPECT_TRUE(std::isnan(one.std_dev())) << "no spread from one sentence";
}

TEST(CorpusRoles, MergedPartsEqualOneRun) {
  const std::vector<double> x = {0.25, 0.5, 0.125, 0.875, 0.3, 0.3, 0.9, 0.01};
  RunningStat whole, a, b, empty;
  for (size_t i = 0; i < x.size(); ++i) {
    whole.add(x[i]);
    (i % 3 == 1 ? b : a).add(x[i]);
  }
  RunningStat merged = a;
  merged.merge(b);
  merged.merge(empty);
  EXPECT_EQ(merged.n, whole.n);
  EXPECT_NEAR(merged.mean, whole.mean, 1e-15);
  EXPECT_NEAR(merged.m2, whole.m2, 1e-14);
  EXPECT_EQ(merged.min, whole.min);
  EXPECT_EQ(merged.max, whole.max);
  RunningStat from_empty;
  from_empty.merge(a);
  EXPECT_EQ(from_empty.n, a.n);
  EXPECT_EQ(from_empty.mean, a.mean);
}

TEST(CorpusRoles, ShardSpecs) {
  EXPECT_EQ(parse_shard("0/1").count, 1);
  EXPECT_EQ(parse_shard("3/4").index, 3);
  for (const char* bad : {"0/0", "3/2", "2/2", "x", "", "1/", "/2", "-1/2", "1/2/3", "1 /2", "0x1/2", "99999999999/2"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("I/N"), std::string::npos) << e.what();
    }
  }
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/hs_corpus_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path = name;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

ModelRequest synthetic() {
  ModelRequest r;
  r.attention.d_model = 8;
  r.attention.n_heads = 2;
  r.attention.causal = true;
  return r;
}

void expect_same(const CorpusRoleStats& a, const CorpusRoleStats& b) {
  ASSERT_EQ(a.n_layers, b.n_layers);
  ASSERT_EQ(a.n_heads, b.n_heads);
  EXPECT_EQ(a.lines.scored, b.lines.scored);
  EXPECT_EQ(a.lines.blank, b.lines.blank);
  EXPECT_EQ(a.lines.tokens, b.lines.tokens);
  for (int l = 0; l < a.n_layers; ++l)
    for (int h = 0; h < a.n_heads; ++h)
      for (int r = 0; r < kHeadRoleCount; ++r) {
        const RunningStat &x = a.stats[size_t(l)][size_t(h)][size_t(r)], &y = b.stats[size_t(l)][size_t(h)][size_t(r)];
        EXPECT_EQ(x.n, y.n) << head_role_name(HeadRole(r));
        EXPECT_NEAR(x.mean, y.mean, 1e-12) << head_role_name(HeadRole(r));
        EXPECT_NEAR(x.m2, y.m2, 1e-12) << head_role_name(HeadRole(r));
      }
}

const char* const kCorpus =
    "the cat saw the dog\n"
    "\n"
    "a bird sang and the cat ran\r\n"
    "   \n"
    "the keys that Priya left on the table\n"
    "bad \xff\xfe bytes\n"
    "one more line of words, with a comma\n"
    "last line without a newline";

TEST(CorpusRoles, ShardsMergeIntoTheUnshardedRun) {
  const TempFile corpus(kCorpus);
  CorpusOptions o;
  const CorpusRoleStats whole = corpus_role_stats(synthetic(), corpus.path, o);
  EXPECT_EQ(whole.corpus_lines, 8);
  EXPECT_EQ(whole.lines.in_shard, 8);
  EXPECT_EQ(whole.lines.scored, 5);
  EXPECT_EQ(whole.lines.blank, 2);
  EXPECT_EQ(whole.lines.invalid_utf8, 1);
  EXPECT_EQ(whole.n_layers, 1);
  EXPECT_EQ(whole.n_heads, 2);
  EXPECT_FALSE(whole.probe_ids.empty()) << "the synthetic model runs the probe";
  CorpusRoleStats merged;
  for (int i : {2, 0, 1}) {
    o.shard = {i, 3};
    const CorpusRoleStats part = corpus_role_stats(synthetic(), corpus.path, o);
    if (i == 2) merged = part;
    else merged.merge(part, "shard " + std::to_string(i));
  }
  EXPECT_EQ(merged.shard_indices, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(merged.lines.in_shard, 8);
  expect_same(merged, whole);
  // The same shard twice is refused, as is another shard count or another corpus.
  o.shard = {0, 3};
  const CorpusRoleStats zero = corpus_role_stats(synthetic(), corpus.path, o);
  EXPECT_THROW(merged.merge(zero, "again.jsonl"), InputError);
  CorpusRoleStats other_count = zero;
  other_count.shard_count = 4;
  CorpusRoleStats base = zero;
  base.shard_indices = {1};
  EXPECT_THROW(base.merge(other_count, "x"), InputError);
  CorpusRoleStats other_corpus = zero;
  other_corpus.corpus_lines = 9;
  EXPECT_THROW(base.merge(other_corpus, "x"), InputError);
}

TEST(CorpusRoles, JsonLinesRoundTrip) {
  const TempFile corpus(kCorpus);
  const CorpusRoleStats s = corpus_role_stats(synthetic(), corpus.path, {});
  std::stringstream text;
  write_corpus_stats(text, s);
  const CorpusRoleStats back = read_corpus_stats(text, "test");
  expect_same(back, s);
  EXPECT_EQ(back.probe_ids, s.probe_ids);
  EXPECT_EQ(back.corpus_lines, s.corpus_lines);
  EXPECT_FLOAT_EQ(back.induction[0][1], s.induction[0][1]);
  std::stringstream again;
  write_corpus_stats(again, back);
  EXPECT_EQ(again.str(), text.str()) << "read and written again, byte for byte";
  // Broken files are FormatErrors naming the line.
  for (const std::string& bad : {std::string(""), std::string("{}\n"), std::string("not json\n"),
                                 text.str().substr(0, text.str().size() / 2)}) {
    std::stringstream in(bad);
    EXPECT_THROW(read_corpus_stats(in, "bad.jsonl"), FormatError) << bad.substr(0, 80);
  }
}

TEST(CorpusRoles, TheMeanOfTwoSentencesIsTheMeanOfTheirScores) {
  const TempFile corpus("the cat saw the dog\na bird sang and the cat ran\n");
  const CorpusRoleStats s = corpus_role_stats(synthetic(), corpus.path, {});
  ModelRequest r = synthetic();
  AnalysisOptions ao;
  ao.spectrum = false;
  r.sentence = "the cat saw the dog";
  const HeadRoles a = analyse(r, ao)->roles;
  r.sentence = "a bird sang and the cat ran";
  const HeadRoles b = analyse(r, ao)->roles;
  for (int h = 0; h < 2; ++h) {
    for (int k = 0; k < kHeadRoleCount; ++k) {
      const HeadRole role = HeadRole(k);
      const float x = a.scores[0][size_t(h)][role], y = b.scores[0][size_t(h)][role];
      if (role == HeadRole::induction) {
        EXPECT_FLOAT_EQ(s.induction[0][size_t(h)], x) << "measured once on the probe";
        EXPECT_FLOAT_EQ(x, y) << "the probe does not depend on the sentence";
        continue;
      }
      const RunningStat& st = s.stats[0][size_t(h)][size_t(k)];
      if (std::isnan(x) && std::isnan(y)) {
        EXPECT_EQ(st.n, 0) << head_role_name(role);
        continue;
      }
      if (std::isnan(x) || std::isnan(y)) {
        EXPECT_EQ(st.n, 1) << head_role_name(role);
        continue;
      }
      EXPECT_EQ(st.n, 2);
      EXPECT_NEAR(st.mean, (double(x) + double(y)) / 2, 1e-7) << head_role_name(role);
      EXPECT_NEAR(st.std_dev(), std::fabs(double(x) - double(y)) / std::sqrt(2.0), 1e-7) << head_role_name(role);
    }
  }
}

TEST(CorpusRoles, OverLongLinesAreCutAtACharacter) {
  // 'x' then two-byte characters: the cut at kCorpusMaxLineBytes falls inside one of them.
  std::string line = "x";
  while (int64_t(line.size()) < kCorpusMaxLineBytes + 100) line += "\xc3\xa9";
  const TempFile corpus("short line\n" + line + "\n");
  std::vector<std::string> notes;
  CorpusOptions o;
  o.note = [&](int64_t n, const std::string& what) { notes.push_back(std::to_string(n) + ": " + what); };
  const CorpusRoleStats s = corpus_role_stats(synthetic(), corpus.path, o);
  EXPECT_EQ(s.lines.scored, 2);
  EXPECT_EQ(s.lines.cut, 1);
  EXPECT_EQ(s.lines.invalid_utf8, 0) << "the half character is dropped, not judged invalid";
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0].rfind("2: longer than", 0), 0u) << notes[0];
}

TEST(CorpusRoles, MissingFileIsAnIoError) {
  EXPECT_THROW(corpus_role_stats(synthetic(), "/nonexistent/corpus.txt", {}), IoError);
}

}  // namespace
}  // namespace hs
