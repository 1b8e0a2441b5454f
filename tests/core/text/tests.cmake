# core/text (synthetic model): UTF-8 repair and the word tokenizer.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/utf8_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/word_tokenizer_test.cpp)
