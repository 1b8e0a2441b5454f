headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/session_file_test.cpp nlohmann_json::nlohmann_json)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/lesson_file_test.cpp)
