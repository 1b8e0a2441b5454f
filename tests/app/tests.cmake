# The app's state, worker and panels without a window: an ImGui context with no renderer.
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/panels_test.cpp headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/gui_logic_test.cpp headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/classroom_test.cpp headscope_gui)
endif()
