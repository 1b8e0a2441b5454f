# core/formats: .npy and safetensors readers (round trips and every malformed variant).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/npy_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/safetensors_test.cpp)
# The one JSON reader: nesting limit, repeated keys, linear work, bounded messages (issue 28).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/json_strict_test.cpp)
# JSON floats: exactly printf's %.9g text.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/json_text_test.cpp)
# .npz archives (zip, stored and deflated entries); the test writes its archives with zlib.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/npz_test.cpp ZLIB::ZLIB)

# GGUF: the reader, GGML dequantization, compact quantized matrices and tokenizers from GGUF
# metadata. Their input files are written into the build tree by the fixture test below, from
# tests/core/formats/gguf_writer.py (a GGUF writer made from the format's specification) and
# ggml_dequant.py (an independent numpy dequantizer: the oracle). Tests that need the files list
# themselves through headscope_add_gguf_gtest (also used by core/model and core/text).
set(HEADSCOPE_GGUF_TEST_DIR ${PROJECT_BINARY_DIR}/gguf-test-files)
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME formats.gguf_test_files
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_gguf_test_files.py
                   ${HEADSCOPE_GGUF_TEST_DIR} ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(formats.gguf_test_files PROPERTIES LABELS core FIXTURES_SETUP gguf_test_files TIMEOUT 300)
endif()

function(headscope_add_gguf_gtest source)
  get_filename_component(name ${source} NAME_WE)
  add_executable(${name} ${source} ${ARGN})
  target_link_libraries(${name} PRIVATE headscope_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    HEADSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    HEADSCOPE_BINARY_DIR="${PROJECT_BINARY_DIR}"
    HEADSCOPE_MODELS_DIR_DEFAULT="${HEADSCOPE_MODELS_DIR}"
    HEADSCOPE_GGUF_TEST_DIR="${HEADSCOPE_GGUF_TEST_DIR}")
  headscope_target_flags(${name})
  headscope_test_pch(${name})
  gtest_discover_tests(${name} PROPERTIES LABELS core FIXTURES_REQUIRED gguf_test_files DISCOVERY_TIMEOUT 60)
endfunction()

headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/gguf_test.cpp)
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/ggml_types_test.cpp)
# A mapped model file truncated, replaced or rewritten between two runs or during one (issue 54).
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/mapped_guard_test.cpp)
