// The JSON reader's time against the number of elements (issue 28), with Google Benchmark:
//   BM_SafetensorsHeader   parse_json_strict on a safetensors header of N tensors (arg: N)
//   BM_AddedTokens         parse_json_strict on a tokenizer.json of N added tokens (arg: N)
//   BM_OldCallbackHeader   the reader it replaced: nlohmann's parse with a duplicate-key callback,
//                          which rescans the parent object after every object (quadratic: kept to
//                          N <= 20,000, which took 25 s in the CLI)
// The time per element (the "per_element" counter) stays flat for the reader and grows with N for
// the callback. Run: build/tests/bench/bench_json [--benchmark_filter=BM_Safetensors]
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/formats/json_strict.h"

namespace {

std::string safetensors_header(int64_t n) {
  std::string text = R"({"__metadata__": {"format": "pt"})";
  for (int64_t i = 0; i < n; ++i) {
    text += ",\"model.layers." + std::to_string(i / 16) + ".experts." + std::to_string(i % 16) +
            ".weight\": {\"dtype\": \"BF16\", \"shape\": [1024, 512], \"data_offsets\": [" + std::to_string(i * 1048576) +
            ", " + std::to_string((i + 1) * 1048576) + "]}";
  }
  return text + "}";
}

std::string added_tokens(int64_t n) {
  std::string text = R"({"version": "1.0", "added_tokens": [)";
  for (int64_t i = 0; i < n; ++i) {
    text += (i ? "," : "") + std::string(R"({"id": )") + std::to_string(i) + R"(, "content": "<extra_)" + std::to_string(i) +
            R"(>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})";
  }
  return text + R"(], "model": {"type": "BPE", "vocab": {}, "merges": []}})";
}

void report(benchmark::State& state, const std::string& text) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
  state.counters["per_element"] =
      benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_SafetensorsHeader(benchmark::State& state) {
  const std::string text = safetensors_header(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(hs::parse_json_strict(text, "bench"));
  report(state, text);
}

void BM_AddedTokens(benchmark::State& state) {
  const std::string text = added_tokens(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(hs::parse_json_strict(text, "bench"));
  report(state, text);
}

// The replaced reader, for the curve: a set of keys per depth, filled from nlohmann's callback.
void BM_OldCallbackHeader(benchmark::State& state) {
  using nlohmann::json;
  const std::string text = safetensors_header(state.range(0));
  for (auto _ : state) {
    std::vector<std::set<std::string>> keys;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) {
        if (keys.size() < size_t(depth) + 2) keys.resize(size_t(depth) + 2);
        keys[size_t(depth) + 1].clear();
      } else if (event == json::parse_event_t::key && size_t(depth) < keys.size()) {
        keys[size_t(depth)].insert(parsed.get<std::string>());
      }
      return true;
    };
    benchmark::DoNotOptimize(json::parse(text, check));
  }
  report(state, text);
}

BENCHMARK(BM_SafetensorsHeader)->Arg(5000)->Arg(10000)->Arg(20000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AddedTokens)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OldCallbackHeader)->Arg(1250)->Arg(2500)->Arg(5000)->Arg(10000)->Arg(20000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
