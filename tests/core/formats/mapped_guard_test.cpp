// A mapped model file that changes on disk while it is open (issue 54): stories260K as a GGUF
// file (its matrices stay mapped) is copied, opened once and run; then the copy is truncated,
// replaced or rewritten between two runs of the same prepared model, or truncated by an observer
// in the middle of a run, so that later layers touch pages past the new end (SIGBUS). Each must
// end in one IoError "PATH: the model file changed on disk; reopen it (...)" and the process must
// go on: the SIGBUS handler maps a zero page and the run's result is discarded.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/formats/mapped_guard.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

#define EXPECT_MESSAGE_HAS(message, part) \
  EXPECT_NE((message).find(part), std::string::npos) << "message: " << (message) << "\nexpected to contain: " << (part)

// A private copy of the fixture (other tests read the original at the same time).
class MappedGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    install_mapped_file_guard();
    const std::string source = test::gguf_test_file("stories260K_f32.gguf");
    if (source.empty()) GTEST_SKIP() << "stories260K_f32.gguf not found (ctest runs formats.gguf_test_files first)";
    dir_ = fs::temp_directory_path() / ("headscope-mapped-guard-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "model.gguf").string();
    fs::copy_file(source, path_, fs::copy_options::overwrite_existing);
    size_ = fs::file_size(path_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::unique_ptr<Prepared> open() const {
    ModelRequest r;
    r.model_path = path_;
    r.sentence = "Lily saw a big cat. The cat ran to the park and Lily ran after it!";
    return prepare(r);
  }
  // The IoError message of prepared.run(options), or what happened instead.
  static std::string run_error(const Prepared& prepared, const RunOptions& options = {}) {
    try {
      prepared.run(options);
    } catch (const IoError& e) {
      return e.what();
    } catch (const std::exception& e) {
      return std::string("wrong error type: ") + e.what();
    }
    return "no error";
  }
  fs::path dir_;
  std::string path_;
  uintmax_t size_ = 0;
};

TEST_F(MappedGuard, AnUnchangedFileRunsAgainAndAgain) {
  const auto prepared = open();
  const long faults = mapped_file_faults();
  const AttentionRun a = prepared->run({});
  const AttentionRun b = prepared->run({});
  EXPECT_EQ(a.token_ids, b.token_ids);
  EXPECT_EQ(mapped_file_faults(), faults);
  EXPECT_EQ(mapped_files_changed(), "");
}

TEST_F(MappedGuard, TruncatedBetweenTwoRunsIsReportedBeforeTheSecond) {
  const auto prepared = open();
  prepared->run({});
  fs::resize_file(path_, size_ / 2);
  const std::string message = run_error(*prepared);
  EXPECT_MESSAGE_HAS(message, path_ + ": the model file changed on disk; reopen it");
  EXPECT_MESSAGE_HAS(message, "its size went from " + std::to_string(size_) + " bytes to " + std::to_string(size_ / 2));
}

TEST_F(MappedGuard, ReplacedBetweenTwoRunsIsReported) {
  const auto prepared = open();
  prepared->run({});
  const std::string other = (dir_ / "other.gguf").string();
  fs::copy_file(path_, other);
  fs::rename(other, path_);  // same bytes, another file: what a download or `cp` to a temporary name then `mv` does
  const std::string message = run_error(*prepared);
  EXPECT_MESSAGE_HAS(message, "the model file changed on disk; reopen it (another file was put in its place)");
}

// The app's case: the file is replaced, the checkpoint cache loads the new one, and a result on
// screen still holds the previous model (and its mapping of the old file). Runs of the new model
// must go on; the old mapping is intact (it maps the old file, which a rename does not touch).
TEST_F(MappedGuard, ReopenedAfterAReplaceTheOldMappingDoesNotBlockTheNewModel) {
  const auto before = open();
  before->run({});
  const std::string other = (dir_ / "other.gguf").string();
  fs::copy_file(path_, other);
  fs::rename(other, path_);
  EXPECT_MESSAGE_HAS(run_error(*before), "another file was put in its place");
  const auto after = open();  // `before` is still alive
  EXPECT_EQ(run_error(*after), "no error");
  EXPECT_EQ(mapped_files_changed(), "");
}

TEST_F(MappedGuard, RewrittenInPlaceBetweenTwoRunsIsReported) {
  const auto prepared = open();
  prepared->run({});
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  const timespec times[2] = {st.st_atim, {st.st_mtim.tv_sec + 5, st.st_mtim.tv_nsec}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path_.c_str(), times, 0), 0);  // as a write of the same size would
  EXPECT_MESSAGE_HAS(run_error(*prepared), "it was written to (its modification time changed)");
}

// Truncates the model file when the first layer's first map is announced: the later layers then
// read matrices past the new end of the file.
class TruncatingObserver : public Observer {
 public:
  TruncatingObserver(std::string path, uintmax_t size) : path_(std::move(path)), size_(size) {}
  void on_tensor(TensorKind kind, int layer, int head, const Map&) override {
    if (kind == TensorKind::attention && layer == 0 && head == 0 && !done_) {
      done_ = true;
      fs::resize_file(path_, size_);
    }
  }
  bool done() const { return done_; }

 private:
  std::string path_;
  uintmax_t size_;
  bool done_ = false;
};

TEST_F(MappedGuard, TruncatedDuringARunFaultsIsSurvivedAndDiscarded) {
  auto prepared = open();
  TruncatingObserver truncate(path_, 4096);  // only the header's first page is left
  RunOptions options;
  options.observer = &truncate;
  options.threads = 1;  // one head at a time: the observer is called from one thread
  const long faults = mapped_file_faults();
  const std::string message = run_error(*prepared, options);
  ASSERT_TRUE(truncate.done()) << "the observer never saw layer 0's first map";
  EXPECT_GT(mapped_file_faults(), faults) << "no SIGBUS was survived: the run read no page past the new end";
  EXPECT_MESSAGE_HAS(message, path_ + ": the model file changed on disk; reopen it");
  EXPECT_MESSAGE_HAS(message, "a page past its end could not be read during the run");
  EXPECT_MESSAGE_HAS(message, "the result was discarded");
  // The process goes on; the next run says the same at once, and a model opened afresh from an
  // intact file runs.
  EXPECT_MESSAGE_HAS(run_error(*prepared), "the model file changed on disk; reopen it");
  prepared.reset();  // closes the faulted mapping
  fs::copy_file(test::gguf_test_file("stories260K_f32.gguf"), path_, fs::copy_options::overwrite_existing);
  const auto reopened = open();
  EXPECT_EQ(mapped_files_changed(), "");
  EXPECT_NO_THROW(reopened->run({}));
}

TEST_F(MappedGuard, AClosedFileIsNoLongerWatched) {
  const int before = live_mapped_files();
  {
    const auto prepared = open();
    EXPECT_GT(live_mapped_files(), before);
  }
  EXPECT_EQ(live_mapped_files(), before);
  fs::resize_file(path_, 10);
  EXPECT_EQ(mapped_files_changed(), "");
}

}  // namespace
}  // namespace hs
