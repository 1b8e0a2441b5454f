# core/analysis: head difference / average / entropy, singular values, the head-count sweep, the
# analysis pipeline (run_analysis) and the views' data.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_stats_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/spectrum_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_sweep_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/run_analysis_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/query_profile_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_roles_test.cpp)
