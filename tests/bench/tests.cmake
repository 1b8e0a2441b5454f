# The benchmark's streamed GGUF writer writes the bytes of the tests' writer (tests/core/formats);
# the benchmarks themselves assert nothing and are not registered here.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME bench_gguf_writer COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gguf_writer_test.py)
  set_tests_properties(bench_gguf_writer PROPERTIES LABELS "bench" TIMEOUT 60)
endif()
