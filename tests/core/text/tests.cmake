# core/text (synthetic model): the word tokenizer.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/word_tokenizer_test.cpp)
# Token labels on screen and in figures (issue 36): space mark, byte-fallback characters, emoji names.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/token_label_test.cpp)
# Tokenizer fidelity (issue 14): White_Space in regexes, Unicode numbers in Digits. Uses GPT-2's
# files from the shared models (headscope_add_pretrained_gtest: core/pretrained/tests.cmake, included before this file).
headscope_add_pretrained_gtest(${CMAKE_CURRENT_LIST_DIR}/tokenizer_fidelity_test.cpp
                               ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
# Tokenizers from GGUF metadata (files from the fixture formats.gguf_test_files, core/formats/tests.cmake).
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/gguf_tokenizer_test.cpp
                         ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)

# Tokenizers against independent Python implementations of their algorithms (SentencePiece BPE
# and Unigram from tokenizer.model, Hugging Face Unigram and WordPiece, BERT vocab.txt, the Unicode
# normalizers): make_tokenizer_cases.py writes the folders and expected ids into the build tree.
set(HEADSCOPE_TOKENIZER_CASES_DIR ${PROJECT_BINARY_DIR}/tokenizer-cases)
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME text.tokenizer_cases
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_tokenizer_cases.py ${HEADSCOPE_TOKENIZER_CASES_DIR})
  set_tests_properties(text.tokenizer_cases PROPERTIES LABELS core FIXTURES_SETUP tokenizer_cases TIMEOUT 300)
endif()
add_executable(tokenizer_cases_test ${CMAKE_CURRENT_LIST_DIR}/tokenizer_cases_test.cpp)
target_link_libraries(tokenizer_cases_test PRIVATE headscope_core GTest::gtest GTest::gtest_main nlohmann_json::nlohmann_json)
target_compile_definitions(tokenizer_cases_test PRIVATE HEADSCOPE_TOKENIZER_CASES_DIR="${HEADSCOPE_TOKENIZER_CASES_DIR}")
headscope_target_flags(tokenizer_cases_test)
gtest_discover_tests(tokenizer_cases_test PROPERTIES LABELS core FIXTURES_REQUIRED tokenizer_cases DISCOVERY_TIMEOUT 60)
# SentencePiece's tokenizer.model: protobuf reader, load checks, a tokenizer.model-only folder.
headscope_add_pretrained_gtest(${CMAKE_CURRENT_LIST_DIR}/sentencepiece_proto_test.cpp
                               ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
target_link_libraries(sentencepiece_proto_test PRIVATE nlohmann_json::nlohmann_json)
# encode_pair (ids, token types, sequence ids, special flags) and the ICU helpers.
headscope_add_pretrained_gtest(${CMAKE_CURRENT_LIST_DIR}/encode_pair_test.cpp
                               ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
target_link_libraries(encode_pair_test PRIVATE nlohmann_json::nlohmann_json)
# The shared <0xHH> byte-piece decoder and ends_with (helpers once copied per file).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/byte_piece_test.cpp)
