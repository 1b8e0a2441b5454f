// Attention maps from a file (core/model/attention_file.h): both layouts, tokens from the
// metadata or the JSON beside the file, the optional extras, causal detection, rows that do not
// sum to 1 kept and said, and every refusal naming what was found. The files are safetensors
// written here (with __metadata__); .npz files come from numpy in tests/tools/.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/analysis/run_analysis.h"
#include "core/model/attention_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;
using Array = std::pair<std::vector<int64_t>, std::vector<float>>;

std::string scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(HEADSCOPE_BINARY_DIR) / "test-scratch" / "attention_file";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::filesystem::remove(path + ".tokens.json");
  return path;
}

// A safetensors file of F32 arrays with string metadata.
std::string write_file(const std::string& name, const std::map<std::string, Array>& arrays,
                       const std::map<std::string, std::string>& metadata = {}) {
  json header = json::object();
  std::string data;
  for (const auto& [n, a] : arrays) {
    header[n] = {{"dtype", "F32"}, {"shape", a.first}, {"data_offsets", {data.size(), data.size() + 4 * a.second.size()}}};
    data.append(reinterpret_cast<const char*>(a.second.data()), 4 * a.second.size());
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  const std::string h = header.dump();
  const std::string path = scratch(name);
  std::ofstream out(path, std::ios::binary);
  const uint64_t n = h.size();
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << h << data;
  return path;
}

// `maps` [heads][T][T] softmax rows of a deterministic pattern; causal: lower triangle only.
std::vector<float> maps(int layers, int heads, int T, bool causal = false, int seed = 0) {
  std::vector<float> v;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < T; ++i) {
        std::vector<float> row(size_t(T), 0.0f);
        float sum = 0.0f;
        for (int j = 0; j < T; ++j) {
          if (causal && j > i) continue;
          row[size_t(j)] = std::exp(0.3f * float((i * 7 + j * 3 + h * 5 + l * 11 + seed) % 9));
          sum += row[size_t(j)];
        }
        for (float& x : row) v.push_back(x / sum);
      }
  return v;
}

std::string tokens_json(const std::vector<std::string>& tokens) { return json(tokens).dump(); }

template <typename E>
std::string error_of(const std::string& path) {
  try {
    read_attention_file(path);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong error type: ") + e.what();
  }
  return "no error";
}

#define EXPECT_HAS(message, part) EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message) << "\nexpected to contain: " << (part)

TEST(AttentionFile, StackedMapsWithTokensInTheMetadata) {
  const std::vector<float> v = maps(2, 3, 4);
  const std::string path = write_file("stacked.safetensors", {{"attention", {{2, 3, 4, 4}, v}}},
                                      {{"tokens", tokens_json({"The", "cat", "sat", "."})}, {"name", "vit-tiny"}});
  const AttentionRun run = read_attention_file(path);
  EXPECT_EQ(run.tokens, std::vector<std::string>({"The", "cat", "sat", "."}));
  EXPECT_EQ(run.info.kind, "attention-file");
  EXPECT_EQ(run.info.name, "vit-tiny");
  EXPECT_EQ(run.n_layers(), 2);
  EXPECT_EQ(run.n_heads(), 3);
  EXPECT_EQ(run.info.n_layers, 2);
  EXPECT_EQ(run.info.n_heads, 3);
  EXPECT_FALSE(run.info.causal);
  EXPECT_TRUE(run.rows_sum_to_one);
  EXPECT_TRUE(run.notes.empty());
  EXPECT_TRUE(run.next_tokens.empty());
  EXPECT_EQ(run.attention[1][2](3, 1), v[size_t(((1 * 3 + 2) * 4 + 3) * 4 + 1)]);
}

TEST(AttentionFile, PerLayerArraysWithBatchAndTheJsonBeside) {
  const std::string path = write_file("per_layer.safetensors", {{"attentions.0", {{1, 2, 3, 3}, maps(1, 2, 3, true)}},
                                                                {"attentions.1", {{1, 2, 3, 3}, maps(1, 2, 3, true, 4)}}});
  std::ofstream(path + ".tokens.json") << R"({"tokens": ["[CLS]", "hi", "[SEP]"], "special_tokens": [0, 2],
                                             "segment_b_start": 1, "token_ids": [101, 7592, 102]})";
  const AttentionRun run = read_attention_file(path);
  EXPECT_EQ(run.n_layers(), 2);
  EXPECT_EQ(run.n_heads(), 2);
  EXPECT_EQ(run.tokens, std::vector<std::string>({"[CLS]", "hi", "[SEP]"}));
  EXPECT_EQ(run.special_tokens, std::vector<bool>({true, false, true}));
  EXPECT_EQ(run.segment_b_start, 1);
  EXPECT_EQ(run.token_ids, std::vector<int>({101, 7592, 102}));
  EXPECT_TRUE(run.info.causal) << "no weight above the diagonal in any map";
  EXPECT_EQ(run.info.name, "per_layer.safetensors");
}

TEST(AttentionFile, NoTokensAreNumberedAndSaid) {
  const AttentionRun run = read_attention_file(write_file("numbered.safetensors", {{"layer.0", {{1, 2, 2}, maps(1, 1, 2)}}}));
  EXPECT_EQ(run.tokens, std::vector<std::string>({"0", "1"}));
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_HAS(run.notes[0], "No token strings were found");
}

TEST(AttentionFile, RowsThatDoNotSumToOneAreKeptAndSaid) {
  std::vector<float> v = maps(1, 2, 3);
  for (int j = 0; j < 3; ++j) v[size_t((1 * 3 + 2) * 3 + j)] *= 0.5f;  // head 1, query 2
  const AttentionRun run = read_attention_file(write_file("halved.safetensors", {{"attention", {{1, 2, 3, 3}, v}}},
                                                          {{"tokens", tokens_json({"a", "b", "c"})}}));
  EXPECT_FALSE(run.rows_sum_to_one);
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_HAS(run.notes[0], "1 of 6 rows do not sum to 1");
  EXPECT_HAS(run.notes[0], "layer 0 head 1 query 2 sums to 0.5");
  const auto a = analyse_run(run);
  EXPECT_GT(a->difference[0](0, 1), 0.0f);
}

TEST(AttentionFile, RefusalsNameWhatWasFound) {
  const std::map<std::string, std::string> three = {{"tokens", tokens_json({"a", "b", "c"})}};
  EXPECT_HAS(error_of<InputError>(write_file("count.safetensors", {{"attention", {{1, 1, 4, 4}, maps(1, 1, 4)}}}, three)),
             "names 3 tokens but the maps are 4 x 4");
  std::vector<float> nan = maps(1, 1, 3);
  nan[4] = std::nanf("");
  EXPECT_HAS(error_of<FormatError>(write_file("nan.safetensors", {{"attention", {{1, 1, 3, 3}, nan}}}, three)),
             "tensor 'attention' [1, 1, 3, 3] has NaN at [0, 0, 1, 1]");  // the safetensors reader's finite check
  std::vector<float> negative = maps(1, 1, 3);
  negative[2] = -0.25f;
  EXPECT_HAS(error_of<FormatError>(write_file("negative.safetensors", {{"attention", {{1, 1, 3, 3}, negative}}}, three)),
             "[query 0, key 2] is -0.25");
  EXPECT_HAS(error_of<FormatError>(write_file("gap.safetensors", {{"layer.0", {{1, 3, 3}, maps(1, 1, 3)}},
                                                                  {"layer.2", {{1, 3, 3}, maps(1, 1, 3)}}})),
             "layer 1 is missing (the next stored is 'layer.2')");
  EXPECT_HAS(error_of<FormatError>(write_file("mixed.safetensors", {{"attention", {{1, 1, 3, 3}, maps(1, 1, 3)}},
                                                                    {"layer.0", {{1, 3, 3}, maps(1, 1, 3)}}})),
             "keep one of the two layouts");
  EXPECT_HAS(error_of<FormatError>(write_file("square.safetensors", {{"attention", {{1, 1, 3, 2}, std::vector<float>(6, 0.5f)}}})),
             "has shape [1, 1, 3, 2]; expected [layers, heads, T, T]");
  EXPECT_HAS(error_of<FormatError>(write_file("heads.safetensors", {{"layer.0", {{2, 3, 3}, maps(1, 2, 3)}},
                                                                    {"layer.1", {{1, 3, 3}, maps(1, 1, 3)}}})),
             "every layer must have the same heads and tokens");
  EXPECT_HAS(error_of<FormatError>(write_file("other.safetensors", {{"logits", {{2}, {0.5f, 0.5f}}}})),
             "no attention maps: expected an array 'attention' [layers, heads, T, T] or one per layer");
  EXPECT_HAS(error_of<InputError>(scratch("maps.pt")), "expected a .safetensors or .npz file");
  EXPECT_HAS(error_of<IoError>(scratch("absent.safetensors")), "no such file");
  const std::string bad_json = write_file("badjson.safetensors", {{"attention", {{1, 1, 2, 2}, maps(1, 1, 2)}}});
  std::ofstream(bad_json + ".tokens.json") << "[\"a\", ";
  EXPECT_HAS(error_of<FormatError>(bad_json), ".tokens.json: not valid JSON");
  EXPECT_HAS(error_of<FormatError>(write_file("special.safetensors", {{"attention", {{1, 1, 2, 2}, maps(1, 1, 2)}}},
                                              {{"tokens", tokens_json({"a", "b"})}, {"special_tokens", "[5]"}})),
             "\"special_tokens\" holds 5; expected token indices 0..1");
}

// Through a request: every analysis works; flags that make maps are refused; long-input mode
// (which needs the model's queries and keys) is refused with what to do.
TEST(AttentionFile, ThroughARequest) {
  ModelRequest r;
  r.attention_file = write_file("request.safetensors", {{"attention", {{2, 2, 5, 5}, maps(2, 2, 5)}}},
                                {{"tokens", tokens_json({"a", "b", "c", "d", "e"})}});
  const auto a = analyse(r);
  EXPECT_EQ(a->run.n_tokens(), 5);
  EXPECT_EQ(a->difference.size(), 2u);
  EXPECT_EQ(a->map_labels, a->run.tokens);
  ModelRequest conflict = r;
  conflict.sentence = "a b";
  EXPECT_THROW(analyse(conflict), InputError);
  conflict = r;
  conflict.model_path = "somewhere";
  EXPECT_THROW(analyse(conflict), InputError);
  AnalysisOptions long_input;
  long_input.maps = MapMode::long_input;
  try {
    analyse(r, long_input);
    ADD_FAILURE() << "long-input mode was not refused";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()), "--whole-maps");
  }
}

}  // namespace
}  // namespace hs
