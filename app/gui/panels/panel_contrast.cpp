// Contrast: a minimal pair. The sentence (A) and the "compare with" sentence (B) run through the
// same model; their tokens are aligned (core/analysis/contrast.h). The panel shows the alignment,
// the next-token prediction after each, the heads of the layer sorted by how much their rows moved,
// that change for every layer and head, and the selected head's maps for A and B on one colour
// scale beside B - A over the tokens both have.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/contrast_patching.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/spinner.h"
#include "app/gui/widgets/theme.h"
#include "core/render/contrast_figure.h"
#include "core/util/format.h"

namespace hs::gui {
namespace {

constexpr Colormap kChangeColours = Colormap::magma;

const char* const kChangeHelp =
    "Change: for each query position both sentences have (the same token, or one replaced by another), half the "
    "summed |A \xE2\x88\x92 B| of its row over the aligned keys (a key only one sentence has counts with 0 on the "
    "other side): 0 = the row did not move, 1 = it moved to entirely different keys. Averaged over those positions "
    "from the first change on (in a causal model the rows before it cannot move).";

// The alignment as coloured words: shared tokens plain, replaced "A\xE2\x86\x92" "B", only-in-A struck, only-in-B marked +.
void draw_alignment(const TokenAlignment& al, const std::vector<std::string>& raw_a, const std::vector<std::string>& raw_b) {
  ImGui::TextDisabled("aligned:");
  std::vector<std::string> a, b;  // as the axes label them
  for (size_t i = 0; i < raw_a.size(); ++i) a.push_back(display_token(raw_a, i));
  for (size_t i = 0; i < raw_b.size(); ++i) b.push_back(display_token(raw_b, i));
  for (const AlignStep& s : al.steps) {
    // Words wrap onto the next line rather than run past the panel's edge.
    const std::string word = s.op == AlignOp::same       ? a[size_t(s.a)]
                             : s.op == AlignOp::replaced ? a[size_t(s.a)] + "\xE2\x86\x92" + b[size_t(s.b)]
                             : s.op == AlignOp::deleted  ? "\xE2\x88\x92" + a[size_t(s.a)]
                                                         : "+" + b[size_t(s.b)];
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.35f);
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(word.c_str()).x) ImGui::NewLine();
    switch (s.op) {
      case AlignOp::same: ImGui::TextUnformatted(a[size_t(s.a)].c_str()); break;
      case AlignOp::replaced:
        ImGui::TextColored(tone(Tone::warning), "%s\xE2\x86\x92%s", a[size_t(s.a)].c_str(), b[size_t(s.b)].c_str());
        break;
      case AlignOp::deleted: ImGui::TextColored(tone(Tone::error), "\xE2\x88\x92%s", a[size_t(s.a)].c_str()); break;
      case AlignOp::inserted: ImGui::TextColored(tone(Tone::success), "+%s", b[size_t(s.b)].c_str()); break;
    }
    if (ImGui::IsItemHovered() && s.op != AlignOp::same)
      ImGui::SetTooltip("%s", s.op == AlignOp::replaced ? "replaced: A's token \xE2\x86\x92 B's, at one position"
                              : s.op == AlignOp::deleted ? "only in A" : "only in B");
  }
}

// The layer's heads, most changed first; clicking one selects it. With a patching result, each
// head's share of the logit difference gap too.
void head_table(AppState& state, const ContrastResult& c, const AttentionRun& a, const PairAnswer* patched, int layer, ImVec2 size) {
  const std::vector<HeadChange>& heads = c.heads[size_t(layer)];
  std::vector<int> order(heads.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return heads[size_t(x)].distance > heads[size_t(y)].distance; });
  const float top = std::max_element(heads.begin(), heads.end(), [](const HeadChange& x, const HeadChange& y) {
                      return x.distance < y.distance;
                    })->distance;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingStretchProp;
  const int columns = patched ? 5 : 4;
  if (!ImGui::BeginTable("contrast heads", columns, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("head", 0, 0.7f);
  ImGui::TableSetupColumn("change", 0, 1.0f);
  ImGui::TableSetupColumn("most moved row", 0, 1.7f);
  ImGui::TableSetupColumn("onto changed", 0, 1.3f);
  if (patched) ImGui::TableSetupColumn("patching", 0, 1.1f);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  const char* const tips[] = {nullptr, kChangeHelp,
                              "The query token whose row moved most, and how far (0 to 1).",
                              "Weight the compared query rows put on the changed tokens: in B minus in A (positive: "
                              "the head looks more at what changed).",
                              "Activation patching: the share of the logit difference gap (A \xE2\x88\x92 B) this head "
                              "restores when its output in B is A's (1: all of it)."};
  for (int col = 0; col < columns; ++col) {
    ImGui::TableSetColumnIndex(col);
    ImGui::TableHeader(ImGui::TableGetColumnName(col));
    if (tips[col] && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tips[col]);
  }
  for (const int h : order) {
    const HeadChange& hc = heads[size_t(h)];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable(format("h%d##contrast%d", h, h).c_str(), h == state.head, ImGuiSelectableFlags_SpanAllColumns))
      state.head = h;
    ImGui::TableNextColumn();
    coloured_value_cell(kChangeColours, top > 0 ? hc.distance / top : 0.0f, format("%.3f", double(hc.distance)).c_str());
    ImGui::TableNextColumn();
    const int row = hc.max_row_step >= 0 ? c.alignment.steps[size_t(hc.max_row_step)].a : -1;
    ImGui::Text("%.3f  %s", double(hc.max_row), row >= 0 ? display_token(a.tokens, size_t(row)).c_str() : "-");
    ImGui::TableNextColumn();
    const float moved = hc.changed_b - hc.changed_a;
    if (std::abs(moved) < 0.0005f) ImGui::TextUnformatted("0");  // never "-0.000"
    else ImGui::Text("%+.3f", double(moved));
    if (!patched) continue;
    ImGui::TableNextColumn();
    const float share = patched->patching->share(layer, h);
    if (std::isnan(share)) ImGui::TextDisabled("null");
    else if (std::abs(share) < 0.0005f) ImGui::TextUnformatted("0");
    else ImGui::Text("%+.3f", double(share));
  }
  ImGui::EndTable();
}

// Every layer x head's change; a click selects that layer and head. `title`: a line above ("" none).
void change_grid(AppState& state, const UiContext& ui, const Map& grid, ImVec2 size, const char* title) {
  std::vector<std::string> rows, cols;
  for (Eigen::Index l = 0; l < grid.rows(); ++l) rows.push_back(format("L%d", int(l)));
  for (Eigen::Index h = 0; h < grid.cols(); ++h) cols.push_back(format("h%d", int(h)));
  const float top = std::max(grid.maxCoeff(), 1e-6f);
  HeatmapSpec spec = heatmap_spec("contrast change", map_version(ui.derived->generation, -1, -1, 7001), plain_map(grid),
                                  scale_range(ColourScale{}, top), kChangeColours);
  spec.row_labels = &rows;
  spec.col_labels = &cols;
  // The head hovered in the heads table (last frame) is marked here, else the selected one.
  const int ll = state.contrast.linked_layer, lh = state.contrast.linked_head;
  const bool linked = ll >= 0 && ll < grid.rows() && lh >= 0 && lh < grid.cols();
  spec.highlight_row = linked ? ll : state.layer;
  spec.highlight_col = linked ? lh : state.head;
  ImGui::BeginGroup();  // the title over the map and its bar
  float title_h = 0;
  if (*title) ImGui::TextDisabled("%s", title), title_h = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginGroup();
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(size.x - colour_bar_width(), size.y - title_h));
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_colour_bar(ui, spec.range, kChangeColours, ImVec2(colour_bar_width(), size.y - title_h));
  ImGui::EndGroup();
  if (hit.hovered && hit.row >= 0) {
    ImGui::SetTooltip("L%d h%d: change %.4f\n(click: show this head)", hit.row, hit.col, double(grid(hit.row, hit.col)));
    if (hit.clicked) state.layer = hit.row, state.head = hit.col;
    state.contrast.hovered_layer = int(hit.row), state.contrast.hovered_head = int(hit.col);
  }
}

// A, B on one range and B - A, the selected head; hovering a token's row in one shows the same
// token's row in the others.
// `names`: what A and B are ("A", "B"; two models: each model's name).
struct PairNames {
  std::string a = "A", b = "B";
};

void head_maps(AppState& state, const UiContext& ui, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& c,
               ImVec2 size, const PairNames& names = {}) {
  const Derived& d = *ui.derived;
  const int layer = state.layer, head = state.head;
  const ShownMap ma = head_map(a.run, layer, head), mb = head_map(b.run, layer, head);
  const float top = std::max(ma.cells->maxCoeff(), mb.cells->maxCoeff());
  const ScaleRange shared = scale_range(ColourScale{}, std::max(top, 1e-6f));
  const Map diff = difference_map(*ma.cells, *mb.cells, c.alignment);  // [P, P], P = paired steps
  const std::vector<int> paired = c.alignment.paired_steps();
  const std::vector<std::string> diff_labels = paired_labels(c.alignment, a.map_labels, b.map_labels);
  ShownMap md{&diff, {}, int(diff.rows())};
  md.mask.causal = ma.mask.causal;  // token order is kept, so a causal mask holds; a window's does not
  ColourScale signed_scale;
  signed_scale.colormap = kContrastColormap;
  const ScaleRange diff_range = scale_range(signed_scale, std::max(diff.cwiseAbs().maxCoeff(), 1e-6f));
  // The hovered step (last frame) as a row of each map.
  const int step = state.contrast.hovered_step;
  const AlignStep* hs = step >= 0 && size_t(step) < c.alignment.steps.size() ? &c.alignment.steps[size_t(step)] : nullptr;
  const int hp = hs ? int(std::find(paired.begin(), paired.end(), step) - paired.begin()) : -1;
  state.contrast.hovered_step = -1;
  struct Part {
    const char* key;
    std::string title;
    ShownMap map;
    ScaleRange range;
    Colormap colours;
    const std::vector<std::string>* labels;
    int highlight;
  };
  const Part parts[] = {
      // Each block names its model and layer, as every other block does: "A  L1 h0 (teaching model, layer 1)".
      {"contrast a", names.a + "  " + head_name(layer, head, a.run.n_layers()) + " (" + block_source(a, layer) + ")", ma, shared,
       state.scale.colormap, &a.map_labels, hs ? hs->a : -1},
      {"contrast b", names.b + " (" + block_source(b, layer) + ")", mb, shared, state.scale.colormap, &b.map_labels, hs ? hs->b : -1},
      {"contrast diff", "B \xE2\x88\x92 A  (tokens both have)", md, diff_range, kContrastColormap, &diff_labels,
       hp < int(paired.size()) ? hp : -1},
  };
  const float f = ImGui::GetFontSize(), bar_h = colour_bar_across_height();
  const float w = (size.x - ImGui::GetStyle().ItemSpacing.x * 2) / 3.0f;
  // The titles wrap between words over their map's width; the maps start below the tallest.
  float title_h = 0;
  for (const Part& p : parts) title_h = std::max(title_h, ImGui::CalcTextSize(p.title.c_str(), nullptr, false, w).y);
  for (int i = 0; i < 3; ++i) {
    if (i > 0) ImGui::SameLine();
    ImGui::BeginGroup();
    const ImVec2 title_at = ImGui::GetCursorScreenPos();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::TextUnformatted(parts[i].title.c_str());
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(title_at.x, title_at.y + title_h + ImGui::GetStyle().ItemSpacing.y));
    HeatmapSpec spec = heatmap_spec(parts[i].key, map_version(d.generation, layer, head, 7100 + i), parts[i].map,
                                    parts[i].range, parts[i].colours, i < 2 ? layer : -1, i < 2 ? head : -1);
    spec.row_labels = spec.col_labels = parts[i].labels;
    spec.highlight_row = parts[i].highlight;
    spec.label_font_max = f * 0.85f;
    if (state.present.active) {  // readable from the back: never under 20 px, thinned instead
      spec.label_font_min = present_label_min();
      spec.label_font_max = std::max(spec.label_font_max, spec.label_font_min);
    }
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(w, size.y - title_h - f * 0.9f - bar_h));
    if (i != 1) draw_colour_bar_across(ui, parts[i].range, parts[i].colours, ImVec2(std::min(w, f * 18), bar_h));
    if (hit.hovered && hit.row >= 0) {
      // Back to an alignment step, so the other maps can show the same token's row.
      int s = -1;
      for (size_t k = 0; k < c.alignment.steps.size() && s < 0; ++k) {
        const AlignStep& st = c.alignment.steps[k];
        if ((i == 0 && st.a == hit.row) || (i == 1 && st.b == hit.row) || (i == 2 && int(k) == paired[size_t(hit.row)])) s = int(k);
      }
      state.contrast.hovered_step = s;
      const float v = (*parts[i].map.cells)(hit.row, hit.col);
      ImGui::SetTooltip("%s \xE2\x86\x92 %s\n%s %s", (*parts[i].labels)[size_t(hit.row)].c_str(),
                        (*parts[i].labels)[size_t(hit.col)].c_str(), i == 2 ? "B \xE2\x88\x92 A" : "weight",
                        format_weight(v).c_str());
    }
    ImGui::EndGroup();
  }
}

// Presenting: the maps take the room; the heads most changed are one line of buttons instead of
// the table and the layers x heads grid.
void most_changed_line(AppState& state, const ContrastResult& c, int n_layers) {
  struct Entry { int layer, head; float change; };
  std::vector<Entry> all;
  for (size_t l = 0; l < c.heads.size(); ++l)
    for (size_t h = 0; h < c.heads[l].size(); ++h) all.push_back({int(l), int(h), c.heads[l][h].distance});
  std::stable_sort(all.begin(), all.end(), [](const Entry& x, const Entry& y) { return x.change > y.change; });
  // After the alignment on its line when there is room, else on the next.
  const std::string label = format("%s %.3f", head_name(all[0].layer, all[0].head, n_layers).c_str(), double(all[0].change));
  const float need = ImGui::CalcTextSize("most changed").x + 3 * (ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFontSize() * 1.2f);
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
  ImGui::TextDisabled("most changed");
  for (size_t i = 0; i < all.size() && i < 3; ++i) {
    ImGui::SameLine();
    const Entry& e = all[i];
    const bool selected = e.layer == state.layer && e.head == state.head;
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    if (ImGui::SmallButton(format("%s %.3f##most%zu", head_name(e.layer, e.head, n_layers).c_str(), double(e.change), i).c_str()))
      state.layer = e.layer, state.head = e.head;
    if (selected) ImGui::PopStyleColor();
  }
}

// The model's next token after the last one, said for a class: the teaching model's unknown-word
// token is "no word it knows" (its small vocabulary), not a prediction to read as a word.
std::string prediction_text(const AttentionRun& run) {
  if (run.next_tokens.back() == "<unk>") return "<unk> (no word it knows)";
  return display_token(run.next_tokens, run.next_tokens.size() - 1);
}

void draw_prediction(const AttentionRun& a, const AttentionRun& b) {
  if (a.next_tokens.empty() || b.next_tokens.empty()) return;
  ImGui::TextDisabled("next token after A:");
  ImGui::SameLine();
  ImGui::TextUnformatted(prediction_text(a).c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  ImGui::TextDisabled("after B:");
  ImGui::SameLine();
  ImGui::TextUnformatted(prediction_text(b).c_str());
  if (!std::isfinite(a.last_token_log_prob) || !std::isfinite(b.last_token_log_prob)) return;
  // The log-probabilities on this line while they fit, else on the next (never cut at the panel's edge).
  const std::string log_p = format("A %s %.2f   B %s %.2f", display_token(a.tokens, a.tokens.size() - 1).c_str(),
                                   double(a.last_token_log_prob), display_token(b.tokens, b.tokens.size() - 1).c_str(),
                                   double(b.last_token_log_prob));
  const char* label = "log p of the last token:";
  same_line_if_fits(text_width(label) + ImGui::GetStyle().ItemSpacing.x + text_width(log_p.c_str()), ImGui::GetFontSize() * 1.5f);
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine();
  ImGui::TextUnformatted(log_p.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("How likely the model found each sentence's last token after the tokens before it, in nats\n"
                      "(0: certain; each -0.69 halves the probability). Did the model notice the change?");
}


// --- Two models on one input (--model-b, Model > Compare with model...) ---

const char* const kModelChangeHelp =
    "Change: for each query row, half the summed |A \xE2\x88\x92 B| over its keys (the total variation between the "
    "head's row in model A and in model B), averaged over every query row: 0 = the same weights, 1 = no key in "
    "common. No chance level to subtract: the same file twice gives exactly 0. A causal model's first row has one key "
    "and cannot move, so a short input pulls the mean down by up to 1/T. The numbers of headscope-cli compare "
    "--model-b (head_distance in its --json).";

const char* const kAgreementHelp =
    "After every position, the two models' next-token distributions P_A and P_B (softmax of the logits):\n"
    "top-1: how often their most likely tokens are the same (chance: 1 / vocabulary for unrelated guesses; "
    "models trained on the same text agree far more).\n"
    "KL(A \xE2\x80\x96 B) = \xCE\xA3 P_A log(P_A / P_B) in nats, its mean over the positions: 0 for identical "
    "predictions, no upper bound; a longer input averages over more positions (the mean does not grow with length).";

// "stories260K_q8_0.gguf (Q8_0)": a model's file name and how its weights are held.
std::string model_pair_name(const std::string& path, const ModelInfo& info) {
  const std::string file = model_display_name(path);
  return info.weight_types.empty() ? file : file + " (" + info.weight_types + ")";
}

// The layers x heads of the shared heads, most changed first (rank 1 first).
std::vector<std::pair<int, int>> heads_by_rank(const ContrastResult& c) {
  const std::vector<std::vector<int>> ranks = change_ranks(c);
  std::vector<std::pair<int, int>> order;
  for (size_t l = 0; l < ranks.size(); ++l)
    for (size_t h = 0; h < ranks[l].size(); ++h) order.emplace_back(int(l), int(h));
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
    return ranks[size_t(x.first)][size_t(x.second)] < ranks[size_t(y.first)][size_t(y.second)];
  });
  return order;
}

// Every shared head, most changed first: rank, head, change, the most moved row. Clicking selects
// the head; the one hovered in the layers x heads map is marked.
void models_head_table(AppState& state, const ContrastRun& run, ImVec2 size) {
  const ContrastResult& c = run.result;
  const std::vector<std::pair<int, int>> order = heads_by_rank(c);
  const float top = std::max(c.distance_grid().maxCoeff(), 0.0f);
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("model heads", 4, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("rank", 0, 0.6f);
  ImGui::TableSetupColumn("head", 0, 0.8f);
  ImGui::TableSetupColumn("change", 0, 1.0f);
  ImGui::TableSetupColumn("most moved row", 0, 1.8f);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  const char* const tips[] = {"1: the most changed head (equal changes in layer, head order).", nullptr, kModelChangeHelp,
                              "The query token whose row moved most, and how far (0 to 1)."};
  for (int col = 0; col < 4; ++col) {
    ImGui::TableSetColumnIndex(col);
    ImGui::TableHeader(ImGui::TableGetColumnName(col));
    if (tips[col] && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tips[col]);
  }
  const AttentionRun& a = run.analysis_a->run;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto [l, h] = order[i];
    const HeadChange& hc = c.heads[size_t(l)][size_t(h)];
    ImGui::TableNextRow();
    if (l == state.contrast.linked_layer && h == state.contrast.linked_head)
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::GetColorU32(ImGuiCol_HeaderHovered));
    ImGui::TableNextColumn();
    const bool selected = l == state.layer && h == state.head;
    if (ImGui::Selectable(format("%zu##modelrank%d_%d", i + 1, l, h).c_str(), selected, ImGuiSelectableFlags_SpanAllColumns))
      state.layer = l, state.head = h;
    if (ImGui::IsItemHovered()) state.contrast.hovered_layer = l, state.contrast.hovered_head = h;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(head_name(l, h, a.n_layers()).c_str());
    ImGui::TableNextColumn();
    coloured_value_cell(kChangeColours, top > 0 ? hc.distance / top : 0.0f, format("%.4f", double(hc.distance)).c_str());
    ImGui::TableNextColumn();
    const int row = hc.max_row_step >= 0 ? c.alignment.steps[size_t(hc.max_row_step)].a : -1;
    ImGui::Text("%.4f  %s", double(hc.max_row), row >= 0 ? display_token(a.tokens, size_t(row)).c_str() : "-");
  }
  ImGui::EndTable();
}

// "A: stories260K_f32.gguf (F32)   B: stories260K_q8_0.gguf (Q8_0)" and the Stop button.
void models_title(AppState& state, const ContrastRun& run) {
  const std::string a = model_pair_name(run.models.path_a, run.analysis_a->run.info);
  const std::string b = model_pair_name(run.models.path_b, run.analysis->run.info);
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("A:");
  ImGui::SameLine();
  ImGui::TextUnformatted(a.c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  ImGui::TextDisabled("B:");
  ImGui::SameLine();
  ImGui::TextUnformatted(b.c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", run.models.path_b.c_str());
  ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
  if (ImGui::SmallButton("Stop comparing models")) state.contrast.model_b.clear(), state.contrast.tokenizer_b.clear();
}

// Next-token agreement with its definition, and the comparison's notes (same file, shared heads).
void models_agreement(const ContrastRun& run) {
  const NextTokenAgreement& n = run.models.next_token;
  if (n.positions == 0) {
    ImGui::TextDisabled("next token: not compared (the models predict no next token)");
  } else {
    ImGui::TextDisabled("next token:");
    ImGui::SameLine();
    ImGui::Text("the same top-1 after %d of %d positions (%.3f)", n.top1_matches, n.positions, n.match_rate);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kAgreementHelp);
    const std::string kl = format("mean KL(A \xE2\x80\x96 B) %.3g nats", n.mean_kl);
    same_line_if_fits(text_width(kl.c_str()), ImGui::GetFontSize() * 1.5f);
    ImGui::TextUnformatted(kl.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kAgreementHelp);
  }
  if (run.models.same_file) ImGui::TextColored(tone(Tone::warning), "identical: change 0 everywhere (A and B are the same file)");
  for (const std::string& note : run.models.notes)
    if (note.find("same file") == std::string::npos) wrapped_hint(note.c_str());
}

// Waiting for model B (the steps done: each model read, each layer run; a spinner until the
// worker reports them), or why it could not be compared: said with a way out.
bool models_not_ready(AppState& state, const ContrastRun* c, const StatusInfo& status) {
  const std::string name = model_display_name(state.contrast.model_b);
  if (!c || !c->answers(contrast_ask(state))) {
    ImGui::AlignTextToFramePadding();
    if (status.work_total > 0) {
      const float f = ImGui::GetFontSize();
      ImGui::ProgressBar(float(status.work_done) / float(status.work_total), ImVec2(f * 10, 0),
                         format("%d / %d", status.work_done, status.work_total).c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("Steps: model A read, each of its layers run, then model B read and each of its layers. "
                          "A GGUF file's weights are mapped: they are read as its layers run.");
    } else {
      draw_spinner(ImGui::GetFontSize() * 0.4f);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("comparing with model B (%s): loading it and running both models\xE2\x80\xA6", name.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##model b")) state.contrast.model_b.clear(), state.contrast.tokenizer_b.clear();
    return true;
  }
  if (c->analysis) return false;
  ImGui::PushStyleColor(ImGuiCol_Text, tone(Tone::error));
  ImGui::TextWrapped("Could not compare with model B (%s): %s", name.c_str(), c->error.c_str());
  ImGui::PopStyleColor();
  if (ImGui::SmallButton("Stop comparing models")) state.contrast.model_b.clear(), state.contrast.tokenizer_b.clear();
  return true;
}

// The Contrast view with model B: the heads of every layer by change, the layers x heads change
// map, the selected head's A and B on one scale beside B - A; hover linked across them.
void draw_contrast_models(AppState& state, const UiContext& ui) {
  state.contrast.linked_layer = state.contrast.hovered_layer, state.contrast.linked_head = state.contrast.hovered_head;
  state.contrast.hovered_layer = state.contrast.hovered_head = -1;
  const ContrastRun* c = ui.derived->contrast.get();
  if (models_not_ready(state, c, ui.status)) return;
  const RunAnalysis& a = *c->analysis_a;
  const int layers = int(c->result.heads.size()), heads = layers > 0 ? int(c->result.heads[0].size()) : 0;
  if (layers == 0 || heads == 0) return;
  state.layer = std::clamp(state.layer, 0, layers - 1);
  state.head = std::clamp(state.head, 0, heads - 1);
  models_title(state, *c);
  models_agreement(*c);
  const PairNames names{"A", "B"};
  if (state.present.active) {  // the maps take the room
    most_changed_line(state, c->result, layers);
    head_maps(state, ui, a, *c->analysis, c->result, ImGui::GetContentRegionAvail(), names);
    return;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float f = ImGui::GetFontSize();
  const float top_h = std::max(avail.y * 0.3f, f * 7);
  const float table_w = std::min(avail.x * 0.5f, f * 26);
  models_head_table(state, *c, ImVec2(table_w, top_h));
  ImGui::SameLine(0, f);
  const float grid_w = std::min(patching_grid_width(layers, heads, top_h), ImGui::GetContentRegionAvail().x);
  change_grid(state, ui, c->result.distance_grid(), ImVec2(grid_w, top_h), "change, layers x heads");
  ImGui::Spacing();
  head_maps(state, ui, a, *c->analysis, c->result, ImGui::GetContentRegionAvail(), names);
}

}  // namespace

void draw_contrast(AppState& state, const UiContext& ui) {
  if (!state.contrast.model_b.empty()) return draw_contrast_models(state, ui);
  const Derived& d = *ui.derived;
  const ContrastRun* c = d.contrast.get();
  if (state.contrast.sentence.empty()) {
    ImGui::TextWrapped("Compare two sentences head by head: type sentence B in the \"compare with\" box at the top "
                       "(change one word: \"The keys to the cabinet are\" / \"is\"). The tokens are aligned, and "
                       "each head's rows are compared where the sentences agree.");
    return;
  }
  if (!c || c->sentence != state.contrast.sentence) {
    ImGui::TextDisabled("computing sentence B\xE2\x80\xA6");
    return;
  }
  if (!c->analysis) {
    ImGui::TextColored(tone(Tone::error), "Sentence B: %s", c->error.c_str());
    return;
  }
  const RunAnalysis& b = *c->analysis;
  const int layers = d.run().n_layers(), heads = d.run().n_heads();
  if (layers == 0 || heads == 0) return;
  state.layer = std::clamp(state.layer, 0, layers - 1);
  state.head = std::clamp(state.head, 0, heads - 1);
  const bool present = state.present.active;
  if (toolbar_layer_control(state, layers) && !(present && control_locked(state, LessonControl::layer))) {
    LockScope lock(state, LessonControl::layer);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::InputInt("layer", &state.layer);
    state.layer = std::clamp(state.layer, 0, layers - 1);
    ImGui::SameLine(0, ImGui::GetFontSize());
  }
  draw_alignment(c->result.alignment, d.analysis->map_labels, b.map_labels);
  if (present) {  // the maps take the room: the most changed heads instead of the table and grid
    most_changed_line(state, c->result, layers);
    draw_prediction(d.run(), b.run);
    head_maps(state, ui, *d.analysis, b, c->result, ImGui::GetContentRegionAvail());
    return;
  }
  draw_prediction(d.run(), b.run);
  draw_patching_controls(state, ui);
  const PairAnswer* patched = shown_patching(state, ui);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float f = ImGui::GetFontSize();
  const float top_h = std::max(avail.y * 0.3f, f * 7);
  const float table_w = std::min(avail.x * (patched ? 0.42f : 0.5f), f * (patched ? 36 : 30));
  head_table(state, c->result, d.run(), patched, state.layer, ImVec2(table_w, top_h));
  ImGui::SameLine(0, f);
  const Map grid = c->result.distance_grid();
  // Beside the table: the change grid, and with a patching result its grid, sharing what is left.
  const float grids_w = ImGui::GetContentRegionAvail().x, grid_w = patching_grid_width(layers, heads, top_h);
  const float each_w = std::min(grid_w, patched ? (grids_w - f) / 2 : grids_w);
  change_grid(state, ui, grid, ImVec2(each_w, top_h), patched ? "change" : "");
  if (patched) {
    ImGui::SameLine(0, f);
    draw_patching_grid(state, ui, *patched, ImVec2(std::min(each_w, ImGui::GetContentRegionAvail().x), top_h));
  }
  ImGui::Spacing();
  head_maps(state, ui, *d.analysis, b, c->result, ImGui::GetContentRegionAvail());
}

}  // namespace hs::gui
