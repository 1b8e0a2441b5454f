// An LD_PRELOAD shim that makes the disk misbehave for one folder (issue 54): with
//   HEADSCOPE_FAULT_DIR=/some/folder HEADSCOPE_FAULT=ENOSPC|EDQUOT|EROFS HEADSCOPE_FAULT_AT=write|open
// every write() to a file in that folder (write), or every open() that would create or write a
// file there (open), fails with that errno, as a full disk, a full quota or a read-only file
// system makes it fail. Reads and every other folder are untouched. Built as a test target
// (tests/cli/tests.cmake) and used by tests/cli/machine_faults.py.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int fault_errno(const char* at) {
  const char* want_at = getenv("HEADSCOPE_FAULT_AT");
  const char* name = getenv("HEADSCOPE_FAULT");
  if (!name || !want_at || strcmp(want_at, at) != 0) return 0;
  if (strcmp(name, "ENOSPC") == 0) return ENOSPC;
  if (strcmp(name, "EDQUOT") == 0) return EDQUOT;
  if (strcmp(name, "EROFS") == 0) return EROFS;
  return 0;
}

// True when `path` (absolute, or relative to the working folder) is inside HEADSCOPE_FAULT_DIR.
static int in_fault_dir(const char* path) {
  const char* dir = getenv("HEADSCOPE_FAULT_DIR");
  if (!dir || !*dir || !path) return 0;
  char full[PATH_MAX];
  if (path[0] == '/') {
    snprintf(full, sizeof full, "%s", path);
  } else {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return 0;
    snprintf(full, sizeof full, "%s/%s", cwd, path);
  }
  const size_t n = strlen(dir);
  return strncmp(full, dir, n) == 0 && (full[n] == '/' || full[n] == '\0');
}

static int fd_in_fault_dir(int fd) {
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = '\0';
  return in_fault_dir(target);
}

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*real_write)(int, const void*, size_t);
  if (!real_write) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const int err = fault_errno("write");
  if (err && fd > 2 && fd_in_fault_dir(fd)) {
    errno = err;
    return -1;
  }
  return real_write(fd, buf, count);
}

static int refuse_open(const char* path, int flags) {
  const int err = fault_errno("open");
  if (err && (flags & (O_WRONLY | O_RDWR | O_CREAT)) && in_fault_dir(path)) {
    errno = err;
    return 1;
  }
  return 0;
}

#define HS_SHIM_OPEN(name)                                                       \
  int name(const char* path, int flags, ...) {                                   \
    static int (*real)(const char*, int, ...);                                   \
    if (!real) real = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, #name);   \
    mode_t mode = 0;                                                             \
    if (flags & (O_CREAT | O_TMPFILE)) {                                         \
      va_list ap;                                                                \
      va_start(ap, flags);                                                       \
      mode = va_arg(ap, mode_t);                                                 \
      va_end(ap);                                                                \
    }                                                                            \
    if (refuse_open(path, flags)) return -1;                                     \
    return real(path, flags, mode);                                              \
  }
HS_SHIM_OPEN(open)
HS_SHIM_OPEN(open64)

#define HS_SHIM_OPENAT(name)                                                          \
  int name(int dirfd, const char* path, int flags, ...) {                             \
    static int (*real)(int, const char*, int, ...);                                   \
    if (!real) real = (int (*)(int, const char*, int, ...))dlsym(RTLD_NEXT, #name);   \
    mode_t mode = 0;                                                                  \
    if (flags & (O_CREAT | O_TMPFILE)) {                                              \
      va_list ap;                                                                     \
      va_start(ap, flags);                                                            \
      mode = va_arg(ap, mode_t);                                                      \
      va_end(ap);                                                                     \
    }                                                                                 \
    if ((dirfd == AT_FDCWD || path[0] == '/') && refuse_open(path, flags)) return -1; \
    return real(dirfd, path, flags, mode);                                            \
  }
HS_SHIM_OPENAT(openat)
HS_SHIM_OPENAT(openat64)
