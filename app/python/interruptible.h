#pragma once
// Long calls of the Python module: the work runs on its own thread while the calling thread waits
// without the GIL (other Python threads run meanwhile) and checks for Ctrl+C (a pending signal,
// PyErr_CheckSignals) every 50 ms. On a signal the call raises at once (KeyboardInterrupt): `stop`
// turns true, so work that polls it (each head of an ablation, each patched head) ends at its next
// step, and anything else finishes in the background with its result dropped. headscope's errors
// from the work are rethrown on the calling thread (app/python/headscope_module.cpp translates them).
#include <atomic>
#include <functional>
#include <memory>

namespace hs::python {

// Runs work(stop) as described above. Call with the GIL held.
void run_interruptible(std::function<void(const std::atomic<bool>& stop)> work);

// Work abandoned after Ctrl+C and still running (tests; the module waits for it at exit).
int abandoned_work();

// Waits, without the GIL, until no abandoned work runs (registered with atexit by the package, so
// the process does not unload what a running abandoned call still reads).
void wait_for_abandoned_work();

}  // namespace hs::python
