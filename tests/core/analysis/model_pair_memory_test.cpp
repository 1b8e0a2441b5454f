// Two models against the memory budget (core/analysis/model_pair_memory.h): the estimate from
// stories260K's llama2.c header worked out by hand, the peak of one-at-a-time and both-open pairs,
// the refusal's numbers, and run_model_pair refusing before either checkpoint is loaded; then
// run_model_pair's progress (model reads and layers run) and a cancel inside either model's run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/analysis/model_pair_memory.h"
#include "core/analysis/model_pair_run.h"
#include "core/model/gguf_loader.h"

namespace hs {
namespace {

const std::string kStoriesBin = std::string(HEADSCOPE_SOURCE_DIR) + "/assets/models/stories260K/stories260K.bin";
const std::string kStoriesTok = std::string(HEADSCOPE_SOURCE_DIR) + "/assets/models/stories260K/tok512.bin";

ModelRequest stories_request(const std::string& sentence) {
  ModelRequest r;
  r.model_path = kStoriesBin;
  r.tokenizer = kStoriesTok;
  r.sentence = sentence;
  return r;
}

AvailableMemory plenty() {
  AvailableMemory a;
  a.bytes = int64_t(1) << 40;
  a.source = "test";
  return a;
}

// stories260K: dim 64, hidden 172, 5 layers, 8 heads on 4 key/value heads, vocabulary 512.
TEST(ModelPairMemory, EstimatesStories260KFromItsHeader) {
  const int64_t T = 10;
  const ModelMemoryNeed n = estimate_model_memory(kStoriesBin, T, 1);
  ASSERT_TRUE(n.shape_known);
  EXPECT_EQ(n.weights, int64_t(std::filesystem::file_size(kStoriesBin))) << "a .bin's weights are read whole";
  EXPECT_FALSE(n.weights_mapped);
  LlamaConfig c;
  c.d_model = 64, c.hidden = 172, c.n_layers = 5, c.n_heads = 8, c.n_kv_heads = 4, c.d_head = 8, c.vocab = 512;
  EXPECT_EQ(n.run, llama_run_bytes(c, T, 1));
  EXPECT_EQ(n.kept, (5 * 8 * T * T + T * 512) * 4) << "maps [5, 8, T, T] and logits [T, 512] in float32";
  EXPECT_EQ(n.total(), n.weights + n.run + n.kept);
}

TEST(ModelPairMemory, UnreadableFilesGiveWhatIsKnown) {
  const ModelMemoryNeed missing = estimate_model_memory("/nonexistent/model.gguf", 4);
  EXPECT_FALSE(missing.shape_known);
  EXPECT_EQ(missing.total(), 0);
  const ModelMemoryNeed other = estimate_model_memory(kStoriesTok + "-not-a-model", 4);
  EXPECT_FALSE(other.shape_known);
  // A llama2.c header of absurd sizes (a damaged file): weights counted, no run estimated, no overflow.
  const std::string damaged = (std::filesystem::temp_directory_path() / "hs_pair_memory_damaged.bin").string();
  {
    const int32_t header[7] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
    std::ofstream(damaged, std::ios::binary).write(reinterpret_cast<const char*>(header), sizeof header);
  }
  const ModelMemoryNeed bad = estimate_model_memory(damaged, 1 << 20);
  std::filesystem::remove(damaged);
  EXPECT_FALSE(bad.shape_known);
  EXPECT_EQ(bad.weights, 28);
  EXPECT_EQ(bad.run, 0);
}

TEST(ModelPairMemory, ABareBudgetIsMiBElseASize) {
  EXPECT_EQ(parse_memory_budget("8192"), int64_t(8192) << 20);
  EXPECT_EQ(parse_memory_budget("8G"), int64_t(8) << 30);
  EXPECT_EQ(parse_memory_budget("512M"), int64_t(512) << 20);
  EXPECT_EQ(parse_memory_budget("1.5G"), int64_t(3) << 29);
  EXPECT_EQ(parse_memory_budget("lots"), -1);
  EXPECT_EQ(parse_memory_budget(""), -1);
  EXPECT_EQ(parse_memory_budget("-5"), -1);
  EXPECT_EQ(parse_memory_budget("99999999999999"), -1);
}

TEST(ModelPairMemory, TokenBoundIsTheIdsOrTheBytesPlusTwo) {
  ModelRequest r = stories_request("Once upon");
  EXPECT_EQ(request_token_bound(r), 9 + 2);
  r.generate = 3;
  EXPECT_EQ(request_token_bound(r), 9 + 2 + 3);
  r.input_ids = {1, 2, 3, 4};
  EXPECT_EQ(request_token_bound(r), 4 + 3);
}

// One at a time: max(A's weights + run + kept, A's kept + B's weights + run + kept); both open adds A's weights.
TEST(ModelPairMemory, PeakOfOneAtATimeAndBothOpen) {
  const ModelRequest r = stories_request("Once upon a time");
  const PairMemoryCheck one = check_model_pair_memory(r, r, PairResidence::one_at_a_time, -1, "", plenty(), 1);
  const PairMemoryCheck both = check_model_pair_memory(r, r, PairResidence::both_open, -1, "", plenty(), 1);
  const ModelMemoryNeed& n = one.a;
  EXPECT_EQ(one.peak, n.kept + n.weights + n.run + n.kept);
  EXPECT_EQ(both.peak, n.weights + n.kept + n.weights + n.run + n.kept);
  EXPECT_EQ(one.peak_working, one.peak) << "a .bin's weights are copies: they count under a cgroup limit too";
}

std::string refusal(const ModelRequest& r, PairResidence residence, int64_t budget, const AvailableMemory& available) {
  try {
    check_model_pair_memory(r, r, residence, budget, "--memory-budget", available, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelPairMemory, RefusalNamesBothNeedsTheBudgetAndTheAvailableMemory) {
  const ModelRequest r = stories_request("Once upon a time");
  const int64_t peak = check_model_pair_memory(r, r, PairResidence::one_at_a_time, -1, "", plenty(), 1).peak;
  EXPECT_EQ(refusal(r, PairResidence::one_at_a_time, peak, plenty()), "") << "a budget of exactly the peak fits";
  const std::string over = refusal(r, PairResidence::one_at_a_time, peak - 1, plenty());
  ASSERT_NE(over, "");
  for (const std::string& part : {std::string("model A (") + kStoriesBin + ") needs about", std::string("model B (") + kStoriesBin + ")",
                                  std::string("the memory budget is "), std::string("(--memory-budget)"),
                                  std::string(" is available (test)"), std::string("one at a time")})
    EXPECT_NE(over.find(part), std::string::npos) << "missing \"" << part << "\" in: " << over;
  AvailableMemory little = plenty();
  little.bytes = peak - 1;
  const std::string low = refusal(r, PairResidence::both_open, -1, little);
  EXPECT_NE(low.find("no memory budget is set"), std::string::npos) << low;
  EXPECT_NE(low.find("is available (test)"), std::string::npos) << low;
  EXPECT_NE(low.find("both open"), std::string::npos) << low;
}

TEST(ModelPairMemory, RunModelPairRefusesBeforeEitherModelIsLoaded) {
  const ModelRequest r = stories_request("Once upon a time");
  CheckpointCache cache;
  ModelPairOptions o;
  o.checkpoints_a = o.checkpoints_b = &cache;
  o.memory_budget = 1024;
  o.memory_budget_source = "a test budget";
  int steps = 0;
  o.progress = [&](int, int) { return ++steps > 0; };
  EXPECT_THROW(run_model_pair(r, r, o), InputError);
  EXPECT_EQ(cache.loads(), 0) << "no checkpoint may be read before the pair is found to fit";
  EXPECT_EQ(steps, 0);
  o.memory_budget = int64_t(1) << 30;
  const ModelPairRun pair = run_model_pair(r, r, o);
  EXPECT_EQ(cache.loads(), 1) << "the same file twice: read once";
  EXPECT_EQ(pair.contrast.heads.size(), 5u);
}

// stories260K twice, two caches (both read): 12 steps, A read + 5 layers, B read + 5 layers.
TEST(ModelPairProgress, CountsReadsAndLayersToTheEnd) {
  const ModelRequest r = stories_request("Once upon a time");
  CheckpointCache cache_a, cache_b;
  ModelPairOptions o;
  o.checkpoints_a = &cache_a, o.checkpoints_b = &cache_b;
  std::vector<int> seen;
  o.progress = [&](int done, int total) {
    EXPECT_EQ(total, 12);
    seen.push_back(done);
    return true;
  };
  run_model_pair(r, r, o);
  const std::vector<int> want = {0, 2, 3, 4, 5, 6, 6, 8, 9, 10, 11, 12, 12};  // before each read, after each layer, the end
  EXPECT_EQ(seen, want);
}

// A false answer stops the work at that step: inside A's forward (its 2nd layer) or B's (its 4th).
TEST(ModelPairProgress, CancelStopsInsideEitherModelsRun) {
  const ModelRequest r = stories_request("Once upon a time");
  for (const int stop_at : {3, 11}) {
    CheckpointCache cache_a, cache_b;
    ModelPairOptions o;
    o.checkpoints_a = &cache_a, o.checkpoints_b = &cache_b;
    std::vector<int> seen;
    o.progress = [&](int done, int) { return seen.push_back(done), done < stop_at; };
    EXPECT_THROW(run_model_pair(r, r, o), ModelPairCancelled) << "stop at " << stop_at;
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), stop_at) << "no step after the one that said stop";
    EXPECT_EQ(cache_b.loads(), stop_at < 6 ? 0 : 1) << "a cancel inside A's run never reads B";
  }
}

}  // namespace
}  // namespace hs
