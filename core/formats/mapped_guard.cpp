#include "core/formats/mapped_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace hs {
namespace {

// ---- The registry, read by the SIGBUS handler ------------------------------------------------
// Fixed slots of atomics: the handler may only read memory and call mmap(). A slot is claimed
// (free -> filling), filled, then published (filling -> live); the handler looks at live slots
// only. The identity (for the checks between runs) is kept under a mutex, never by the handler.
constexpr int kGuardSlots = 256;
enum GuardSlotState : int { kGuardFree = 0, kGuardFilling = 1, kGuardLive = 2 };
struct GuardSlot {
  std::atomic<int> state{kGuardFree};
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> length{0};
  std::atomic<bool> faulted{false};
};
GuardSlot g_guard_slots[kGuardSlots];
std::atomic<long> g_guard_faults{0};
std::atomic<uintptr_t> g_guard_page{4096};

struct MappedIdentity {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  timespec mtime{};
};
std::mutex g_identity_mutex;
MappedIdentity g_identities[kGuardSlots];

struct sigaction g_previous_sigbus {};
std::once_flag g_guard_installed;

// Maps a zero page over the page of `address` when it lies in a live mapping; true when it did.
bool patch_mapped_page(uintptr_t address) {
  const uintptr_t page = g_guard_page.load();
  for (GuardSlot& s : g_guard_slots) {
    if (s.state.load() != kGuardLive) continue;
    const uintptr_t begin = s.begin.load();
    if (address < begin || address - begin >= s.length.load()) continue;
    void* at = reinterpret_cast<void*>(address & ~(page - 1));
    if (::mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) return false;
    s.faulted.store(true);
    g_guard_faults.fetch_add(1);
    return true;
  }
  return false;
}

extern "C" void hs_mapped_file_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  // si_code > 0: raised by the kernel for a memory access (not kill() or raise()).
  if (info && info->si_code > 0 && patch_mapped_page(reinterpret_cast<uintptr_t>(info->si_addr))) {
    errno = saved;
    return;  // the load runs again and reads the zero page
  }
  const struct sigaction& prev = g_previous_sigbus;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  } else {
    // Not a mapped model page: the default action. A fault happens again when this returns and
    // ends the process where it was; a sent signal is raised again.
    ::signal(SIGBUS, SIG_DFL);
    if (!info || info->si_code <= 0) ::raise(sig);
  }
  errno = saved;
}

std::string bytes_word(off_t n) { return std::to_string(static_cast<long long>(n)) + " bytes"; }

// What differs between the file as mapped and as it is now ("" when nothing).
std::string identity_change(const MappedIdentity& was) {
  struct stat now {};
  if (::stat(was.path.c_str(), &now) != 0) return "it was removed or renamed";
  if (now.st_dev != was.device || now.st_ino != was.inode) return "another file was put in its place";
  if (now.st_size != was.size) return "its size went from " + bytes_word(was.size) + " to " + bytes_word(now.st_size);
  if (now.st_mtim.tv_sec != was.mtime.tv_sec || now.st_mtim.tv_nsec != was.mtime.tv_nsec) {
    return "it was written to (its modification time changed)";
  }
  return "";
}

std::string changed_message(const std::string& path, const std::string& why) {
  return path + ": the model file changed on disk; reopen it (" + why + ")";
}

}  // namespace

void install_mapped_file_guard() {
  std::call_once(g_guard_installed, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) g_guard_page.store(uintptr_t(page));
    struct sigaction sa {};
    sa.sa_sigaction = hs_mapped_file_sigbus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    ::sigaction(SIGBUS, &sa, &g_previous_sigbus);
  });
}

void register_mapping(const std::string& path, int fd, const void* data, size_t size) {
  struct stat st {};
  if (!data || size == 0 || ::fstat(fd, &st) != 0) return;
  for (int i = 0; i < kGuardSlots; ++i) {
    int expected = kGuardFree;
    if (!g_guard_slots[i].state.compare_exchange_strong(expected, kGuardFilling)) continue;
    {
      const std::lock_guard<std::mutex> lock(g_identity_mutex);
      g_identities[i] = {path, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
    }
    GuardSlot& s = g_guard_slots[i];
    s.begin.store(reinterpret_cast<uintptr_t>(data));
    s.length.store(size);
    s.faulted.store(false);
    s.state.store(kGuardLive);
    return;
  }
}

void unregister_mapping(const void* data) {
  for (GuardSlot& s : g_guard_slots) {
    if (s.state.load() == kGuardLive && s.begin.load() == reinterpret_cast<uintptr_t>(data)) {
      s.state.store(kGuardFree);
      return;
    }
  }
}

std::string mapped_files_changed() {
  struct Seen {
    const std::string* path;
    std::string why;  // "" when the file is as it was when mapped and no page faulted
  };
  std::vector<Seen> seen;
  const std::lock_guard<std::mutex> lock(g_identity_mutex);
  for (int i = 0; i < kGuardSlots; ++i) {
    const GuardSlot& s = g_guard_slots[i];
    if (s.state.load() != kGuardLive) continue;
    const MappedIdentity& was = g_identities[i];
    std::string why = identity_change(was);
    if (s.faulted.load()) {
      why = "a page past its end could not be read during the run" + (why.empty() ? std::string() : "; " + why) +
            "; the result was discarded";
    }
    seen.push_back({&was.path, std::move(why)});
  }
  for (const Seen& a : seen) {
    if (a.why.empty()) continue;
    const auto current = [&](const Seen& b) { return b.why.empty() && *b.path == *a.path; };
    if (std::none_of(seen.begin(), seen.end(), current)) return changed_message(*a.path, a.why);
  }
  return "";
}

void check_mapped_files(long faults_before) {
  if (faults_before >= 0 && mapped_file_faults() > faults_before) {
    // A page faulted during this run: its result is discarded even when the file was reopened since.
    const std::string why = "a page past its end could not be read during the run; the result was discarded";
    const std::lock_guard<std::mutex> lock(g_identity_mutex);
    for (int i = 0; i < kGuardSlots; ++i)
      if (g_guard_slots[i].state.load() == kGuardLive && g_guard_slots[i].faulted.load())
        throw IoError(changed_message(g_identities[i].path, why));
    throw IoError("a model file changed on disk during the run; reopen it (" + why + ")");
  }
  const std::string changed = mapped_files_changed();
  if (!changed.empty()) throw IoError(changed);
}

int live_mapped_files() {
  int n = 0;
  for (const GuardSlot& s : g_guard_slots) n += s.state.load() == kGuardLive;
  return n;
}

long mapped_file_faults() { return g_guard_faults.load(); }

}  // namespace hs
