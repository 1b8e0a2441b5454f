# The app's state, worker and panels without a window: an ImGui context with no renderer.
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/panels_test.cpp headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/gui_logic_test.cpp headscope_gui)
  # Exploring (issue 22): zoom to exact cells in long inputs, hover tokens, labels, chips, undo, keys.
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/explore_test.cpp headscope_gui)
  # A view agrees with what the user did: drag vs click, zoom per head, region range, Ctrl+S, texture versions.
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/view_coherence_test.cpp headscope_gui)
  # Opening checkpoints from the model panel (stories260K from HEADSCOPE_MODELS_DIR when present).
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/open_model_test.cpp headscope_gui)
  target_compile_definitions(open_model_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/classroom_test.cpp headscope_gui)
  # The Head width view: the pattern fit's job (progress, cancel, refusals) and the parts headless.
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/width_view_test.cpp headscope_gui)
  # Long-input mode: one head's exact map off the UI thread, Cancel, the memory budget (issue 50).
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/exact_head_test.cpp headscope_gui)
  # The font atlas: the characters in use, CJK from the fallback font (issue 14).
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/used_glyphs_test.cpp headscope_gui)
  # No lost work: the unsaved-changes guard, the popup and imgui.ini after a quit.
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/unsaved_guard_test.cpp headscope_gui)
  # 1500 random controls through the app's frame loop (HEADSCOPE_CONTROL_SEED, _STEPS to change).
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/control_fuzz_test.cpp headscope_gui)
  target_compile_definitions(control_fuzz_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
  # llama2.c's encoder on a pasted book: run.c's tokens, refused promptly (found by control_fuzz_test).
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/llama2c_long_text_test.cpp headscope_gui)
  target_compile_definitions(llama2c_long_text_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
endif()
# The app's export equals headscope-cli's for the same settings (needs the CLI binary).
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/export_parity_test.cpp headscope_gui)
  add_dependencies(export_parity_test headscope-cli)
  target_compile_definitions(export_parity_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
endif()
# Presentation mode (issue 19): maps that fill the window, labels of 18 px, the teacher's aids,
# lesson texts against the controls they unlock, the light theme.
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/presentation_test.cpp headscope_gui)
  target_compile_definitions(presentation_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
endif()
# The Ablation view (head ablation off the UI thread) and the clustered head order (issue 18).
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/ablation_view_test.cpp headscope_gui)
  target_compile_definitions(ablation_view_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
endif()
# The Contrast view's activation patching (off the UI thread, its grid, stale and stopped jobs).
if(TARGET headscope_gui)
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/patching_view_test.cpp headscope_gui)
  target_compile_definitions(patching_view_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
  # Two models in the Contrast view (issue 51): core's numbers, export, sessions, refusals.
  headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/model_pair_view_test.cpp headscope_gui)
  target_compile_definitions(model_pair_view_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}")
endif()
# Issue 30: every lesson step presenting at 1280x720, 1366x768 and 1920x1080 in both themes, its
# texts read back from the draw lists (in the presentation_test binary: one link, one process).
if(TARGET presentation_test)
  target_sources(presentation_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/present_layout_test.cpp)
endif()
# Issue 35's explorer details at 1280x720: toolbars that wrap, one layer control, the session list
# (in the panels_test binary: one link, one process).
if(TARGET panels_test)
  target_sources(panels_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/explorer_details_test.cpp)
  # Issue 44: no silent states (a selection out of range, a grid without room, impossible numbers,
  # the overview's key/value labels).
  target_sources(panels_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_silent_states_test.cpp)
endif()
