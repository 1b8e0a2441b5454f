# core/text (synthetic model): the word tokenizer.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/word_tokenizer_test.cpp)
# Tokenizer fidelity (issue 14): White_Space in regexes, Unicode numbers in Digits. Uses GPT-2's
# files from the shared models (headscope_add_pretrained_gtest: core/pretrained/tests.cmake, included before this file).
headscope_add_pretrained_gtest(${CMAKE_CURRENT_LIST_DIR}/tokenizer_fidelity_test.cpp
                               ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
# Tokenizers from GGUF metadata (files from the fixture formats.gguf_test_files, core/formats/tests.cmake).
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/gguf_tokenizer_test.cpp
                         ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
