#pragma once
// Export of the whole maps a long-input run kept (AnalysisOptions::keep: `headscope-cli export
// --layer L [--head H] --whole-maps --out F.npy` on a long text). The run streamed every other head
// and holds exactly these [T, T] maps (run.kept), so the .npy is written from them, streamed to the
// file without a second copy:
//   --head H    [T, T]              that head's map
//   --layer L   [1, n_heads, T, T]  every head of layer L (as a whole-maps run's export --layer L)
#include <ostream>

#include "core/export/export.h"

namespace hs {

// True when `spec` is a .npy of the heads, head or heatmap view whose layer (and head) the run
// kept whole: export writes it from run.kept instead of the block maxima.
bool exports_kept_maps(const RunAnalysis& analysis, const ExportSpec& spec);

// The .npy file of those maps into `out` (header, then the float32 maps in C order).
void write_kept_maps_npy(std::ostream& out, const AttentionRun& run, const ExportSpec& spec);

}  // namespace hs
