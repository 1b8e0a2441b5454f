// CheckpointCache: an unchanged checkpoint is read once and gives the same runs as a fresh read;
// a changed, replaced or vanished file, another tokenizer or another path is read again; a load
// that fails reaches the caller and keeps nothing stale.
#include "core/model/checkpoint_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// Enough of a model for the cache, which never runs it.
class StubModel : public TransformerModel {
 public:
  const ModelInfo& info() const override { return info_; }
  int max_positions() const override { return 1; }
  Map forward(const std::vector<int>&, Observer*, int) const override { return {}; }
  Map forward_cached(const std::vector<int>&, KvCache&) const override { return {}; }
  Map logits(const Map&, int) const override { return {}; }

 private:
  ModelInfo info_;
};

LoadedCheckpoint stub() { return {std::make_shared<const StubModel>(), nullptr, -1, nullptr}; }

// Moves a file's modification time, as an editor or a new download would.
void touch(const std::string& path, int seconds) {
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(seconds));
}

TEST(CheckpointCache, ReadsAgainOnlyWhenAFileOrTheKeyChanges) {
  const std::string dir = test::scratch_dir("checkpoint_cache_stub");
  const std::string a = dir + "/model.bin", b = dir + "/tok.bin";
  test::write_text(a, "weights");
  test::write_text(b, "vocabulary");
  CheckpointCache cache;
  int calls = 0;
  const auto load = [&] {
    ++calls;
    return stub();
  };
  const LoadedCheckpoint first = cache.get("key", {a, b}, load);
  EXPECT_EQ(cache.get("key", {a, b}, load).model, first.model) << "unchanged files: the same model object";
  EXPECT_EQ(calls, 1);

  touch(b, 5);
  EXPECT_NE(cache.get("key", {a, b}, load).model, first.model) << "the tokenizer's time changed";
  EXPECT_EQ(calls, 2);

  test::write_text(a, "weights, longer");  // size (and time) changed
  cache.get("key", {a, b}, load);
  EXPECT_EQ(calls, 3);

  const std::string replacement = dir + "/new.bin";  // same name, another file (a new inode)
  test::write_text(replacement, "weights, longer");
  fs::last_write_time(replacement, fs::last_write_time(a));
  fs::rename(replacement, a);
  cache.get("key", {a, b}, load);
  EXPECT_EQ(calls, 4);

  cache.get("other key", {a, b}, load);
  EXPECT_EQ(calls, 5);
  cache.get("other key", {a, b}, load);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(cache.loads(), 5);

  fs::remove(b);
  cache.get("other key", {a, b}, load);
  EXPECT_EQ(calls, 6) << "a file that vanished is a change";
}

TEST(CheckpointCache, AFailedLoadThrowsAndIsNotRemembered) {
  const std::string dir = test::scratch_dir("checkpoint_cache_fail");
  const std::string a = dir + "/model.bin";
  test::write_text(a, "weights");
  CheckpointCache cache;
  cache.get("key", {a}, stub);
  touch(a, 5);
  EXPECT_THROW(cache.get("key", {a}, []() -> LoadedCheckpoint { throw FormatError("bad file"); }), FormatError);
  int calls = 0;
  cache.get("key", {a}, [&] {
    ++calls;
    return stub();
  });
  EXPECT_EQ(calls, 1) << "after a failed load the next request reads the file again";
  EXPECT_EQ(cache.loads(), 2);
}

class Stories260KCache : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = test::model_file("stories260K/stories260K.bin");
    tokenizer_ = test::model_file("stories260K/tok512.bin");
    if (model_.empty() || tokenizer_.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  }
  ModelRequest request(const std::string& model, const std::string& sentence) const {
    ModelRequest r;
    r.model_path = model;
    r.sentence = sentence;
    r.generate = 3;
    return r;
  }
  std::string model_, tokenizer_;
};

TEST_F(Stories260KCache, CachedRunsEqualFreshRunsAndTheFileIsReadOnce) {
  // A copy beside its tokenizer, found by name (tok512.bin) as the app finds it.
  const std::string dir = test::scratch_dir("checkpoint_cache_stories");
  fs::copy_file(model_, dir + "/stories260K.bin");
  fs::copy_file(tokenizer_, dir + "/tok512.bin");
  const std::string model = dir + "/stories260K.bin";
  CheckpointCache cache;
  for (const std::string sentence : {"Once upon a time", "Once upon a time, Lily", "", "The dog ran."}) {
    SCOPED_TRACE("sentence \"" + sentence + "\"");
    const AttentionRun cached = prepare(request(model, sentence), &cache)->run({});
    const AttentionRun fresh = prepare(request(model, sentence))->run({});
    ASSERT_EQ(cached.token_ids, fresh.token_ids);
    ASSERT_EQ(cached.next_token_ids, fresh.next_token_ids);
    ASSERT_EQ(cached.attention.size(), fresh.attention.size());
    for (size_t l = 0; l < fresh.attention.size(); ++l)
      for (size_t h = 0; h < fresh.attention[l].size(); ++h)
        ASSERT_EQ(cached.attention[l][h], fresh.attention[l][h]) << "layer " << l << ", head " << h;
  }
  EXPECT_EQ(cache.loads(), 1);

  // A new tokenizer file beside the checkpoint is read.
  touch(dir + "/tok512.bin", 5);
  prepare(request(model, "Once upon a time"), &cache);
  EXPECT_EQ(cache.loads(), 2);

  // A checkpoint overwritten with garbage is refused with its error, not served from memory.
  test::write_bytes(model, std::vector<uint8_t>(40, 0xFF));
  EXPECT_THROW(prepare(request(model, "Once upon a time"), &cache), Error);
  fs::copy_file(model_, model, fs::copy_options::overwrite_existing);
  EXPECT_NO_THROW(prepare(request(model, "Once upon a time"), &cache));
  EXPECT_EQ(cache.loads(), 3);
}

}  // namespace
}  // namespace hs
