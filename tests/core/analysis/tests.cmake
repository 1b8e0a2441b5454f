# core/analysis: head difference / average / entropy, singular values, the head-count sweep.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_stats_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/spectrum_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_sweep_test.cpp)
