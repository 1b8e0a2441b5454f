#pragma once
// Keeping the model settings possible while the user changes one of them: head counts that
// divide d_model, key/value groups that divide the head count. The panel shows the options;
// these helpers decide what the other settings become.
#include <string>
#include <vector>

#include "core/model/attention_config.h"

namespace hs::gui {

// The largest d_model the app's controls offer (typing stays responsive; the engine allows more).
constexpr int kMaxUiDModel = 1024;

// Head counts offered for this d_model: its divisors (capped at kMaxHeads).
std::vector<int> head_count_options(int d_model);

// Key/value group counts offered for `heads` query heads: divisors of heads, largest (MHA) first.
std::vector<int> kv_group_options(int heads);

// "MHA", "MQA" or "GQA" for G key/value heads out of H.
const char* kv_kind(int kv_heads, int heads);

// Changes d_model; without a decoupled width, the head count moves to the nearest divisor.
void set_d_model(AttentionConfig& c, int d_model);

// Changes the head count; key/value heads move to the nearest divisor of it.
void set_heads(AttentionConfig& c, int heads);

// Turns the decoupled head width on (keeping the current width) or off (back to d_model / heads).
void set_decoupled(AttentionConfig& c, bool on);

// Why only divisors: "8 / 3 is not whole: 3 heads cannot split d_model 8 evenly".
std::string heads_rule_text(int d_model);

}  // namespace hs::gui
