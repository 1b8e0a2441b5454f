# core/text (synthetic model): the word tokenizer.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/word_tokenizer_test.cpp)
