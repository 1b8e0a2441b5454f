# unity/: the unity batches (cmake/Unity.cmake) define no internal name twice. CI's build is a
# unity build, a build with ccache is not, so a clash would first show in CI; this test shows it
# in every build. A unity build tree is checked as it is; any other configures a scratch unity
# tree (configuring writes the batches; nothing is compiled).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME unity.checker
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_unity_names_test.py)
  if(HEADSCOPE_UNITY)
    add_test(NAME unity.names
             COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_unity_names.py
                     ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  else()
    set(unity_tree ${CMAKE_CURRENT_BINARY_DIR}/unity-tree)
    add_test(NAME unity.names
             COMMAND sh -c "\"$0\" -S \"$1\" -B \"$2\" -DHEADSCOPE_UNITY=ON -DCMAKE_CXX_COMPILER_LAUNCHER= -DHEADSCOPE_BUILD_TESTS=OFF -DHEADSCOPE_BUILD_BENCH=OFF > \"$2.log\" 2>&1 || { cat \"$2.log\"; exit 1; }; \"$3\" \"$4\" \"$1\" \"$2\""
                     ${CMAKE_COMMAND} ${PROJECT_SOURCE_DIR} ${unity_tree} ${HEADSCOPE_TEST_PYTHON}
                     ${CMAKE_CURRENT_LIST_DIR}/check_unity_names.py)
  endif()
  set_tests_properties(unity.checker unity.names PROPERTIES LABELS "build" TIMEOUT 120)
endif()
