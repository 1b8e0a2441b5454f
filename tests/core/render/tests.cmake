# core/render: colour rule and figure pieces (cairo reads the PNGs back).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/colour_scale_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/peak_reduce_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/figure_parts_test.cpp PkgConfig::CAIRO)
# core/render: figures past cairo's limits are refused, never drawn into a NULL buffer.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/figure_limits_test.cpp PkgConfig::CAIRO)
