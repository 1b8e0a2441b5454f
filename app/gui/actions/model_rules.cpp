#include "app/gui/actions/model_rules.h"

#include <algorithm>
#include <cstdlib>

#include "app/gui/widgets/labels.h"
#include "core/analysis/head_sweep.h"

namespace hs::gui {
namespace {

int nearest(const std::vector<int>& options, int value) {
  int best = options.empty() ? 1 : options.front();
  for (int o : options)
    if (std::abs(o - value) < std::abs(best - value)) best = o;
  return best;
}

}  // namespace

std::vector<int> head_count_options(int d_model) {
  std::vector<int> d = d_model > 0 ? head_count_divisors(d_model) : std::vector<int>{1};
  d.erase(std::remove_if(d.begin(), d.end(), [](int h) { return h > kMaxHeads; }), d.end());
  return d;
}

std::vector<int> kv_group_options(int heads) {
  std::vector<int> d = heads > 0 ? head_count_divisors(heads) : std::vector<int>{1};
  std::reverse(d.begin(), d.end());
  return d;
}

const char* kv_kind(int kv_heads, int heads) {
  if (kv_heads >= heads) return "MHA";
  if (kv_heads == 1) return "MQA";
  return "GQA";
}

void set_d_model(AttentionConfig& c, int d_model) {
  c.d_model = std::clamp(d_model, 1, kMaxUiDModel);
  if (c.d_head == 0) set_heads(c, nearest(head_count_options(c.d_model), c.n_heads));
}

void set_heads(AttentionConfig& c, int heads) {
  const int old_kv = c.kv_heads(), old_heads = c.n_heads;
  c.n_heads = std::clamp(heads, 1, kMaxHeads);
  if (c.n_kv_heads == 0 || old_kv >= old_heads) {
    c.n_kv_heads = 0;  // stays plain multi-head attention
  } else {
    c.n_kv_heads = nearest(kv_group_options(c.n_heads), old_kv);
    if (c.n_kv_heads == c.n_heads) c.n_kv_heads = 0;
  }
}

void set_decoupled(AttentionConfig& c, bool on) {
  if (on) {
    c.d_head = std::max(c.head_width(), 1);
  } else {
    c.d_head = 0;
    set_heads(c, nearest(head_count_options(c.d_model), c.n_heads));
  }
}

std::string heads_rule_text(int d_model) {
  return format("Each head gets d_model / heads dimensions, so the head count must divide d_model (%d). "
                "Turn on a decoupled head width to pick any count.",
                d_model);
}

}  // namespace hs::gui
