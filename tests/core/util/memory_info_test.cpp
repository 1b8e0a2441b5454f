// The memory budget's cgroup reading (issue 54) on cgroup trees made in a temporary folder, as the
// kernel lays them out: v2 (memory.max, memory.current, memory.stat inactive_file; "max" = none)
// and v1 (memory.limit_in_bytes, memory.usage_in_bytes, total_inactive_file; 2^63 - 4096 = none),
// a parent's limit binding its child, a container that sees its own cgroup at the root. Also the
// address-space limit (RLIMIT_AS) as available_memory() reports it.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/util/errors.h"
#include "core/util/memory_info.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kMiB = int64_t(1) << 20;

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("headscope-cgroup-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string root() const { return root_.string(); }
  fs::path root_;
};

TEST_F(CgroupTree, V2LimitLeavesLimitMinusUsagePlusInactiveFilePages) {
  write("app.slice/x/memory.max", "1073741824\n");
  write("app.slice/x/memory.current", std::to_string(300 * kMiB) + "\n");
  write("app.slice/x/memory.stat", "anon 100\nfile 200\ninactive_file " + std::to_string(100 * kMiB) + "\nactive_file 5\n");
  write("app.slice/memory.max", "max\n");
  const AvailableMemory m = cgroup_memory("0::/app.slice/x\n", root());
  EXPECT_EQ(m.bytes, 1024 * kMiB - 300 * kMiB + 100 * kMiB);
  EXPECT_FALSE(m.counts_mapped) << "under a cgroup, clean file pages are reclaimed: mapped weights do not count";
  EXPECT_NE(m.source.find("cgroup v2 " + root() + "/app.slice/x/memory.max: limit 1.0 GiB, 300 MiB in use, 100 MiB of it reclaimable"),
            std::string::npos) << m.source;
}

TEST_F(CgroupTree, V2ParentLimitBindsTheChild) {
  write("a/memory.max", std::to_string(512 * kMiB));
  write("a/memory.current", std::to_string(500 * kMiB));
  write("a/b/memory.max", "max");
  write("a/b/memory.current", std::to_string(10 * kMiB));
  const AvailableMemory m = cgroup_memory("0::/a/b\n", root());
  EXPECT_EQ(m.bytes, 12 * kMiB);
  EXPECT_NE(m.source.find(root() + "/a/memory.max"), std::string::npos) << m.source;
}

TEST_F(CgroupTree, V2WithoutALimitIsUnknown) {
  write("a/memory.max", "max");
  write("a/memory.current", "12345");
  EXPECT_EQ(cgroup_memory("0::/a\n", root()).bytes, -1);
  EXPECT_EQ(cgroup_memory("", root()).bytes, -1);
  EXPECT_EQ(cgroup_memory("garbage without colons\n0::/missing/folder\n", root()).bytes, -1);
}

TEST_F(CgroupTree, V2UnderTheUnifiedMountOfAHybridSystem) {
  write("unified/s/memory.max", std::to_string(256 * kMiB));
  write("unified/s/memory.current", std::to_string(6 * kMiB));
  EXPECT_EQ(cgroup_memory("0::/s\n", root()).bytes, 250 * kMiB);
}

TEST_F(CgroupTree, V1LimitAndItsNoLimitValue) {
  write("memory/docker/abc/memory.limit_in_bytes", std::to_string(2048 * kMiB));
  write("memory/docker/abc/memory.usage_in_bytes", std::to_string(1000 * kMiB));
  write("memory/docker/abc/memory.stat", "cache 1\ntotal_inactive_file " + std::to_string(48 * kMiB) + "\n");
  write("memory/docker/memory.limit_in_bytes", "9223372036854771712");
  const std::string cgroup = "12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n";
  const AvailableMemory m = cgroup_memory(cgroup, root());
  EXPECT_EQ(m.bytes, 2048 * kMiB - 1000 * kMiB + 48 * kMiB);
  EXPECT_NE(m.source.find("cgroup v1 " + root() + "/memory/docker/abc/memory.limit_in_bytes"), std::string::npos) << m.source;
  write("memory/docker/abc/memory.limit_in_bytes", "9223372036854771712");
  EXPECT_EQ(cgroup_memory(cgroup, root()).bytes, -1);
}

TEST_F(CgroupTree, V1InsideAContainerSeesItsOwnCgroupAtTheRoot) {
  // /proc/self/cgroup names the host's path, which the container's mount does not have.
  write("memory/memory.limit_in_bytes", std::to_string(100 * kMiB));
  write("memory/memory.usage_in_bytes", std::to_string(40 * kMiB));
  EXPECT_EQ(cgroup_memory("4:memory,hugetlb:/kubepods/pod1/abc\n", root()).bytes, 60 * kMiB);
}

TEST_F(CgroupTree, UsageAboveTheLimitLeavesNothing) {
  write("a/memory.max", std::to_string(100 * kMiB));
  write("a/memory.current", std::to_string(120 * kMiB));
  EXPECT_EQ(cgroup_memory("0::/a\n", root()).bytes, 0);
}

TEST(AddressSpace, TheLimitAndWhatIsInUseAreReported) {
  struct rlimit r {};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &r), 0);
  const AvailableMemory m = available_memory();
  if (r.rlim_cur == RLIM_INFINITY) {
    EXPECT_EQ(m.address_space_limit, -1);
    EXPECT_EQ(m.address_space_left(), -1);
    EXPECT_NO_THROW(check_address_space_for_mapping("x.gguf", int64_t(1) << 40));
  } else {
    EXPECT_EQ(m.address_space_limit, int64_t(r.rlim_cur));
    EXPECT_GT(m.address_space_used, 0);
  }
}

}  // namespace
}  // namespace hs
