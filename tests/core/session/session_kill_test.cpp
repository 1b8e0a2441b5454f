// kill -9 in the middle of saving a large session (issue 54): a child process saves sessions A
// and B in turn, as fast as it can, over one file; the parent kills it with SIGKILL at a random
// moment after it has started writing, 24 times. After every kill the file must load whole as A or B (the rename is the only
// step that replaces it), never half of one. SIGKILL runs no handler, so the temporary file being
// written stays behind as ".hs-XXXXXX" beside the file: the test counts those as proof that
// kills landed mid-write, and removes them.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "core/session/session_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// A session whose sentence is about 3 MiB (the reader's limit is 4 MiB): every save writes it all.
Session large_session(const std::string& word) {
  Session s = default_session();
  std::string sentence;
  while (sentence.size() < (size_t(3) << 20)) sentence += word + " ";
  s.request.sentence = sentence;
  return s;
}

int stale_temporaries(const fs::path& dir, bool remove) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(".hs-", 0) != 0) continue;
    ++n;
    if (remove) fs::remove(e.path());
  }
  return n;
}

TEST(SessionKill, KillNineDuringALargeSaveLeavesAWholeSession) {
  // Not /tmp (often a tmpfs, where fsync costs nothing): the build tree, on the disk CI uses.
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / ("session-kill-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "big.json").string();
  const Session a = large_session("alpha"), b = large_session("beta");
  save_session(path, a);
  std::mt19937 rng(54);
  constexpr int kRounds = 24;
  int mid_write = 0, saved_b = 0;
  for (int round = 0; round < kRounds; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = round;; ++i) save_session(path, i % 2 ? a : b);  // until killed; B first in even rounds
    }
    // Once a temporary file shows (the child is writing; making the JSON comes first and may take
    // long on a loaded machine), a random moment later: mid-write, at the rename, or in the next save.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (stale_temporaries(dir, false) == 0 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(rng)));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "round " << round << ": the child ended otherwise";
    Session got;
    try {
      got = load_session(path);
    } catch (const Error& e) {
      FAIL() << "round " << round << ": after kill -9 the session does not load: " << e.what();
    }
    const bool is_a = got.request.sentence == a.request.sentence, is_b = got.request.sentence == b.request.sentence;
    EXPECT_TRUE(is_a || is_b) << "round " << round << ": the sentence is neither A's nor B's (" << got.request.sentence.size()
                              << " bytes)";
    saved_b += is_b;
    mid_write += stale_temporaries(dir, true) > 0;
  }
  std::printf("%d kills: %d landed while a temporary file was being written; %d left session B in place\n", kRounds, mid_write,
              saved_b);
  EXPECT_GT(mid_write, 0) << "no kill landed during a write: the test proved nothing";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hs
