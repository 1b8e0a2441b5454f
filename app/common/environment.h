#pragma once
// The HEADSCOPE_* environment switches, read by the programs (headscope and headscope-cli) at
// start into core's runtime configuration (core/util/runtime_config.h); core reads no environment:
//   HEADSCOPE_MAX_MAP_BYTES=N   bytes allowed for T x T maps (core/model/attention_layer.h
//                               max_map_bytes); unset, unreadable or not positive: the default.
//   HEADSCOPE_KERNELS=portable|avx2   caps the kernels' instruction set (core/util/kernels.h).
//   HEADSCOPE_MEMORY_AVAILABLE=512M   the memory a model may take (core/util/memory_info.h).
//   HEADSCOPE_SHIPPED_MODELS=DIR      a folder holding stories260K/ (core/model/shipped_models.h).
// and where the shipped models are, for core (core/model/shipped_models.h): next to the program
// (DIR/models), then an installed or unpacked package's share folder (DIR/../share/headscope/models),
// then the install prefix's (CMAKE_INSTALL_PREFIX/share/headscope/models); a program run from the
// build folder it was built in also looks in the source tree's assets/models (an installed one
// never depends on a source checkout).
namespace hs {

void apply_environment();

}  // namespace hs
