# tools/: the attention exporter's code path (fake Hugging Face and TransformerLens outputs made of
# PyTorch tensors) written as .safetensors and .npz and opened by headscope-cli maps and export.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME tools.export_attention
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/export_attention_test.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/export-attention)
  set_tests_properties(tools.export_attention PROPERTIES LABELS "cli" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
