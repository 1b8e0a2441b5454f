// Linked into headscope only when it is built with HEADSCOPE_SANITIZE=ON (tests/sanitize.sh).
//
// LeakSanitizer looks for leaks when the process exits, after glfwTerminate() has dlclose()d
// libGL and Mesa has unloaded its llvmpipe driver. Memory those libraries still point to from
// their own globals then looks leaked, because the globals are unmapped, and the report cannot
// name the library either (its code is unmapped too), so tests/lsan.supp cannot match it.
// Keeping every library loaded until exit keeps those pointers visible: nothing that Mesa holds
// is reported, and a leak of ours is still reported with its full stack.
//
// Defined here, in the executable, this dlclose() is found before libc's by every library's
// lookup (the link exports it, see app/gui/CMakeLists.txt). <dlfcn.h> is not included: its
// declaration carries glibc's exception specification, which this definition need not repeat.
extern "C" int dlclose(void* /*handle*/) { return 0; }
