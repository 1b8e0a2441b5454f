# Warnings and build flavours for headscope's own targets (never third-party code).

# headscope_precompile(target header...): with HEADSCOPE_PCH, the target's sources start from these
# headers compiled once (files with their own compile options keep their plain includes).
function(headscope_precompile target)
  if(HEADSCOPE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
function(headscope_target_flags target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
  if(HEADSCOPE_NATIVE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
endfunction()

if(HEADSCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(HEADSCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "HEADSCOPE_FUZZ needs clang: configure with CC=clang-14 CXX=clang++-14 (apt-get install clang-14 libclang-rt-14-dev)")
  endif()
  # Every object gets coverage instrumentation and sanitizers; the harnesses add -fsanitize=fuzzer.
  # UBSan findings stop the harness (a crash file), as ASan's do, instead of scrolling past.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
