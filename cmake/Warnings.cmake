# Warnings and build flavours for headscope's own targets (never third-party code).
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
