# The Python package (issue 52, docs/python.md). python_api: the pytest suite on the module this
# build made (<build>/python), against headscope-cli's JSON on the shipped models and the GGUF
# files of formats.gguf_test_files. python_fresh_install: the documented venv + pip install from a
# copy of the repository (it compiles core and the module again: 200 s of CPU, measured 2026-12-07
# with GCC 12; about 1.7 minutes of CI's 2 cores).
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope_python AND TARGET headscope-cli)
  add_test(NAME python_api
           COMMAND ${HEADSCOPE_TEST_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(python_api PROPERTIES LABELS python FIXTURES_REQUIRED gguf_test_files TIMEOUT 600
    ENVIRONMENT "PYTHONPATH=${PROJECT_BINARY_DIR}/python;HEADSCOPE_CLI=$<TARGET_FILE:headscope-cli>;HEADSCOPE_GGUF_DIR=${HEADSCOPE_GGUF_TEST_DIR};HEADSCOPE_SHIPPED_MODELS=${HEADSCOPE_MODELS_DIR}")
  add_test(NAME python_fresh_install
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/fresh_install.py ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR}/python-fresh-install)
  set_tests_properties(python_fresh_install PROPERTIES LABELS "python;slow" TIMEOUT 1800
    ENVIRONMENT "HEADSCOPE_BUILD_PYTHONPATH=${PROJECT_BINARY_DIR}/python")
endif()
