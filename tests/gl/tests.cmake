# The desktop app in a real window under xvfb-run (Mesa llvmpipe): screenshots whose heatmap
# pixels are checked against the engine's values and the shared colormap tables.
if(TARGET headscope)
  find_program(HEADSCOPE_XVFB_RUN xvfb-run)
  if(HEADSCOPE_XVFB_RUN)
    # Running the app under xvfb-run and checking its pixels, shared by every test below.
    add_library(headscope_gltest STATIC ${CMAKE_CURRENT_LIST_DIR}/screenshot_util.cpp)
    target_link_libraries(headscope_gltest PUBLIC headscope_core GTest::gtest nlohmann_json::nlohmann_json PkgConfig::IMGUI)
    target_compile_definitions(headscope_gltest PRIVATE HEADSCOPE_BINARY_DIR="${PROJECT_BINARY_DIR}"
      HEADSCOPE_APP="$<TARGET_FILE:headscope>" HEADSCOPE_XVFB_RUN="${HEADSCOPE_XVFB_RUN}")
    headscope_target_flags(headscope_gltest)
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/screenshot_test.cpp headscope_gltest)
    target_compile_definitions(screenshot_test PRIVATE
      HEADSCOPE_APP="$<TARGET_FILE:headscope>" HEADSCOPE_XVFB_RUN="${HEADSCOPE_XVFB_RUN}")
    target_link_libraries(screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(screenshot_test headscope)
    # stories260K with generated tokens (skips when HEADSCOPE_MODELS_DIR has no stories260K/).
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/model_screenshot_test.cpp headscope_gltest)
    target_compile_definitions(model_screenshot_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}"
      HEADSCOPE_APP="$<TARGET_FILE:headscope>" HEADSCOPE_XVFB_RUN="${HEADSCOPE_XVFB_RUN}")
    target_link_libraries(model_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(model_screenshot_test headscope)
    # The Ablation view on stories260K: head ablation off the UI thread, its map in diverging colours (issue 18).
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/ablation_screenshot_test.cpp headscope_gltest)
    target_compile_definitions(ablation_screenshot_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}"
      HEADSCOPE_APP="$<TARGET_FILE:headscope>" HEADSCOPE_XVFB_RUN="${HEADSCOPE_XVFB_RUN}")
    target_link_libraries(ablation_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(ablation_screenshot_test headscope)
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/lesson_screenshot_test.cpp headscope_gltest)
    target_compile_definitions(lesson_screenshot_test PRIVATE HEADSCOPE_MODELS_DIR="${HEADSCOPE_MODELS_DIR}"
      HEADSCOPE_APP="$<TARGET_FILE:headscope>" HEADSCOPE_XVFB_RUN="${HEADSCOPE_XVFB_RUN}")
    target_link_libraries(lesson_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(lesson_screenshot_test headscope)
    # No peak vanishes when a map is drawn on fewer pixels than cells (issue 14).
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/peaks_screenshot_test.cpp headscope_gltest)
    target_link_libraries(peaks_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(peaks_screenshot_test headscope)
    # A 3000-token input zoomed to exact cells in the window (issue 22).
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/zoom_screenshot_test.cpp headscope_gltest)
    target_link_libraries(zoom_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(zoom_screenshot_test headscope)
    # Masked cells are the masked colour in every view and lesson step, and every map has a colour bar.
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/mask_bars_screenshot_test.cpp headscope_gltest)
    target_link_libraries(mask_bars_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(mask_bars_screenshot_test headscope)
    # Chinese and Japanese drawn from the fallback font, not as boxes (issue 14).
    headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/fonts_screenshot_test.cpp headscope_gltest)
    target_link_libraries(fonts_screenshot_test PRIVATE nlohmann_json::nlohmann_json)
    add_dependencies(fonts_screenshot_test headscope)
    # The app against hostile input and environments (issue 15): a screenshot to /dev/full,
    # sessions and lessons that are /dev/zero or huge, no display, out-of-range flags.
    if(HEADSCOPE_TEST_PYTHON)
      add_test(NAME app_hostile_input
               COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/app_hostile_input.py
                       $<TARGET_FILE:headscope> ${HEADSCOPE_XVFB_RUN})
      set_tests_properties(app_hostile_input PROPERTIES LABELS "gl" TIMEOUT 300)
      # Round 2 (issue 28): nan and inf through float flags (--zoom crashed the minimap), and a
      # tokenizer regex that backtracks catastrophically (the app never came back).
      add_test(NAME app_hostile_flags
               COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/app_hostile_flags.py
                       $<TARGET_FILE:headscope> ${HEADSCOPE_XVFB_RUN})
      set_tests_properties(app_hostile_flags PROPERTIES LABELS "gl" TIMEOUT 300)
      # Settings when the config folder is missing, unmakeable or read-only, HOME unset, and two
      # instances saving at once (issue 54); the read-only case through tests/cli/write_fault_shim.c.
      add_test(NAME app_settings_faults
               COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/app_settings_faults.py
                       $<TARGET_FILE:headscope> ${HEADSCOPE_XVFB_RUN} $<TARGET_FILE:write_fault_shim>)
      set_tests_properties(app_settings_faults PROPERTIES LABELS "gl" TIMEOUT 300)
      # Two models in the Contrast view (issue 51): stories260K F32 against Q8_0 from the fixture
      # formats.gguf_test_files; the table's numbers against headscope-cli compare --json, a session
      # with the second model, the same file twice, refusals in the status line.
      if(TARGET headscope-cli)
        add_test(NAME app_model_pair
                 COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/model_pair_app.py
                         $<TARGET_FILE:headscope> $<TARGET_FILE:headscope-cli> ${HEADSCOPE_XVFB_RUN}
                         ${PROJECT_BINARY_DIR}/gguf-test-files)
        set_tests_properties(app_model_pair PROPERTIES LABELS "gl" TIMEOUT 600 FIXTURES_REQUIRED gguf_test_files)
        # A 2100-token text (issue 50): the overview of block maxima, one head's exact map against
        # export --whole-maps, the memory budget's refusal in the status line.
        add_test(NAME app_long_document
                 COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/long_document_app.py
                         $<TARGET_FILE:headscope> $<TARGET_FILE:headscope-cli> ${HEADSCOPE_XVFB_RUN})
        set_tests_properties(app_long_document PROPERTIES LABELS "gl" TIMEOUT 600)
      endif()
    endif()
    # The app's export of a log-scaled, first-key-ignored head equals the window, cell by cell.
    if(TARGET headscope_gui)
      headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/export_screen_test.cpp headscope_gltest headscope_gui)
      target_link_libraries(export_screen_test PRIVATE nlohmann_json::nlohmann_json)
      add_dependencies(export_screen_test headscope headscope-cli)
    endif()
  else()
    message(STATUS "xvfb-run not found (apt-get install xvfb): the gl screenshot tests are skipped")
  endif()
endif()
