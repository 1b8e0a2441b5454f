# core/analysis: head difference / average / entropy, singular values, the head-count sweep, the
# analysis pipeline (run_analysis) and the views' data.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_stats_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/spectrum_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_sweep_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/run_analysis_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/query_profile_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_roles_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_ablation_test.cpp)
# The --knock-out head list: parsing and its error messages.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_list_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/rollout_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_clustering_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/corpus_roles_test.cpp)
# Zoomed regions: long-input rows recomputed exactly, against whole maps of the same run.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/map_region_test.cpp)
# Hand-built weights with a known job: the teaching model's heads against their role scores.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/hand_built_heads_test.cpp)
# Oracle: every role score recomputed in numpy from its definition, on maps of the PyTorch llama2.c
# reference (stories260K, its induction probe) and of a synthetic causal windowed layer.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.head_roles_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/head_roles_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.head_roles_vs_numpy PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Oracle: heads --null N. stories260K's random-weight models drawn again in NumPy from the stated
# initialisation, run through the PyTorch llama2.c reference, scored and pooled; the synthetic layer's
# null models are the layer with other seeds.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.null_roles_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/null_roles_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR} ${CMAKE_CURRENT_BINARY_DIR}/null-roles)
  set_tests_properties(analysis.null_roles_vs_numpy PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Oracle: head ablation (zero and mean) on stories260K against the PyTorch llama2.c reference with
# the same head knocked out.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.head_ablation_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/head_ablation_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.head_ablation_vs_torch PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Oracle: attention rollout of stories260K against numpy on the PyTorch reference's maps.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.rollout_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/rollout_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.rollout_vs_numpy PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/contrast_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/activation_patching_test.cpp)
# Two models on one input: next-token agreement by hand, the pair checks, the change's properties.
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/model_contrast_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/model_pair_memory_test.cpp)
# Oracle: minimal pairs (`compare`) on stories260K against numpy on the PyTorch reference's maps,
# and on the teaching model (only the heads that read the changed token move).
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.contrast_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/contrast_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.contrast_vs_numpy PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Oracle: two models on one input (`compare --model A --model-b B`) on stories260K's F32, Q8_0
# and Q4_0 GGUF files (fixture formats.gguf_test_files): each head's change against two `maps`
# runs in numpy, next-token KL against a float64 PyTorch pass, the same file twice, bad input.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.model_compare_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/model_compare_reference.py
                   $<TARGET_FILE:headscope-cli> ${PROJECT_BINARY_DIR}/gguf-test-files ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.model_compare_vs_numpy PROPERTIES LABELS "core;oracle" FIXTURES_REQUIRED gguf_test_files TIMEOUT 300)
endif()
# Reachable keys, rows that agree and the pattern fit: the head-width limit (issue 45).
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/head_reach_test.cpp)
headscope_add_gtest(${CMAKE_CURRENT_LIST_DIR}/pattern_fit_test.cpp)
# Oracle: reachable keys of synthetic layers of width 1, 2, 4, 8 and of stories260K (after RoPE)
# against SciPy's linprog and Qhull on keys computed in numpy / the PyTorch reference.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.reachable_keys_vs_scipy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/reachable_keys_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.reachable_keys_vs_scipy PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
# Oracle: logit differences and activation patching (`compare --target --versus --patch`) on
# stories260K and a tiny GPT-2 against PyTorch float64 references with the same context hook.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.patching_vs_torch
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/patching_reference.py
                   $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(analysis.patching_vs_torch PROPERTIES LABELS "core;oracle" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# Chance levels of the role scores: uniform attention's scores, recomputed from their definitions.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME analysis.role_chance_vs_numpy
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/role_chance_test.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/role-chance)
  set_tests_properties(analysis.role_chance_vs_numpy PROPERTIES LABELS "core;oracle" TIMEOUT 300)
endif()
