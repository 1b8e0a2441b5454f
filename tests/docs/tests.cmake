# The README stays a front door (<= 250 lines), every link in it and in docs/ resolves, and its
# test command is .ci/run's.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME docs_links
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_docs.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs_links PROPERTIES LABELS "docs" TIMEOUT 30)
endif()
# Every shell command of README.md and docs/*.md runs (tests/docs/doc_commands.py), on the small
# files make_doc_fixtures.py writes into the build tree first (also read by tests that need a
# model with grouped heads: tests/gl).
set(HEADSCOPE_DOC_FIXTURES_DIR ${PROJECT_BINARY_DIR}/doc-fixtures)
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME docs.fixtures
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_doc_fixtures.py
                   ${HEADSCOPE_DOC_FIXTURES_DIR} ${HEADSCOPE_MODELS_DIR} $<TARGET_FILE:headscope-cli>)
  set_tests_properties(docs.fixtures PROPERTIES LABELS docs FIXTURES_SETUP doc_fixtures TIMEOUT 300)
  add_test(NAME docs_commands
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/doc_commands.py
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${HEADSCOPE_DOC_FIXTURES_DIR})
  set_tests_properties(docs_commands PROPERTIES LABELS docs FIXTURES_REQUIRED doc_fixtures TIMEOUT 1800)
endif()
