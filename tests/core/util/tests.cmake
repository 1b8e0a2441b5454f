# core/util: UTF-8 repair and measuring.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/utf8_test.cpp)
# core/util: the engine's kernels, once per instruction set the machine has (HEADSCOPE_KERNELS
# caps the choice; a cap above what the CPU has falls back to what it has).
add_executable(kernels_test ${CMAKE_CURRENT_LIST_DIR}/kernels_test.cpp)
target_link_libraries(kernels_test PRIVATE headscope_core GTest::gtest GTest::gtest_main)
headscope_target_flags(kernels_test)
foreach(isa native avx2 portable)
  if(isa STREQUAL "native")
    gtest_discover_tests(kernels_test TEST_PREFIX "${isa}." PROPERTIES LABELS core DISCOVERY_TIMEOUT 60)
  else()
    gtest_discover_tests(kernels_test TEST_PREFIX "${isa}." PROPERTIES LABELS core ENVIRONMENT "HEADSCOPE_KERNELS=${isa}"
                         DISCOVERY_TIMEOUT 60)
  endif()
endforeach()
# core/util: reading named files without trusting them (devices, FIFOs, /proc, symlink loops).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/file_read_test.cpp)
# core/util: atomic output files against planted symlinks, read-only files, signals, ulimit -f.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/atomic_file_test.cpp)
# core/util: the memory budget's cgroup v1 / v2 limits on made-up trees, and RLIMIT_AS.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/memory_info_test.cpp)
# core/util: SHA-256 against the FIPS 180-4 vectors (the provenance of exports).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/sha256_test.cpp)
# core/util: memory made ready for the next keystroke's maps (page faults counted, no timing).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/heap_prefault_test.cpp)
