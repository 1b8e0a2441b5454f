#include "core/analysis/sweep_summary.h"

#include "core/util/format.h"

namespace hs {

std::vector<std::string> sweep_summary(const Sweep& sweep) {
  std::vector<std::string> lines;
  if (!sweep.available || sweep.points.empty()) return lines;
  const SweepPoint &first = sweep.points.front(), &last = sweep.points.back();
  bool same_params = true;
  for (const SweepPoint& p : sweep.points) same_params = same_params && p.param_count == first.param_count;
  if (same_params)
    lines.push_back(format("Parameters: %s at every head count. Splitting d_model into heads re-slices the same weights.",
                           format_count(first.param_count).c_str()));
  lines.push_back(format("Score rank: Q K^T of a head of width d_head has rank at most d_head. Measured: %.1f with %d head%s "
                         "(d_head %d), %.1f with %d heads (d_head %d).%s",
                         double(first.mean_score_rank), first.n_heads, first.n_heads == 1 ? "" : "s", first.d_head,
                         double(last.mean_score_rank), last.n_heads, last.d_head,
                         sweep.masked ? " (Q K^T before the mask; the masked matrix, its cells taken as 0, can have a higher rank.)"
                                      : ""));
  if (sweep.points.size() >= 3) {
    const SweepPoint& two = sweep.points[1];
    const float narrow = last.mean_head_distance, wide = two.mean_head_distance;
    const char* verdict = narrow > wide * 1.05f ? "more than" : (narrow < wide * 0.95f ? "less than" : "about as much as");
    lines.push_back(format("Head distance: %d heads of width %d are %.3f apart on average; %d heads of width %d, %.3f. "
                           "Here the narrowest heads differ %s wider ones%s",
                           last.n_heads, last.d_head, double(narrow), two.n_heads, two.d_head, double(wide), verdict,
                           narrow > wide * 1.05f ? ": they do not all look alike." : "."));
  }
  lines.push_back(format("Row entropy: %.2f nats with %d head%s, %.2f with %d (lower = sharper attention).",
                         double(first.mean_entropy), first.n_heads, first.n_heads == 1 ? "" : "s",
                         double(last.mean_entropy), last.n_heads));
  return lines;
}

}  // namespace hs
