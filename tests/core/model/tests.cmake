# core/model: the attention layer's properties and a double-precision reference, shapes and
# parameter counts, the synthetic model and ModelRequest, the dense products of the pretrained forwards,
# RoPE and its scaling types.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/attention_layer_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/attention_config_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/synthetic_model_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/scrambled_reshape_test.cpp)
# The teaching model reads ordinary English: 21 sentences without <unk>, each wired head's job on them.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/teaching_vocabulary_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/compact_maps_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/transformer_ops_test.cpp)
# The next-token argmax a block at a time equals testing every value in order.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/argmax_block_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/rope_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/decoder_options_test.cpp)
# ModelRequest and AttentionConfig compare every field (their tie()); the sweep's own subset.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/model_request_equality_test.cpp)
# Attention maps made elsewhere, read from safetensors files.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/attention_file_test.cpp)
# Compact GGUF weights (reads the files of the fixture formats.gguf_test_files; see core/formats/tests.cmake).
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/quantized_matrix_test.cpp)
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/stories_gguf_test.cpp ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
# GGUF models end to end: stories260K's GGUF files against the llama2.c checkpoint, refusals.
headscope_add_gguf_gtest(${CMAKE_CURRENT_LIST_DIR}/gguf_loader_test.cpp ${PROJECT_SOURCE_DIR}/tests/core/pretrained/pretrained_test_util.cpp)
# Oracle: the teaching model's maps and next tokens against the scores docs/teaching-model.md
# states, written out in numpy from the tokens (no weights).
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME model.teaching_vs_docs
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/teaching_model_reference.py
                   $<TARGET_FILE:headscope-cli> ${PROJECT_SOURCE_DIR})
  set_tests_properties(model.teaching_vs_docs PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
# Ablation with one row of logits for a target (AblationLogits::measure_only) against every row, on
# stories260K and its Q8_0 GGUF (registered here: headscope_add_gguf_gtest comes from core/formats,
# included after core/analysis).
headscope_add_gguf_gtest(${PROJECT_SOURCE_DIR}/tests/core/analysis/head_ablation_rows_test.cpp)
# A layer's heads as one pass of stacked variants against one head per pass (and stacked layers
# against each sequence alone), on stories260K, its Q8_0 and Q4_0 GGUF and a random GPT-2.
headscope_add_gguf_gtest(${PROJECT_SOURCE_DIR}/tests/core/analysis/head_ablation_stacked_test.cpp)
