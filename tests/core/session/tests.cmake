headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/session_file_test.cpp nlohmann_json::nlohmann_json)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/lesson_file_test.cpp)
# Every claim a shipped lesson's caption makes about its maps, computed through core (issue 19).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/lesson_claims_test.cpp)
# kill -9 during a large session save leaves the previous session whole (issue 54).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/session_kill_test.cpp)
