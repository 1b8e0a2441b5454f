// Atomic output files (core/util/atomic_file.h) against a hostile folder: a planted symlink at
// the temporary name, a read-only destination, a destination that is a symlink, a name of 253
// characters, /proc files, a writer that fails halfway, signals and a file-size limit. The
// destination is either the old file or the whole new one, with its mode kept, and no temporary
// file is left behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hs-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void put(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  // Every name in the folder except `keep`: a temporary file left behind shows here.
  std::vector<std::string> others(const std::vector<std::string>& keep) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
    }
    return out;
  }
  template <typename F>
  static std::string error_of(F f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  static mode_t mode_of(const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mode & 07777;
  }

  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplacesWholeFiles) {
  write_file_atomic(at("a.json"), "first");
  EXPECT_EQ(contents(at("a.json")), "first");
  write_file_atomic(at("a.json"), "second, longer");
  EXPECT_EQ(contents(at("a.json")), "second, longer");
  EXPECT_TRUE(others({"a.json"}).empty());
}

// The old temporary name was PATH.tmp-PID, opened without O_EXCL: a symlink planted there made
// the write go to the symlink's target.
TEST_F(AtomicFile, APlantedSymlinkAtTheOldTemporaryNameIsNotFollowed) {
  put(at("victim"), "precious");
  fs::create_symlink(dir_ / "victim", dir_ / ("out.json.tmp-" + std::to_string(::getpid())));
  write_file_atomic(at("out.json"), "output");
  EXPECT_EQ(contents(at("victim")), "precious");
  EXPECT_EQ(contents(at("out.json")), "output");
  EXPECT_FALSE(fs::is_symlink(dir_ / "out.json"));
}

TEST_F(AtomicFile, AReadOnlyDestinationIsRefusedAndKept) {
  put(at("ro.json"), "keep me");
  fs::permissions(dir_ / "ro.json", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string msg = error_of([&] { write_file_atomic(at("ro.json"), "new"); });
  EXPECT_NE(msg.find("ro.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  EXPECT_EQ(contents(at("ro.json")), "keep me");
  EXPECT_TRUE(others({"ro.json"}).empty());
}

TEST_F(AtomicFile, ASymlinkDestinationIsWrittenThroughToItsTarget) {
  fs::create_directories(dir_ / "real");
  put(at("real/target.json"), "old");
  fs::create_symlink("real/target.json", dir_ / "link.json");  // relative, as ln -s makes them
  write_file_atomic(at("link.json"), "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(contents(at("real/target.json")), "new");
  // A dangling link creates its target; a chain of links is followed to its end.
  fs::create_symlink(dir_ / "real" / "created.json", dir_ / "dangling.json");
  fs::create_symlink("dangling.json", dir_ / "chain.json");
  write_file_atomic(at("chain.json"), "made");
  EXPECT_EQ(contents(at("real/created.json")), "made");
  EXPECT_TRUE(fs::is_symlink(dir_ / "chain.json"));
  fs::create_symlink("loop.json", dir_ / "loop.json");
  EXPECT_NE(error_of([&] { write_file_atomic(at("loop.json"), "x"); }).find("symlink loop"), std::string::npos);
  EXPECT_TRUE(others({"real", "link.json", "dangling.json", "chain.json", "loop.json"}).empty());
  EXPECT_EQ(others({"target.json", "created.json"}).size(), 5u);
}

TEST_F(AtomicFile, TheDestinationKeepsItsMode) {
  put(at("m.json"), "old");
  fs::permissions(dir_ / "m.json", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomic(at("m.json"), "new");
  EXPECT_EQ(mode_of(at("m.json")), mode_t(0640));
  const mode_t old_mask = ::umask(022);
  write_file_atomic(at("fresh.json"), "new");
  ::umask(old_mask);
  EXPECT_EQ(mode_of(at("fresh.json")), mode_t(0644)) << "a new file gets 0666 minus the umask, as open() gives";
}

// 253 characters is a legal name (the limit is 255); PATH.tmp-PID was not.
TEST_F(AtomicFile, ALongLegalNameIsWritten) {
  const std::string name = std::string(248, 'n') + ".json";
  ASSERT_EQ(name.size(), 253u);
  write_file_atomic(at(name), "long");
  EXPECT_EQ(contents(at(name)), "long");
  EXPECT_TRUE(others({name}).empty());
}

TEST_F(AtomicFile, ProblemsNameTheDestinationNotTheTemporaryFile) {
  const std::string msg = error_of([&] { write_file_atomic("/proc/version", "x"); });
  EXPECT_EQ(msg.rfind("cannot write /proc/version: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;  // was the temporary file's "No such file"
  EXPECT_EQ(msg.find(".tmp"), std::string::npos) << msg;
  EXPECT_EQ(msg.find(".hs-"), std::string::npos) << msg;
  const std::string missing = error_of([&] { write_file_atomic(at("no/such/folder/x.json"), "x"); });
  EXPECT_NE(missing.find("x.json"), std::string::npos) << missing;
  EXPECT_NE(missing.find("folder"), std::string::npos) << missing;
  EXPECT_NE(error_of([&] { write_file_atomic(dir_.string(), "x"); }).find("folder"), std::string::npos);
  EXPECT_THROW(write_file_atomic("", "x"), IoError);
}

TEST_F(AtomicFile, AWriterThatFailsLeavesTheOldFileAndNoTemporaryFile) {
  put(at("w.json"), "old");
  EXPECT_THROW(write_file_atomic(at("w.json"), [](std::ostream& out) {
                 out << std::string(100000, 'x');
                 throw std::runtime_error("the writer failed");
               }),
               std::runtime_error);
  EXPECT_EQ(contents(at("w.json")), "old");
  EXPECT_TRUE(others({"w.json"}).empty());
}

TEST_F(AtomicFile, DevicesAreWrittenDirectly) {
  write_file_atomic("/dev/null", "into the void");
  const std::string full = error_of([&] { write_file_atomic("/dev/full", std::string(1 << 20, 'x')); });
  EXPECT_NE(full.find("/dev/full"), std::string::npos) << full;
}

TEST_F(AtomicFile, TheTemporaryFileIsRegisteredOnlyWhileItIsWritten) {
  EXPECT_EQ(live_temp_files(), 0);
  int during = -1;
  write_file_atomic(at("r.json"), [&](std::ostream& out) {
    during = live_temp_files();
    out << "x";
  });
  EXPECT_EQ(during, 1);
  EXPECT_EQ(live_temp_files(), 0);
}

// SIGTERM (or SIGINT, SIGHUP) in the middle of a write: the temporary file is unlinked and the
// process still ends by the signal. Run in a child process.
TEST_F(AtomicFile, ASignalDuringAWriteRemovesTheTemporaryFile) {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    put(at("s.json"), "old");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      install_temp_file_cleanup();
      try {
        write_file_atomic(at("s.json"), [&](std::ostream& out) {
          out << std::string(200000, 'x');
          out.flush();
          ::kill(::getpid(), sig);
          out << "never";
        });
      } catch (...) {
      }
      ::_exit(3);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ", status " << status;
    EXPECT_EQ(contents(at("s.json")), "old");
    EXPECT_TRUE(others({"s.json"}).empty()) << "signal " << sig << " left " << others({"s.json"}).front();
  }
}

// ulimit -f: the write that passes the limit fails with EFBIG (SIGXFSZ is ignored) and is
// reported naming the destination; the temporary file is removed, the old file kept.
TEST_F(AtomicFile, AFileSizeLimitIsAnErrorNotADeath) {
  put(at("big.json"), "old");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    install_temp_file_cleanup();
    const struct rlimit limit = {100000, 100000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const std::string msg = error_of([&] { write_file_atomic(at("big.json"), std::string(1 << 20, 'x')); });
    const bool named = msg.rfind("cannot write " + at("big.json") + ": File too large", 0) == 0;
    ::_exit(named ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(contents(at("big.json")), "old");
  EXPECT_TRUE(others({"big.json"}).empty());
}

}  // namespace
}  // namespace hs
