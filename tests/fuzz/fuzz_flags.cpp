// libFuzzer harness: the model flags that `headscope-cli maps`, `headscope-cli export` and the app
// share (app/common/model_flags.h), as an argument vector built from the input bytes: small
// sentences, extreme and malformed numbers (INT_MAX, -1, 2^64, nan, "", "0x10"), the
// "--name=value" form, and a few fixed files (a .npy input, an nn.MultiheadAttention state_dict,
// a tiny llama2.c checkpoint and a tiny Hugging Face folder). Each vector goes through parse ->
// model_request -> prepare -> run, as the CLI does. Every input must give a result with finite,
// row-stochastic maps or be refused with hs::Error / a CLI11 parse error; nothing may crash.
//
// Budget: the shape is validated first (cheap, and the extremes must be refused there); a valid
// synthetic layer with more than 2^16 parameters is not run, so each input takes milliseconds.
//
// HEADSCOPE_FUZZ_VERBOSE=1 prints each argument vector and how it ended (for writing seeds).
//
// Input layout: a sequence of records, one per argument: one byte picks the flag (and whether it
// is written "--name=value"), the next one or two bytes pick its value.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "app/common/model_flags.h"
#include "core/formats/npy.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

#ifndef HEADSCOPE_SOURCE_DIR
#define HEADSCOPE_SOURCE_DIR "."
#endif

namespace {

namespace fs = std::filesystem;

enum class Kind { integer, real, text, path, none };

struct Flag {
  const char* name;
  Kind kind;
};

constexpr Flag kFlags[] = {
    {"--sentence", Kind::text},  {"--input", Kind::path},    {"--d-model", Kind::integer},
    {"--heads", Kind::integer},  {"--kv-heads", Kind::integer}, {"--d-head", Kind::integer},
    {"--seed", Kind::integer},   {"--causal", Kind::none},   {"--scrambled-reshape", Kind::none},
    {"--window", Kind::integer}, {"--temperature", Kind::real}, {"--weights", Kind::path},
    {"--model", Kind::path},     {"--tokenizer", Kind::path}, {"--generate", Kind::integer},
};
constexpr size_t kFlagCount = sizeof(kFlags) / sizeof(kFlags[0]);

// Numbers a careless user or an attacker types: the edges of int, int64 and uint64 (and one
// past them), sizes that are legal but huge, and text that is not a number at all.
constexpr const char* kExtremes[] = {
    "2147483647", "2147483646", "2147483645", "-2147483648", "-2147483647", "2147483648", "4294967295", "4294967296",
    "9223372036854775807", "-9223372036854775808", "18446744073709551615", "18446744073709551616", "1073741824",
    "0", "-1", "1024", "4096", "8192", "16384", "65536", "1e9", "1.5", "0x10", "nan", "inf", "-inf", "1e308", "-0", "",
    "abc", " 7", "7 ", "--causal"};
constexpr size_t kExtremeCount = sizeof(kExtremes) / sizeof(kExtremes[0]);

constexpr const char* kReals[] = {"1", "0.5", "2", "0", "-1", "1e-3", "1e3", "1e-41", "1e39", "nan", "inf", "-inf",
                                  "1e308", "0.0001", "999", "-0", "", "x", "0x1p-3"};
constexpr size_t kRealCount = sizeof(kReals) / sizeof(kReals[0]);

constexpr const char* kWords[] = {"the", "keys", "a", "b", "Priya", "cat", ".", "don't", "\xe6\x9d\xb1\xe4\xba\xac",
                                  "\xf0\x9f\x90\xb6", "1234", "\xff", "--heads", " ", "\n"};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

// The fixed files, written once per process into the harness's temporary folder.
struct Fixtures {
  std::vector<std::string> paths;
};

void copy_tail(const fs::path& from, size_t skip, const fs::path& to) {
  std::ifstream in(from, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream out(to, std::ios::binary);
  if (bytes.size() > skip) out.write(bytes.data() + skip, std::streamsize(bytes.size() - skip));
}

const Fixtures& fixtures() {
  static const Fixtures f = [] {
    Fixtures out;
    const fs::path src = fs::path(HEADSCOPE_SOURCE_DIR) / "tests/fuzz";
    const fs::path dir = fs::path(hs::fuzz::temp_dir()) / "flags";
    std::error_code ec;
    fs::create_directories(dir / "hf", ec);
    std::vector<float> x(3 * 8);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 7) - 3) / 4.0f;
    hs::write_npy((dir / "x8.npy").string(), x.data(), {3, 8});
    hs::write_npy((dir / "x4.npy").string(), x.data(), {3, 4});
    hs::write_npy((dir / "v.npy").string(), x.data(), {5});
    // llama2.c corpus files carry the llama2c harness's selector bytes in front.
    copy_tail(src / "corpus/llama2c/checkpoint.bin", 1, dir / "model.bin");
    copy_tail(src / "corpus/llama2c/tokenizer.bin", 2, dir / "tokenizer.bin");
    fs::copy_file(src / "hf_folder/model.safetensors", dir / "hf/model.safetensors", fs::copy_options::overwrite_existing, ec);
    fs::copy_file(src / "hf_folder/tokenizer.json", dir / "hf/tokenizer.json", fs::copy_options::overwrite_existing, ec);
    fs::copy_file(src / "corpus/hf_config/llama.json", dir / "hf/config.json", fs::copy_options::overwrite_existing, ec);
    out.paths = {(dir / "x8.npy").string(),
                 (dir / "x4.npy").string(),
                 (dir / "v.npy").string(),
                 (src / "corpus/safetensors/mha.safetensors").string(),
                 (src / "corpus/safetensors/half.safetensors").string(),
                 (dir / "model.bin").string(),
                 (dir / "tokenizer.bin").string(),
                 (dir / "hf").string(),
                 (dir / "hf/config.json").string(),
                 dir.string(),
                 "/nonexistent/x.npy",
                 "/dev/null",
                 ""};
    return out;
  }();
  return f;
}

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return size_ == 0; }
  uint8_t next() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

// 0x00-0x3F: small (-2 .. 17); 0x40-0x7F: kExtremes; 0x80-0xBF: just below INT_MAX; 0xC0-0xFF:
// just above INT_MIN. Overflows live at the edges, so half the byte values land there.
std::string integer_value(Bytes& in) {
  const uint8_t b = in.next();
  if (b < 0x40) return std::to_string(int(b % 20) - 2);
  if (b < 0x80) return kExtremes[b % kExtremeCount];
  if (b < 0xC0) return std::to_string(int64_t(INT32_MAX) - (b - 0x80));
  return std::to_string(int64_t(INT32_MIN) + (b - 0xC0));
}

std::string real_value(Bytes& in) {
  const uint8_t b = in.next();
  if (b < 0x80) return std::to_string(0.05 + (b % 40) / 8.0);
  return kReals[b % kRealCount];
}

std::string text_value(Bytes& in) {
  const int words = in.next() % 7;  // 0: the empty sentence
  std::string s;
  for (int w = 0; w < words; ++w) s += (w ? " " : "") + std::string(kWords[in.next() % kWordCount]);
  return s;
}

std::vector<std::string> arguments(Bytes& in) {
  std::vector<std::string> args = {"headscope-cli"};
  for (int n = 0; n < 12 && !in.empty(); ++n) {
    const uint8_t pick = in.next();
    const Flag& flag = kFlags[(pick & 0x7F) % kFlagCount];
    const bool joined = pick & 0x80;  // "--name=value" instead of "--name" "value"
    std::string value;
    switch (flag.kind) {
      case Kind::integer: value = integer_value(in); break;
      case Kind::real: value = real_value(in); break;
      case Kind::text: value = text_value(in); break;
      case Kind::path: value = fixtures().paths[in.next() % fixtures().paths.size()]; break;
      case Kind::none: args.push_back(flag.name); continue;
    }
    if (joined) {
      args.push_back(std::string(flag.name) + "=" + value);
    } else {
      args.push_back(flag.name);
      args.push_back(value);
    }
  }
  return args;
}

// Rows of every map sum to 1 and every value is finite (in long-input mode: block maxima in [0, 1]).
bool maps_are_sound(const hs::AttentionRun& run) {
  for (const hs::LayerMaps& layer : run.attention)
    for (const hs::Map& a : layer) {
      if (!a.allFinite()) return false;
      if (run.compact()) {
        if (a.size() && (a.minCoeff() < 0.0f || a.maxCoeff() > 1.0f + 1e-5f)) return false;
        continue;
      }
      for (Eigen::Index i = 0; i < a.rows(); ++i)
        if (std::fabs(a.row(i).sum() - 1.0f) > 1e-3f) return false;
    }
  return true;
}

bool verbose() {
  static const bool v = std::getenv("HEADSCOPE_FUZZ_VERBOSE") != nullptr;
  return v;
}

void say(const std::vector<std::string>& args, const std::string& outcome) {
  if (!verbose()) return;
  std::string line;
  for (const std::string& a : args) line += "[" + a + "] ";
  std::fprintf(stderr, "%s-> %s\n", line.c_str(), outcome.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const uint8_t mode = in.next();
  const std::vector<std::string> args = arguments(in);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CLI::App app{"fuzz"};
  hs::ModelFlags flags;
  hs::add_model_flags(app, flags);
  try {
    hs::parse_arguments(app, int(argv.size()), argv.data());  // as headscope-cli's main does
  } catch (const CLI::ParseError& e) {
    say(args, std::string("parse error: ") + e.what());
    return 0;
  }
  try {
    const hs::ModelRequest request = hs::model_request(flags);
    if (request.model_path.empty() && request.weights.empty()) {
      request.attention.validate();  // the extremes must be refused here, before anything is allocated
      if (hs::attention_param_count(request.attention) > (int64_t(1) << 16)) {
        say(args, "over the budget");
        return 0;
      }
    }
    const std::unique_ptr<hs::Prepared> prepared = hs::prepare(request);
    hs::RunOptions options;
    options.threads = 1;
    options.display_size = (mode & 3) == 3 ? 1 + (mode >> 2) % 4 : 0;
    const hs::AttentionRun run = prepared->run(options);
    if (!maps_are_sound(run)) __builtin_trap();
    say(args, "ran: " + std::to_string(run.n_tokens()) + " tokens, " + std::to_string(run.n_layers()) + " layers");
  } catch (const hs::Error& e) {
    say(args, std::string("refused: ") + e.what());
  }
  return 0;
}
