// Tokenizer load and encode times (issue 32), for tests/bench/tokenizers_vs_hf.js, which runs the
// same file and texts through Hugging Face tokenizers (npm) and prints both with the ratio.
//   bench_tokenizer MODEL TEXT_FILE [ROUNDS]
// MODEL: anything `headscope-cli tokens --model` reads. Prints one JSON object:
//   {"load_ms": [...], "encode_ms": {"<chars>": median ms}, "tokens": {"<chars>": [n, checksum]}}
// (checksum: c = c * 31 + id over the ids, mod 2^32, to compare the ids with tokenizers')
// The text file's first 1,000, 20,000 and 80,000 characters (code points) are encoded; each is
// encoded ROUNDS times (default 5) and the median printed. Loads are timed ROUNDS times too (the
// first includes reading the file from disk or the page cache).
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/tokenizer_only.h"
#include "core/util/utf8.h"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The first `chars` code points of text.
std::string prefix_chars(const std::string& text, size_t chars) {
  size_t pos = 0;
  for (size_t n = 0; n < chars && pos < text.size(); ++n) {
    size_t len = 1;
    hs::utf8_decode(text, pos, len);
    pos += len;
  }
  return text.substr(0, pos);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: bench_tokenizer MODEL TEXT_FILE [ROUNDS]\n";
    return 2;
  }
  const int rounds = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  try {
    std::vector<double> loads;
    hs::LoadedTokenizer t;
    for (int r = 0; r < rounds; ++r) {
      const double start = now_ms();
      t = hs::load_tokenizer_only(argv[1], "");
      loads.push_back(now_ms() - start);
    }
    std::cout << "{\"load_ms\": [";
    for (size_t i = 0; i < loads.size(); ++i) std::cout << (i ? ", " : "") << loads[i];
    std::cout << "], \"encode_ms\": {";
    std::string tokens;
    const size_t sizes[] = {1000, 20000, 80000};
    for (size_t s = 0; s < 3; ++s) {
      const std::string part = prefix_chars(text, sizes[s]);
      std::vector<double> times;
      size_t n = 0;
      uint32_t checksum = 0;
      for (int r = 0; r < rounds; ++r) {
        // A fresh tokenizer's word cache for each text would favour nothing: tokenizers keeps its
        // cache across calls too, so both are timed warm after the first round.
        const double start = now_ms();
        const std::vector<int> ids = t.tokenizer->encode(part);
        times.push_back(now_ms() - start);
        n = ids.size();
        checksum = 0;
        for (size_t i = 0; i < ids.size(); ++i) checksum = checksum * 31u + uint32_t(ids[i]);
      }
      std::cout << (s ? ", " : "") << "\"" << sizes[s] << "\": " << median(times);
      tokens += (s ? ", " : "") + std::string("\"") + std::to_string(sizes[s]) + "\": [" + std::to_string(n) + ", " +
                std::to_string(checksum) + "]";
    }
    std::cout << "}, \"tokens\": {" << tokens << "}}\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
