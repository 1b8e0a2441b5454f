# headscope-cli driven from Python (Debian's /usr/bin/python3): the PyTorch parity oracle and
# the contract / bad-input checks. Both are labelled "cli"; the oracle also "oracle".
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_torch_parity
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/torch_parity.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_torch_parity PROPERTIES LABELS "cli;oracle" TIMEOUT 300)
  add_test(NAME cli_contract
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cli_contract.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_contract PROPERTIES LABELS "cli" TIMEOUT 300)
else()
  message(WARNING "python3 not found in /usr/bin: the headscope-cli oracle and contract tests are not registered")
endif()
# Hostile input (issue 15): extreme flags, devices, broken checkpoints, planted symlinks, signals.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_hostile_input
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile_input.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_hostile_input PROPERTIES LABELS "cli" TIMEOUT 120)
  # Hostile JSON (issue 28): nesting past 512 levels in every JSON file, 1 MB values in messages,
  # 10^5 tensors and added tokens (quadratic parsing before).
  add_test(NAME cli_hostile_json
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile_json.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_hostile_json PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# Hostile files, round 2 (issue 28): nan through float flags, regex backtracking, FIFOs and
# /dev/zero, decompression and normalisation bombs, corpus counts that overflow.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_hostile_files
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile_files.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_hostile_files PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# headscope-cli heads and the maps JSON's head_roles (issue 18).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_heads
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/heads_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(cli_heads PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# headscope-cli heads --corpus / --shard / --merge (issue 18): role statistics over a corpus.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_heads_corpus
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/heads_corpus_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(cli_heads_corpus PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# The long-input report's digits and notes, and `maps --json --long-input` against numpy (issue 22).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_long_input
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/long_input_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_long_input PROPERTIES LABELS "cli" TIMEOUT 120)
endif()
# Maps where they are asked for (issue 50): one layer's / head's maps of a long input, kept alone,
# equal the full-memory run's (a small random qwen2 GGUF at T = 2100); the memory limit counts them.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_kept_maps
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/kept_maps_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_kept_maps PROPERTIES LABELS "cli;oracle" TIMEOUT 300)
endif()
# Command-line mistakes answered in sentences, with "did you mean" (both programs), and --help in groups.
if(HEADSCOPE_TEST_PYTHON)
  set(HEADSCOPE_FRIENDLY_PROGRAMS $<TARGET_FILE:headscope-cli>)
  if(TARGET headscope)
    list(APPEND HEADSCOPE_FRIENDLY_PROGRAMS $<TARGET_FILE:headscope>)
  endif()
  add_test(NAME cli_friendly_flags
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/friendly_flags.py ${HEADSCOPE_FRIENDLY_PROGRAMS})
  set_tests_properties(cli_friendly_flags PROPERTIES LABELS "cli" TIMEOUT 60)
endif()
# headscope-cli tokens: a tokenizer without its model (tokenizer-only folder, GGUF,
# llama2.c), tokenizer_config.json's add_bos_token / add_eos_token.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_tokens
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tokens_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(cli_tokens PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# One flag vocabulary (issue 44): every flag two commands share means the same and takes the same
# values in both programs, read from their own --help; aliases say what to use.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_shared_flags
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/shared_flags.py ${HEADSCOPE_FRIENDLY_PROGRAMS})
  set_tests_properties(cli_shared_flags PROPERTIES LABELS "cli" TIMEOUT 300)
endif()
# The machine misbehaving (issue 54): ENOSPC / EDQUOT / EROFS from an LD_PRELOAD shim (a test
# target), a full tmpfs where mounting is allowed, a GGUF file truncated while a run reads it, an
# 8B-class file under `prlimit --as` 3 GiB. Reads stories260K_f32.gguf of formats.gguf_test_files.
add_library(write_fault_shim SHARED ${CMAKE_CURRENT_LIST_DIR}/write_fault_shim.c)
target_link_libraries(write_fault_shim PRIVATE ${CMAKE_DL_LIBS})
# Never sanitized (HEADSCOPE_SANITIZE adds its flags to every target): it is preloaded into
# programs without a sanitizer runtime too (xvfb-run's shell, Xvfb).
set_target_properties(write_fault_shim PROPERTIES COMPILE_OPTIONS "" LINK_OPTIONS "")
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_machine_faults
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/machine_faults.py $<TARGET_FILE:headscope-cli>
                   $<TARGET_FILE:write_fault_shim> ${PROJECT_BINARY_DIR}/gguf-test-files)
  set_tests_properties(cli_machine_faults PROPERTIES LABELS "cli" TIMEOUT 300 FIXTURES_REQUIRED gguf_test_files)
endif()
# headscope-cli ablate's progress line (terminal or --progress) and Ctrl+C (exit 130, nothing written) (issue 49).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME cli_ablate_progress
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/ablate_progress_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(cli_ablate_progress PROPERTIES LABELS "cli" TIMEOUT 120)
endif()
