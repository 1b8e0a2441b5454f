# Pretrained checkpoints (llama2.c, GPT-2 and Llama Hugging Face folders) and their tokenizers.
# Labels: core, pretrained. The real models are read from HEADSCOPE_MODELS_DIR (cache variable,
# overridden at run time by the environment variable of the same name); tests that need them
# skip with the reason when they are absent.
set(HEADSCOPE_PRETRAINED_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})

function(headscope_add_pretrained_gtest source)
  get_filename_component(name ${source} NAME_WE)
  add_executable(${name} ${source} ${ARGN})
  target_link_libraries(${name} PRIVATE headscope_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    HEADSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    HEADSCOPE_BINARY_DIR="${PROJECT_BINARY_DIR}"
    HEADSCOPE_MODELS_DIR_DEFAULT="${HEADSCOPE_MODELS_DIR}")
  headscope_target_flags(${name})
  headscope_test_pch(${name})
  # gtest_discover_tests flattens a list-valued LABELS property, so the labels are set by a
  # second include file that runs after the discovered tests are defined.
  gtest_discover_tests(${name} TEST_LIST ${name}_TESTS DISCOVERY_TIMEOUT 60)
  set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${label_file} "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"core;pretrained\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
endfunction()

foreach(test llama2c_test gpt2_tokenizer_test hf_folder_test hf_families_test hf_encoders_test special_tokens_test tokenizer_json_test
             compact_pretrained_test head_distance_test checkpoint_cache_test prefix_cache_test kept_maps_test)
  headscope_add_pretrained_gtest(${HEADSCOPE_PRETRAINED_TEST_DIR}/${test}.cpp ${HEADSCOPE_PRETRAINED_TEST_DIR}/pretrained_test_util.cpp)
endforeach()
# The shipped models (issue 19): stories260K in assets/models, the teaching model, by name.
headscope_add_pretrained_gtest(${HEADSCOPE_PRETRAINED_TEST_DIR}/shipped_models_test.cpp
                               ${HEADSCOPE_PRETRAINED_TEST_DIR}/pretrained_test_util.cpp)
# Head roles on stories260K (issue 18).
headscope_add_pretrained_gtest(${HEADSCOPE_PRETRAINED_TEST_DIR}/head_roles_stories_test.cpp
                               ${HEADSCOPE_PRETRAINED_TEST_DIR}/pretrained_test_util.cpp)

# Live oracle: an independent PyTorch implementation of the documented forward pass
# (Debian's python3-torch) against `headscope-cli maps --model ... --json -`.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME pretrained.llama2c_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${HEADSCOPE_PRETRAINED_TEST_DIR}/llama2c_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(pretrained.llama2c_vs_torch PROPERTIES LABELS "core;pretrained" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# Tiny random gpt2 / llama folders in the real layouts (written into the build tree by the
# script, never committed) against PyTorch implementations of both architectures.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME pretrained.hf_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${HEADSCOPE_PRETRAINED_TEST_DIR}/hf_reference.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/hf-reference ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(pretrained.hf_vs_torch PROPERTIES LABELS "core;pretrained" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# One tiny random folder per decoder family (qwen2, qwen3, mistral, phi3, gemma, gemma2, gemma3,
# llama with each rope_scaling type) against a PyTorch float64 reference per family.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME pretrained.hf_families_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${HEADSCOPE_PRETRAINED_TEST_DIR}/hf_families_reference.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/hf-families-reference ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(pretrained.hf_families_vs_torch PROPERTIES LABELS "core;pretrained" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# GGUF files of every architecture (llama, qwen2, qwen3, phi3, gemma, gemma2, gemma3) converted in
# Python with llama.cpp's conventions from tiny random folders of the families above, in several
# tensor types: each against a twin folder of the weights it encodes (1e-5), the family's PyTorch
# reference (1e-4) and, quantized, the float folder (a bound per type).
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME pretrained.gguf_families_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${HEADSCOPE_PRETRAINED_TEST_DIR}/gguf_families_reference.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/gguf-families-reference ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(pretrained.gguf_families_vs_torch PROPERTIES LABELS "core;pretrained" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()

# One tiny random folder per encoder family (bert, roberta, xlm-roberta, distilbert, electra,
# modernbert) against a PyTorch float64 reference per family, sentence pairs and token types included.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME pretrained.hf_encoders_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${HEADSCOPE_PRETRAINED_TEST_DIR}/hf_encoder_reference.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/hf-encoder-reference ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(pretrained.hf_encoders_vs_torch PROPERTIES LABELS "core;pretrained" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
