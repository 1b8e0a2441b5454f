#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <streambuf>

#include "core/util/errors.h"

namespace hs {
namespace {

// ---- The registry of live temporary files, read by the signal handler -------------------------
// Fixed slots of plain chars: the handler may only read memory and call unlink(). A slot is
// claimed (free -> filling), filled, then published (filling -> live); the handler unlinks live
// slots only. With every slot taken a write goes on unprotected (never refused for it).
constexpr int kSlots = 64;
enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };
std::atomic<int> g_state[kSlots];
char g_path[kSlots][PATH_MAX];

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_state[i].compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_path[i], path.c_str(), path.size() + 1);
      g_state[i].store(kLive);
      return i;
    }
  }
  return -1;
}

void unregister_temp(int slot) {
  if (slot >= 0) g_state[slot].store(kFree);
}

extern "C" void remove_temp_files_and_reraise(int sig) {
  const int saved = errno;
  for (int i = 0; i < kSlots; ++i)
    if (g_state[i].load() == kLive) ::unlink(g_path[i]);
  errno = saved;
  // SA_RESETHAND restored the default action on entry; raised again, it ends the process as the
  // signal says once this handler returns.
  ::raise(sig);
}

// ---- Output to a file descriptor through std::ostream ------------------------------------------
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (drain() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n <= 0) return 0;  // an empty write (an empty vector's data() may be null: no memcpy from it)
    if (n < epptr() - pptr()) {
      std::memcpy(pptr(), s, size_t(n));
      pbump(int(n));
      return n;
    }
    if (drain() != 0 || !write_all(s, size_t(n))) return 0;
    return n;
  }
  int sync() override { return drain(); }

 private:
  bool write_all(const char* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      p += w;
      n -= size_t(w);
    }
    return true;
  }
  int drain() {
    const bool ok = error_ == 0 && write_all(pbase(), size_t(pptr() - pbase()));
    setp(buffer_, buffer_ + sizeof buffer_);
    return ok ? 0 : -1;
  }

  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The file a write to `path` lands in: symlinks followed to their end (which may not exist yet).
std::string final_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    if (hops == 40) throw IoError("cannot write " + path + ": it is a symlink loop (too many levels of symbolic links)");
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0) throw IoError("cannot write " + path + ": cannot read the symlink " + p + " (" + std::strerror(errno) + ")");
    const std::string target(buf, size_t(n));
    p = target[0] == '/' || p.find('/') == std::string::npos ? target : folder_of(p) + "/" + target;
  }
}

// 0666 minus the umask, as open() would create it. /proc/self/status says the umask without
// changing it (umask() can only be read by setting it, which races other threads).
mode_t new_file_mode() {
  mode_t mask = 022;
  if (FILE* f = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, "Umask:", 6) == 0) mask = mode_t(std::strtoul(line + 6, nullptr, 8));
    std::fclose(f);
  }
  return 0666 & ~mask;
}

std::string octal(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
  return buf;
}

// A device or FIFO (/dev/null, /dev/stdout): renaming a file over it would replace the device
// node, so it is written directly. O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of
// waiting forever; then blocking again for the writes.
void write_directly(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw IoError("cannot write " + path + ": " +
                  (err == ENXIO ? std::string("it is a pipe (FIFO) that nobody reads") : std::strerror(err)));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  try {
    write(out);
  } catch (...) {
    ::close(fd);
    throw;
  }
  out.flush();
  const int err = buffer.error();
  ::close(fd);
  if (!out || err) throw IoError("cannot write " + path + ": " + (err ? std::strerror(err) : "the write failed"));
}

// A new file ".hs-XXXXXX" in `folder`, as mkstemp makes it (six random letters or digits,
// O_CREAT | O_EXCL, mode 0600), but registered for the signal handler *before* it is created, so
// that no SIGTERM can arrive between the file's creation and its registration and leave it behind.
// A signal between registering and open() unlinks a name that does not exist yet (the process
// then ends, so open() never runs). Returns the descriptor, or -1 with errno set.
int create_registered_temp(const std::string& folder, std::string& tmp, int& slot) {
  static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned char random[6];
    if (::getrandom(random, sizeof random, 0) != ssize_t(sizeof random)) return -1;
    tmp = folder + "/.hs-";
    for (const unsigned char r : random) tmp += kLetters[r % (sizeof kLetters - 1)];
    slot = register_temp(tmp);
    const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    const int err = errno;
    unregister_temp(slot);
    slot = -1;
    if (err != EEXIST) {
      errno = err;
      return -1;
    }
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw IoError("cannot write a file with an empty name");
  const auto fail = [&](const std::string& why) { return IoError("cannot write " + path + ": " + why); };
  // What the path leads to, following links as open() would: /dev/stdout into a pipe is the pipe
  // (its /proc/self/fd link names no file), so devices and pipes are known before any resolving.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw fail("it is a folder");
    if (!S_ISREG(st.st_mode)) return write_directly(path, write);
  }
  const std::string target = final_target(path);  // the file the rename must replace
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw fail("it is a folder");
  // Say what is wrong with the destination itself before a temporary file is tried: a read-only
  // file is refused (renaming over it would "succeed" in a folder we may write to), and
  // /proc/version is read-only rather than "no such file" about a temporary name.
  if (exists && (::access(target.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0)) {
    throw fail("it is read-only (mode " + octal(st.st_mode) + "); make it writable (chmod u+w) or choose another name");
  }
  const std::string folder = folder_of(target);
  struct stat fst {};
  if (::stat(folder.c_str(), &fst) != 0 || !S_ISDIR(fst.st_mode)) {
    throw fail("the folder " + folder + " does not exist");
  }

  std::string tmp;
  int slot = -1;
  const int fd = create_registered_temp(folder, tmp, slot);
  if (fd < 0) {
    const int err = errno;
    throw fail("cannot create a file in the folder " + folder + " (" + std::strerror(err) + ")");
  }
  const auto discard = [&] {
    ::unlink(tmp.c_str());
    unregister_temp(slot);
  };
  ::fchmod(fd, exists ? (st.st_mode & 07777) : new_file_mode());
  int err = 0;
  {
    FdBuffer buffer(fd);
    std::ostream out(&buffer);
    try {
      write(out);
    } catch (...) {
      ::close(fd);
      discard();
      throw;
    }
    out.flush();
    err = buffer.error();
    if (!err && !out) err = EIO;
  }
  if (!err && ::fsync(fd) != 0 && errno != EINVAL) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (err) {
    discard();
    throw fail(std::strerror(err));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    discard();
    throw fail(std::strerror(err));
  }
  unregister_temp(slot);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  write_file_atomic(path, [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

void install_temp_file_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = remove_temp_files_and_reraise;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    // A signal the parent set to be ignored (nohup, a shell's background job) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

int live_temp_files() {
  int n = 0;
  for (int i = 0; i < kSlots; ++i) n += g_state[i].load() == kLive;
  return n;
}

}  // namespace hs
