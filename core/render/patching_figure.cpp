#include "core/render/patching_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"

namespace hs {

float patching_range(const Map& share) {
  float largest = 1;
  for (Eigen::Index i = 0; i < share.size(); ++i)
    if (!std::isnan(share.data()[i])) largest = std::max(largest, std::abs(share.data()[i]));
  return largest;
}

Figure patching_figure(const RunAnalysis& a, const PairAnswer& answer, const FigureStyle& style) {
  assert(answer.patching && "a patching result");
  const HeadPatching& p = *answer.patching;
  TableFigure t = layers_heads_table(p.share);  // [L, H]; NaN: null or not run
  t.bar.colormap = kPatchingColormap;
  t.bar.hi = patching_range(p.share);
  t.bar.lo = -t.bar.hi;
  t.bar.title = "share of the gap restored";
  t.decimals = 2;
  const std::string ld = "logit(" + display_label(answer.target_token) + ") \u2212 logit(" + display_label(answer.versus_token) + ")";
  t.title = figure_model_name(a.run) + " \u00b7 activation patching \u00b7 " + ld;
  t.caption = ld + " after A " + format_number(p.logit_diff_a, 3) + ", after B " + format_number(p.logit_diff_b, 3) +
              ". Each cell: B's run with that head's output replaced by A's at " + std::to_string(p.positions.size()) +
              (answer.every_position ? " positions (every one)" : " aligned positions") +
              ", (LD patched \u2212 LD B) / (LD A \u2212 LD B). Red: the head carries A's difference; blue: it works against it." +
              (p.share.hasNaN() ? p.gap_too_small ? " Grey: no gap to restore (LD A = LD B)." : " Grey: not run." : "");
  return table_figure(t, style);
}

}  // namespace hs
