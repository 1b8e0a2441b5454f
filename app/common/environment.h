#pragma once
// The HEADSCOPE_* environment switches that set core's limits, read by the programs (headscope
// and headscope-cli) at start and handed to core, which reads no environment itself:
//   HEADSCOPE_MAX_MAP_BYTES=N   bytes allowed for T x T maps (core/model/attention_layer.h
//                               max_map_bytes); unset, unreadable or not positive: the default.
namespace hs {

void apply_environment();

}  // namespace hs
