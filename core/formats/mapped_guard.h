#pragma once
// Guards for memory-mapped model files (MappedFile, core/formats/mapped_file.h) that change on
// disk while they are open: a download restarting or a copy over the file truncates it, and a
// page past the new end then raises SIGBUS when touched.
//
// - Every live mapping is registered with its file's identity (device, inode, size, mtime) as
//   it was when mapped. check_mapped_files() compares each with what stat() says now.
// - install_mapped_file_guard() (main() of the CLI and the app, and tests) installs a SIGBUS
//   handler that, for a fault inside a registered mapping, maps an anonymous zero page over the
//   faulting page (MAP_FIXED), marks the mapping as faulted and returns: the faulting load reads
//   zeros and the run goes on to its end, destructors and locks intact (no longjmp). A SIGBUS
//   anywhere else keeps its previous meaning (the previous handler, or the default: the process ends).
// - run_guarded(f) checks before running f and after it, and turns a faulted or changed mapping
//   into one IoError, "PATH: the model file changed on disk; reopen it (...)": the run's result
//   (computed from zeros) is discarded. A faulted mapping stays faulted until it is closed.
#include <exception>
#include <string>
#include <utility>

#include "core/util/errors.h"

namespace hs {

// Installs the SIGBUS handler (idempotent).
void install_mapped_file_guard();

// "" when every live mapping's file is as it was when mapped and no page of it faulted; else
// what changed in the first one that did, as the message run_guarded throws. A mapping of a file
// that was replaced or rewritten is passed over while another live mapping of the same path
// matches the file as it is now: the model was reopened from the new file (the app's checkpoint
// cache does so) and the old mapping belongs to a previous model still held by a result on screen.
std::string mapped_files_changed();

// Throws IoError with mapped_files_changed() when it is not ""; with `faults_before` (what
// mapped_file_faults() said when a run began), also when a page faulted since then, whichever
// file it was.
void check_mapped_files(long faults_before = -1);

// Mappings live now, and SIGBUS faults survived since the start (for tests).
int live_mapped_files();
long mapped_file_faults();

// Runs f() between two checks of the mapped files. An error f throws while a file has changed is
// replaced by the file's message (zeros read in place of the file's pages may have caused it).
template <class F>
auto run_guarded(F&& f) -> decltype(f()) {
  check_mapped_files();
  const long faults = mapped_file_faults();
  try {
    auto out = std::forward<F>(f)();
    check_mapped_files(faults);
    return out;
  } catch (const Error&) {
    check_mapped_files(faults);
    throw;
  }
}

// For MappedFile: registers [data, data + size) of the open file `fd` at `path` (with every slot
// taken the mapping still works, unguarded), and forgets it before it is unmapped.
void register_mapping(const std::string& path, int fd, const void* data, size_t size);
void unregister_mapping(const void* data);

}  // namespace hs
