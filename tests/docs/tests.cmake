# The README stays a front door (<= 250 lines), every link in it and in docs/ resolves, and its
# test command is .ci/run's.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME docs_links
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_docs.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs_links PROPERTIES LABELS "docs" TIMEOUT 30)
endif()
