// Memory made ready for the next keystroke's maps (issue 49): after prefault_heap, maps of that
// size allocated and written on the same thread take almost no first-touch page faults, where the
// same maps on fresh memory take one per page. Counted with getrusage's minor faults (no timing).
// prefault_next_maps asks for the cached run's maps at T + extra tokens, scores included when kept.
#include <gtest/gtest.h>

#include <malloc.h>
#include <sys/resource.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "core/model/prefix_cache.h"
#include "core/util/heap_prefault.h"

namespace hs {
namespace {

long heap_prefault_minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Allocates `count` maps of [T, T], writes every cell, returns the minor faults that took; the
// maps stay alive in `keep` (as the previous run's maps are while the next one is made).
long heap_prefault_faults_of_maps(int count, int T, std::vector<Map>& keep) {
  const long f0 = heap_prefault_minor_faults();
  for (int i = 0; i < count; ++i) {
    keep.emplace_back(T, T);
    keep.back().setConstant(1.0f);
  }
  return heap_prefault_minor_faults() - f0;
}

TEST(HeapPrefault, MapsOnPreparedMemoryTakeFewPageFaults) {
  // The sanitized build (tests/sanitize.sh) replaces malloc: AddressSanitizer's allocator holds
  // freed memory in its quarantine, not in glibc's arena, so memory made ready is not what the next
  // maps get there. The Release tree runs this test.
  if (std::getenv("HEADSCOPE_SANITIZER"))
    GTEST_SKIP() << "a sanitized build's allocator does not reuse glibc's arena: page faults are counted in the Release tree";
  // As the app and the CLI run (app/common/memory_tuning.cpp): freed memory stays in the arena.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  const int maps = 96, T = 201;  // 15 MB: 3,800 pages of 4 KiB
  const int64_t map_bytes = int64_t(T) * T * int64_t(sizeof(float));
  std::vector<Map> fresh;
  const long cold = heap_prefault_faults_of_maps(maps, T, fresh);
  EXPECT_GT(cold, 1000) << "fresh maps of " << maps * map_bytes << " bytes took " << cold << " page faults";
  EXPECT_EQ(prefault_heap(maps * map_bytes, map_bytes), maps * map_bytes);
  std::vector<Map> ready;
  const long warm = heap_prefault_faults_of_maps(maps, T, ready);
  EXPECT_LT(warm, cold / 10) << "maps on memory made ready took " << warm << " page faults; on fresh memory " << cold;
}

TEST(HeapPrefault, NothingAskedNothingDone) {
  EXPECT_EQ(prefault_heap(0, 4096), 0);
  EXPECT_EQ(prefault_heap(4096, 0), 0);
  EXPECT_EQ(prefault_heap(-1, 4096), 0);
  PrefixCache empty;
  EXPECT_EQ(prefault_next_maps(empty), 0);
}

TEST(HeapPrefault, NextMapsAreTheCachedRunsAtMoreTokens) {
  auto run = std::make_shared<AttentionRun>();
  run->tokens.assign(10, "w");
  run->attention.assign(3, LayerMaps(4, Map::Zero(10, 10)));  // 3 layers x 4 heads
  PrefixCache cache;
  cache.run = run;
  EXPECT_EQ(prefault_next_maps(cache, 2), int64_t(12) * 12 * 12 * 4);
  cache.keep_scores = true;
  EXPECT_EQ(prefault_next_maps(cache, 2), int64_t(24) * 12 * 12 * 4);
  auto big = std::make_shared<AttentionRun>();  // 64 maps of [2000, 2000]: 1 GB, of which 8 maps (128 MB) made ready
  big->tokens.assign(2000, "w");
  big->attention.assign(1, LayerMaps(64, Map(1, 1)));
  cache.run = big;
  cache.keep_scores = false;
  EXPECT_EQ(prefault_next_maps(cache, 0), int64_t(8) * 2000 * 2000 * 4);
}

}  // namespace
}  // namespace hs
