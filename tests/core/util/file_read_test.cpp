// Reading named files without trusting them (core/util/file_read.h): devices, FIFOs, folders
// and symlink loops are refused at once with what they are; /proc files (size 0 by stat) are
// read to their end or to the limit; the limit is counted while reading, not taken from stat().
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/formats/mapped_file.h"
#include "core/formats/npy.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

class FileRead : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hs-file-read-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }

  // The message of the hs::Error `f` throws ("no error" when it does not).
  template <typename F>
  static std::string error_of(F f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(FileRead, DevicesAreRefusedWithWhatTheyAre) {
  for (const std::string path : {"/dev/zero", "/dev/null", "/dev/urandom"}) {
    const std::string msg = error_of([&] { read_file_limited(path, 1 << 20); });
    EXPECT_NE(msg.find(path + ": it is a character device, not a file"), std::string::npos) << msg;
    EXPECT_NE(error_of([&] { MappedFile f(path); }).find("character device"), std::string::npos);
    EXPECT_NE(error_of([&] { read_npy(path); }).find("character device"), std::string::npos);
  }
  fs::create_symlink("/dev/zero", dir_ / "zero.npy");
  EXPECT_NE(error_of([&] { read_npy(at("zero.npy")); }).find("zero.npy: it is a character device"), std::string::npos);
  EXPECT_EQ(not_a_file_reason("/dev/zero"), "is a character device, not a file");
}

TEST_F(FileRead, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(error_of([&] { read_file_limited(at("fifo"), 100); }).find("pipe (FIFO), not a file"), std::string::npos);
  EXPECT_NE(error_of([&] { MappedFile f(at("fifo")); }).find("FIFO"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << "open() waited for a writer";
}

TEST_F(FileRead, FoldersLoopsAndMissingFilesSayWhich) {
  EXPECT_NE(error_of([&] { read_file_limited(dir_.string(), 100); }).find("it is a folder, not a file"), std::string::npos);
  fs::create_symlink(dir_ / "loop", dir_ / "loop");
  EXPECT_NE(error_of([&] { read_file_limited(at("loop"), 100); }).find("symlink loop"), std::string::npos);
  EXPECT_EQ(not_a_file_reason(at("loop")), "is a symlink loop (too many levels of symbolic links)");
  EXPECT_NE(error_of([&] { read_file_limited(at("missing"), 100); }).find("missing: it does not exist"), std::string::npos);
  EXPECT_EQ(not_a_file_reason(at("missing")), "does not exist (no such file or folder)");
  EXPECT_EQ(not_a_file_reason(dir_.string()), "is a folder, not a file");
  EXPECT_THROW(read_file_limited("", 100), IoError);
}

TEST_F(FileRead, ProcFilesAreReadToTheLimitNotToTheirStatSize) {
  struct stat st {};
  ASSERT_EQ(::stat("/proc/self/maps", &st), 0);
  ASSERT_EQ(st.st_size, 0) << "the test needs a /proc file whose size says 0";
  const std::string maps = read_file_limited("/proc/self/maps", 1 << 24);
  EXPECT_GT(maps.size(), 0u);
  const std::string msg = error_of([&] { read_file_limited("/proc/self/maps", 16); });
  EXPECT_NE(msg.find("more than 16 bytes"), std::string::npos) << msg;
}

TEST_F(FileRead, RegularFilesUpToTheLimit) {
  std::ofstream(at("a.txt"), std::ios::binary) << std::string(100, 'x');
  EXPECT_EQ(read_file_limited(at("a.txt"), 100), std::string(100, 'x'));
  EXPECT_EQ(read_file(at("a.txt")), std::string(100, 'x'));
  const std::string msg = error_of([&] { read_file_limited(at("a.txt"), 99, "a session file"); });
  EXPECT_NE(msg.find("100 bytes is over the limit of 99 bytes for a session file"), std::string::npos) << msg;
  std::ofstream(at("empty"), std::ios::binary);
  EXPECT_EQ(read_file_limited(at("empty"), 0), "");
  fs::create_symlink(dir_ / "a.txt", dir_ / "link.txt");  // symlinks to files are fine
  EXPECT_EQ(read_file_limited(at("link.txt"), 100).size(), 100u);
}

}  // namespace
}  // namespace hs
