// Opening a GGUF file and running one token (issue 34's "open + one token" on a Llama-3-8B-shaped
// file), split into its parts, each with wall and CPU time (user + system of the whole process):
//   map        GgufFile: map the file, read the header, every metadata value and tensor info
//   tokenizer  load_gguf_tokenizer on that file (vocabulary, merges, pre-tokenizer)
//   setup      the rest of opening: prepare() (which maps the file and reads the tokenizer again,
//              then checks every tensor, builds the model and tokenizes), minus map and tokenizer
//              (0 when the repeated parts ran faster the second time: read "open" then)
//   open       prepare() itself: everything before the run
//   token      the run on one token: every head's map and the next-token prediction
// and the whole: prepare() + the run, as a program opening the file sees it. Then the peak RSS of
// the process (getrusage), which counts the file's pages the run touched.
//   bench_open MODEL.gguf [--threads K] [--token ID]
// --token: the one token's id (default: the file's BOS id, else 0); --threads: the engine's
// threads (default 2). Prints one JSON object on stdout:
//   {"threads", "token_id", "parts": {"map": {"wall_s", "cpu_s"}, "tokenizer", "setup", "open", "token"},
//    "open_and_token": {"wall_s", "cpu_s"}, "peak_rss_mib", "file_mib"}
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "core/formats/gguf.h"
#include "core/model/model_request.h"
#include "core/text/gguf_tokenizer.h"

namespace {

struct Clock {
  double wall = 0.0, cpu = 0.0;
  static Clock now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
    return {std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(),
            seconds(u.ru_utime) + seconds(u.ru_stime)};
  }
  Clock operator-(const Clock& o) const { return {wall - o.wall, cpu - o.cpu}; }
  Clock operator+(const Clock& o) const { return {wall + o.wall, cpu + o.cpu}; }
};

std::string json(const Clock& c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "{\"wall_s\": %.4f, \"cpu_s\": %.4f}", c.wall, c.cpu);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_open MODEL.gguf [--threads K] [--token ID]\n";
    return 2;
  }
  const std::string path = argv[1];
  int threads = 2, token = -1;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--token") == 0) token = std::atoi(argv[i + 1]);
    else {
      std::cerr << "bench_open: unknown option " << argv[i] << "\n";
      return 2;
    }
  }
  try {
    Clock map, tokenizer;
    double file_mib = 0.0;
    {
      const Clock t0 = Clock::now();
      const hs::GgufFile file(path);
      const Clock t1 = Clock::now();
      const auto tok = hs::load_gguf_tokenizer(file);
      const Clock t2 = Clock::now();
      map = t1 - t0;
      tokenizer = t2 - t1;
      file_mib = double(file.file_size()) / (1024.0 * 1024.0);
      if (token < 0) token = std::max<int>(0, int(file.get_int_or("tokenizer.ggml.bos_token_id", 0)));
    }

    hs::ModelRequest request;
    request.model_path = path;
    request.input_ids = {token};
    hs::RunOptions options;
    options.threads = threads;
    const Clock t0 = Clock::now();
    const auto prepared = hs::prepare(request);
    const Clock t1 = Clock::now();
    const hs::AttentionRun run = prepared->run(options);
    const Clock t2 = Clock::now();
    if (run.n_tokens() != 1) throw std::runtime_error("the run has " + std::to_string(run.n_tokens()) + " tokens, not 1");

    Clock setup = (t1 - t0) - map - tokenizer;
    setup.wall = std::max(0.0, setup.wall);
    setup.cpu = std::max(0.0, setup.cpu);
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    std::printf("{\"threads\": %d, \"token_id\": %d, \"parts\": {\"map\": %s, \"tokenizer\": %s, \"setup\": %s, "
                "\"open\": %s, \"token\": %s}, \"open_and_token\": %s, \"peak_rss_mib\": %.1f, \"file_mib\": %.1f}\n",
                threads, token, json(map).c_str(), json(tokenizer).c_str(), json(setup).c_str(), json(t1 - t0).c_str(),
                json(t2 - t1).c_str(),
                json(t2 - t0).c_str(), double(u.ru_maxrss) / 1024.0, file_mib);
  } catch (const std::exception& e) {
    std::cerr << "bench_open: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
