# core/export: figures decoded back (cairo reads the PNGs), data files.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/export_figure_test.cpp PkgConfig::CAIRO)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/export_data_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/export_layout_test.cpp PkgConfig::CAIRO)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/view_registry_test.cpp)
# core/export: provenance of exports, large files hashed over their header (issue 53).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/provenance_test.cpp nlohmann_json::nlohmann_json)
