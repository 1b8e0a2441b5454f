#include "app/gui/actions/clipboard_image.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/util/errors.h"

extern char** environ;

namespace hs::gui {
namespace {

// Writes png to a new `xclip -selection clipboard -t image/png -i` and waits for it to take the
// selection (xclip's first process exits then, leaving a child that owns the selection).
void hand_over(const std::string& png, ClipboardCopy& out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    out.message = "cannot start xclip: no pipe";
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>("xclip"), const_cast<char*>("-selection"), const_cast<char*>("clipboard"),
                  const_cast<char*>("-t"),    const_cast<char*>("image/png"), const_cast<char*>("-i"), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "xclip", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (spawned != 0) {
    close(fds[1]);
    out.message = "cannot start xclip (is it installed? apt install xclip)";
    return;
  }
  // A closed pipe (xclip failed early) must not kill the app: MSG_NOSIGNAL has no pipe twin, so
  // SIGPIPE is ignored for the process (the app writes no other pipes).
  signal(SIGPIPE, SIG_IGN);
  size_t at = 0;
  while (at < png.size()) {
    const ssize_t n = write(fds[1], png.data() + at, png.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    at += size_t(n);
  }
  close(fds[1]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (at != png.size() || code != 0) {
    out.message = "xclip did not take the image (exit " + std::to_string(code) +
                  (std::getenv("DISPLAY") ? "" : "; DISPLAY is not set") + ")";
    return;
  }
  out.ok = true;
  out.message = "copied the view as a " + std::to_string(png.size()) + "-byte PNG to the clipboard";
}

}  // namespace

bool xclip_available() { return std::system("command -v xclip >/dev/null 2>&1") == 0; }

std::shared_ptr<ClipboardCopy> start_png_copy(std::string png) {
  if (!xclip_available()) {
    throw IoError("copying an image needs xclip (apt install xclip); Export... writes the PNG to a file");
  }
  auto job = std::make_shared<ClipboardCopy>();
  std::thread([job, bytes = std::move(png)] {
    hand_over(bytes, *job);
    job->done.store(true, std::memory_order_release);
  }).detach();
  return job;
}

std::string copy_png_to_clipboard(const std::string& png) {
  const std::shared_ptr<ClipboardCopy> job = start_png_copy(png);
  while (!job->done.load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (!job->ok) throw IoError(job->message);
  return job->message;
}

}  // namespace hs::gui
