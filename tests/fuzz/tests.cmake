# Fuzz harnesses (tests/fuzz/fuzz_<name>.cpp). In every build each harness is linked with
# replay_main.cpp and run over its seed corpus and regression inputs as a normal test (label
# "fuzz"); with -DHEADSCOPE_FUZZ=ON (clang) they are also built as libFuzzer binaries
# fuzz_<name> for tests/fuzz/run.sh. fuzz_flags drives the model flags the CLI and the app share,
# so it also links headscope_app_common (CLI11).
file(GLOB HEADSCOPE_FUZZ_HARNESSES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz_*.cpp)
foreach(harness ${HEADSCOPE_FUZZ_HARNESSES})
  get_filename_component(fuzz_name ${harness} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" short ${fuzz_name})
  set(fuzz_libs headscope_core)
  if(short STREQUAL "flags")
    set(fuzz_libs headscope_app_common headscope_core)
  endif()
  add_executable(replay_${short} ${harness} ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
  target_link_libraries(replay_${short} PRIVATE ${fuzz_libs})
  target_compile_definitions(replay_${short} PRIVATE HEADSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  headscope_target_flags(replay_${short})
  add_test(NAME fuzz_replay_${short}
           COMMAND replay_${short} ${CMAKE_CURRENT_LIST_DIR}/corpus/${short} ${CMAKE_CURRENT_LIST_DIR}/regressions/${short})
  set_tests_properties(fuzz_replay_${short} PROPERTIES LABELS "fuzz")
  if(HEADSCOPE_FUZZ)
    add_executable(${fuzz_name} ${harness})
    target_link_libraries(${fuzz_name} PRIVATE ${fuzz_libs})
    target_compile_definitions(${fuzz_name} PRIVATE HEADSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    target_compile_options(${fuzz_name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${fuzz_name} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${fuzz_name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  endif()
endforeach()
