#include "app/cli/heads_corpus.h"

#include "app/cli/output_file.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "core/analysis/corpus_roles.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs::cli {
namespace {

// A result holds one line per head of about 1.3 KB; 256 MiB is past any model (96 x 96 heads: 12 MB).
constexpr size_t kMaxCorpusStatsBytes = size_t(256) << 20;

void write_out(const std::string& out, const CorpusRoleStats& stats) {
  write_output(out, [&](std::ostream& o) { write_corpus_stats(o, stats); }, "the JSON lines");
}

// Notes and progress go to stderr, one line each (a log of a Slurm job reads them as they come).
struct Progress {
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), last = start;
  bool quiet = false;
  void operator()(int64_t done, int64_t total) {
    const Clock::time_point now = Clock::now();
    if (quiet || (done < total && now - last < std::chrono::seconds(2))) return;
    last = now;
    const double s = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "heads --corpus: %lld / %lld lines (%.0f%%), %.1f lines/s\n", static_cast<long long>(done),
                 static_cast<long long>(total), total > 0 ? 100.0 * double(done) / double(total) : 100.0,
                 s > 0 ? double(done) / s : 0.0);
  }
};

}  // namespace

int run_heads_corpus(const HeadsCorpusArgs& a) {
  CorpusOptions o;
  o.shard = parse_shard(a.shard);
  o.role_options = a.role_options;
  o.threads = a.threads;
  Progress progress;
  progress.quiet = a.quiet;
  o.progress = [&](int64_t done, int64_t total) { progress(done, total); };
  o.note = [&](int64_t line, const std::string& what) {
    if (!a.quiet) std::cerr << a.corpus << ":" << line << ": " << what << "\n";
  };
  const CorpusRoleStats stats = corpus_role_stats(a.request, a.corpus, o);
  write_out(a.out, stats);
  if (!a.quiet) {
    const CorpusLineCounts& c = stats.lines;
    std::fprintf(stderr, "heads --corpus: %lld sentences scored (%lld tokens); skipped %lld blank, %lld invalid UTF-8, %lld refused; %lld cut\n",
                 static_cast<long long>(c.scored), static_cast<long long>(c.tokens), static_cast<long long>(c.blank),
                 static_cast<long long>(c.invalid_utf8), static_cast<long long>(c.rejected), static_cast<long long>(c.cut));
  }
  return 0;
}

int run_heads_merge(const HeadsCorpusArgs& a) {
  if (a.merge.empty()) throw InputError("--merge needs at least one file written by heads --corpus");
  CorpusRoleStats merged;
  for (size_t i = 0; i < a.merge.size(); ++i) {
    const std::string& path = a.merge[i];
    // A FIFO or a device is refused with what it is, not waited on or read forever.
    std::istringstream in(read_file_limited(path, kMaxCorpusStatsBytes, "a heads --corpus result"));
    CorpusRoleStats part = read_corpus_stats(in, path);
    if (i == 0) merged = std::move(part);
    else merged.merge(part, path);
  }
  write_out(a.out, merged);
  return 0;
}

}  // namespace hs::cli
