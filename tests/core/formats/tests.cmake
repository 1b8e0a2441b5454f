# core/formats: .npy and safetensors readers (round trips and every malformed variant).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/npy_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/safetensors_test.cpp)
