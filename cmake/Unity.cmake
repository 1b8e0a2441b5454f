# Unity builds for headscope's library and program targets: each batch of up to 16 .cpp files of a
# target is compiled as one translation unit, so the headers they share (Eigen, the STL, CLI11,
# ImGui) are parsed and their templates instantiated once per batch instead of once per file.
# HEADSCOPE_UNITY (top-level CMakeLists.txt) is on by default and off with a compiler launcher such
# as ccache, which caches per file. docs/install.md has the measurements.
#
# headscope_unity(target [EXCLUDE file...]): with HEADSCOPE_UNITY, builds target in batches of 16.
# Stays out of the batches: every listed file (the SIMD kernels, whose functions carry their own
# target("avx2"/"avx512f") attributes and intrinsics headers) and every source with per-file
# compile options, flags or definitions (a batch compiles with one set). Call it from the
# directory that set those per-file properties, after setting them.
function(headscope_unity target)
  if(NOT HEADSCOPE_UNITY)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "EXCLUDE")
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  foreach(file ${arg_EXCLUDE})
    set_source_files_properties(${file} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endforeach()
  get_target_property(sources ${target} SOURCES)
  foreach(file ${sources})
    foreach(property COMPILE_OPTIONS COMPILE_FLAGS COMPILE_DEFINITIONS)
      get_source_file_property(value ${file} ${property})
      if(value)
        set_source_files_properties(${file} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endforeach()
endfunction()
