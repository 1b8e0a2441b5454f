#include "core/render/ablation_figure.h"

#include <algorithm>
#include <cmath>

#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"

namespace hs {

Figure ablation_figure(const RunAnalysis& analysis, const HeadAblation& ablation, const FigureStyle& style) {
  TableFigure t = layers_heads_table(ablation.delta_loss);  // [L, H] nats; NaN: not run
  float largest = 0;  // the bar spans [-largest, largest] (at least a small range, as the app)
  for (Eigen::Index i = 0; i < t.values.size(); ++i)
    if (!std::isnan(t.values.data()[i])) largest = std::max(largest, std::abs(t.values.data()[i]));
  t.bar.colormap = kAblationColormap;
  t.bar.hi = std::max(largest, 1e-6f);
  t.bar.lo = -t.bar.hi;
  t.bar.title = "\u0394 loss without the head (nats)";
  t.decimals = 3;
  t.title = figure_model_name(analysis.run) + " \u00b7 head ablation (" + ablation_mode_name(ablation.mode) +
            ") \u00b7 change in next-token loss";
  t.caption = "Mean next-token loss " + format_number(ablation.base_loss, 4) + " nats over " +
              std::to_string(ablation.base_logprob.size()) + " predictions with every head; each cell: the change with that " +
              "head knocked out (" + (ablation.mode == AblationMode::zero ? "its output set to 0" : "its output set to its mean") +
              "). Red: the loss rises without the head (it helps); blue: it falls." +
              (t.values.hasNaN() ? " Grey: not run." : "");
  return table_figure(t, style);
}

}  // namespace hs
