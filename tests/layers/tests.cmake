# The layers of core/ and app/ (README, "Layout"), checked from every #include line.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME layers COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(layers PROPERTIES LABELS "core")
endif()
