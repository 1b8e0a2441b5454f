#include "core/export/maps_json.h"

#include <algorithm>

#include "core/analysis/head_clustering.h"
#include "core/export/provenance.h"
#include "core/formats/json_text.h"
#include "core/model/next_token_rows.h"

namespace hs {
namespace {

void write_config(std::ostream& out, const ModelInfo& info) {
  out << "{\"kind\":" << json_string(info.kind) << ",\"name\":" << json_string(info.name)
      << ",\"d_model\":" << info.d_model << ",\"n_heads\":" << info.n_heads << ",\"n_kv_heads\":" << info.n_kv_heads
      << ",\"d_head\":" << info.d_head << ",\"n_layers\":" << info.n_layers
      << ",\"causal\":" << (info.causal ? "true" : "false") << ",\"window\":";
  if (info.window >= 0) out << info.window;
  else out << "null";
  out << ",\"temperature\":";
  write_json_float(out, info.temperature);
  // What turns q and k into the scores (export --what scores|q|k): the factor on q . k and the soft-cap (0: none).
  out << ",\"score_scale\":";
  write_json_float(out, layer_attention_config(info, 0).score_scale());
  out << ",\"softcap\":";
  write_json_float(out, info.softcap);
  if (info.vocab_size > 0) out << ",\"vocab_size\":" << info.vocab_size;
  out << ",\"total_params\":" << info.total_params << "}";
}

// Long-input mode (headscope-cli maps --long-input --json): no whole map exists, so instead of
// "attention" the block maxima and the exact per-head numbers.
// Layers 0 .. n-1, or only_layer alone (>= 0: export --layer L).
std::vector<size_t> picked_layers(size_t n, int only_layer) {
  std::vector<size_t> picked;
  for (size_t l = 0; l < n; ++l)
    if (only_layer < 0 || int(l) == only_layer) picked.push_back(l);
  return picked;
}

// The heads whose whole maps the long-input run kept (run.kept), in head order.
std::vector<int> kept_heads_of(const AttentionRun& run) {
  std::vector<int> heads;
  const MapSelection& k = run.kept_maps;
  if (k.every || k.layer < 0 || k.layer >= int(run.kept.size())) return heads;
  for (int h = 0; h < int(run.kept[size_t(k.layer)].size()); ++h)
    if (k.keeps(k.layer, h) && run.kept[size_t(k.layer)][size_t(h)].size() > 0) heads.push_back(h);
  return heads;
}

// "kept_maps": {"layer": L, "heads": [h, ...], "attention": [head][query][key]} when the run kept any.
void write_kept_maps_json(std::ostream& out, const AttentionRun& run) {
  const std::vector<int> heads = kept_heads_of(run);
  if (heads.empty()) return;
  const LayerMaps& maps = run.kept[size_t(run.kept_maps.layer)];
  out << ",\n\"kept_maps\":{\"layer\":" << run.kept_maps.layer << ",\"heads\":";
  write_json_list(out, heads.size(), [&](size_t k) { out << heads[k]; });
  out << ",\n\"attention\":";
  write_json_list(out, heads.size(), [&](size_t k) { write_json_matrix(out, maps[size_t(heads[k])]); });
  out << '}';
}

// What the long-input JSON holds no whole map of, in words.
std::string left_out_text(const AttentionRun& run) {
  const int64_t all = int64_t(run.n_layers()) * run.n_heads(), kept = int64_t(kept_heads_of(run).size());
  std::string text = "the whole T x T maps of " + std::to_string(all - kept) + " of " + std::to_string(all) + " heads";
  if (kept > 0) text += " (kept: " + run.kept_maps.describe() + ", in kept_maps)";
  return text + ": each is given by its block maxima and exact head_numbers; headscope-cli maps --json --layer L "
                "[--head H] keeps one layer's (one head's) whole maps";
}

void write_long_input_json(std::ostream& out, const RunAnalysis& analysis, int only_layer) {
  const AttentionRun& run = analysis.run;
  const int p = run.attention.empty() || run.attention[0].empty() ? 0 : int(run.attention[0][0].rows());
  out << ",\n\"long_input\":{\"reason\":" << json_string(analysis.long_input_reason) << ",\"tokens\":" << run.n_tokens()
      << ",\"block_size\":" << run.map_factor << ",\"display_size\":" << p << ",\"distance_rows\":" << analysis.distance_rows
      << ",\n\"block_labels\":";
  write_json_list(out, analysis.map_labels.size(), [&](size_t i) { out << json_string(analysis.map_labels[i]); });
  std::vector<size_t> layers = picked_layers(run.head_numbers.size(), only_layer);
  out << ",\n\"head_numbers\":";
  write_json_list(out, layers.size(), [&](size_t k) {
    const size_t l = layers[k];
    write_json_list(out, run.head_numbers[l].size(), [&](size_t h) {
      const HeadNumbers& n = run.head_numbers[l][h];
      out << "{\"mean_entropy\":";
      write_json_float(out, n.mean_entropy);
      out << ",\"max\":";
      write_json_float(out, n.max);
      out << ",\"max_skip_first\":";
      write_json_float(out, n.max_skip_first);
      out << '}';
    });
  });
  layers = picked_layers(run.attention.size(), only_layer);
  out << ",\n\"block_maxima\":";
  write_json_list(out, layers.size(), [&](size_t k) {
    const LayerMaps& maps = run.attention[layers[k]];
    write_json_list(out, maps.size(), [&](size_t h) { write_json_matrix(out, maps[h]); });
  });
  write_kept_maps_json(out, run);
  out << ",\n\"left_out\":" << json_string(left_out_text(run));
  out << '}';
}

// heads --null N: {"models", "seed", "initialisation", "null_mean": {role: x}, "null_sd": {role: x},
// "layers": {"null_mean": {role: [layer]}, "null_sd": {role: [layer]}}}.
void write_null_roles_json(std::ostream& out, const NullRoleScores& null) {
  const auto per_role = [&](const char* key, const auto& value_of) {
    out << json_string(key) << ":{";
    for (int r = 0; r < kHeadRoleCount; ++r) {
      out << (r ? "," : "") << json_string(head_role_name(HeadRole(r))) << ':';
      value_of(r);
    }
    out << '}';
  };
  out << ",\"null\":{\"models\":" << null.models << ",\"seed\":" << null.seed
      << ",\"initialisation\":" << json_string(null.initialisation) << ',';
  per_role("null_mean", [&](int r) { write_json_float(out, null.mean.score[r]); });
  out << ',';
  per_role("null_sd", [&](int r) { write_json_float(out, null.sd.score[r]); });
  out << ",\"layers\":{";
  const size_t L = null.layer_mean.size();
  per_role("null_mean", [&](int r) { write_json_list(out, L, [&](size_t l) { write_json_float(out, null.layer_mean[l].score[r]); }); });
  out << ',';
  per_role("null_sd", [&](int r) { write_json_list(out, L, [&](size_t l) { write_json_float(out, null.layer_sd[l].score[r]); }); });
  out << "}}";
}

}  // namespace

void write_head_roles_json(std::ostream& out, const HeadRoles& roles) {
  const size_t L = size_t(roles.n_layers()), H = size_t(roles.n_heads());
  out << "{\"roles\":";
  write_json_list(out, size_t(kHeadRoleCount), [&](size_t r) { out << json_string(head_role_name(HeadRole(r))); });
  out << ",\"definitions\":{";
  for (int r = 0; r < kHeadRoleCount; ++r)
    out << (r ? "," : "") << json_string(head_role_name(HeadRole(r))) << ':' << json_string(head_role_definition(HeadRole(r)));
  out << "},\"local_window\":" << roles.options.local_window << ",\"threshold\":";
  write_json_float(out, roles.options.threshold);
  out << ",\"query_rows\":" << roles.query_rows << ",\"probe\":";
  if (roles.induction_measured) {
    out << "{\"length\":" << roles.options.probe_length << ",\"seed\":" << roles.options.probe_seed
        << ",\"seeds\":" << roles.probe_seeds << ",\"ids\":";
    write_json_list(out, roles.probe_ids.size(), [&](size_t i) { out << roles.probe_ids[i]; });
    out << '}';
  } else {
    out << "null";
  }
  out << ",\"scores\":{";
  for (int r = 0; r < kHeadRoleCount; ++r) {
    out << (r ? "," : "") << json_string(head_role_name(HeadRole(r))) << ':';
    write_json_list(out, L, [&](size_t l) {
      write_json_list(out, H, [&](size_t h) { write_json_float(out, roles.scores[l][h][HeadRole(r)]); });
    });
  }
  out << "}";
  // Induction's 95% interval over the probes: the half width per head (more than one probe).
  if (roles.induction_ci95.size() == L) {
    out << ",\"induction_ci95\":";
    write_json_list(out, L, [&](size_t l) {
      write_json_list(out, roles.induction_ci95[l].size(), [&](size_t h) { write_json_float(out, roles.induction_ci95[l][h]); });
    });
  }
  // Chance levels: one number per role when every layer has the same mask, else [layer][head].
  if (roles.chance.size() == L) {
    out << ",\"chance_margin\":";
    write_json_float(out, roles.options.chance_margin);
    out << ",\"chance\":{";
    const bool one = roles.chance_same_everywhere();
    for (int r = 0; r < kHeadRoleCount; ++r) {
      out << (r ? "," : "") << json_string(head_role_name(HeadRole(r))) << ':';
      if (one && L > 0) write_json_float(out, roles.chance[0][HeadRole(r)]);
      else
        write_json_list(out, L, [&](size_t l) {
          write_json_list(out, H, [&](size_t) { write_json_float(out, roles.chance[l][HeadRole(r)]); });
        });
    }
    out << '}';
  }
  if (roles.null.models > 0) write_null_roles_json(out, roles.null);
  out << ",\"label\":";
  write_json_list(out, L, [&](size_t l) { write_json_list(out, H, [&](size_t h) { out << json_string(roles.label[l][h]); }); });
  out << '}';
}

void write_maps_json(std::ostream& out, const RunAnalysis& analysis, const MapsJsonExtras& extras) {
  const AttentionRun& run = analysis.run;
  out << "{\"tokens\":";
  write_json_list(out, run.tokens.size(), [&](size_t i) { out << json_string(run.tokens[i]); });
  if (!run.token_ids.empty()) {
    out << ",\n\"token_ids\":";
    write_json_list(out, run.token_ids.size(), [&](size_t i) { out << run.token_ids[i]; });
  }
  if (!run.token_type_ids.empty()) {  // encoders: sentence A is 0, B is 1
    out << ",\n\"token_type_ids\":";
    write_json_list(out, run.token_type_ids.size(), [&](size_t i) { out << run.token_type_ids[i]; });
  }
  if (run.segment_b_start >= 0) out << ",\n\"segment_b_start\":" << run.segment_b_start;
  if (std::find(run.special_tokens.begin(), run.special_tokens.end(), true) != run.special_tokens.end()) {
    out << ",\n\"special_tokens\":";
    write_json_list(out, run.special_tokens.size(), [&](size_t i) { out << (run.special_tokens[i] ? "true" : "false"); });
  }
  if (!run.rows_sum_to_one) out << ",\n\"rows_sum_to_one\":false";  // maps from a file (--attention)
  if (!run.notes.empty()) {
    out << ",\n\"notes\":";
    write_json_list(out, run.notes.size(), [&](size_t i) { out << json_string(run.notes[i]); });
  }
  if (!run.next_tokens.empty()) {
    out << ",\n\"next_tokens\":";
    write_json_list(out, run.next_tokens.size(), [&](size_t i) { out << json_string(next_token_label(run, int(i))); });
    out << ",\n\"next_token_ids\":";
    write_json_list(out, run.next_token_ids.size(), [&](size_t i) { out << next_token_id(run, int(i)); });
    out << ",\n\"prompt_tokens\":" << run.prompt_tokens;
  }
  out << ",\n\"config\":";
  write_config(out, run.info);
  out << ",\n\"param_count\":" << run.info.param_count;
  // The layers written: every one, or extras.only_layer alone.
  auto pick = [&](size_t n) { return picked_layers(n, extras.only_layer); };
  std::vector<size_t> layers = pick(run.attention.size());
  if (extras.only_layer >= 0) out << ",\n\"layers\":[" << extras.only_layer << ']';
  if (run.compact()) {
    write_long_input_json(out, analysis, extras.only_layer);
  } else {
    out << ",\n\"attention\":";
    write_json_list(out, layers.size(), [&](size_t k) {
      const LayerMaps& maps = run.attention[layers[k]];
      write_json_list(out, maps.size(), [&](size_t h) { write_json_matrix(out, maps[h]); });
    });
  }
  layers = pick(analysis.difference.size());
  out << ",\n\"head_difference\":";
  write_json_list(out, layers.size(), [&](size_t k) { write_json_matrix(out, analysis.difference[layers[k]]); });
  layers = pick(analysis.distance.size());
  out << ",\n\"head_distance\":";
  write_json_list(out, layers.size(), [&](size_t k) { write_json_matrix(out, analysis.distance[layers[k]]); });
  // Heads ordered by average-linkage clustering of each layer's head distance, with the merges.
  out << ",\n\"head_clusters\":";
  write_json_list(out, layers.size(), [&](size_t k) {
    const HeadClustering c = cluster_heads(analysis.distance[layers[k]]);
    out << "{\"order\":";
    write_json_list(out, c.order.size(), [&](size_t i) { out << c.order[i]; });
    out << ",\"merges\":";
    write_json_list(out, c.merges.size(), [&](size_t m) {
      out << '[' << c.merges[m].a << ',' << c.merges[m].b << ',';
      write_json_float(out, c.merges[m].distance);
      out << ',' << c.merges[m].size << ']';
    });
    out << '}';
  });
  // The keys some query can make its top key, [layer][query head] (head_reach.h); only when computed.
  if (!analysis.reach.empty()) {
    layers = pick(analysis.reach.size());
    out << ",\n\"reachable_keys\":";
    write_json_list(out, layers.size(), [&](size_t k) {
      const std::vector<HeadReach>& heads = analysis.reach[layers[k]];
      write_json_list(out, heads.size(), [&](size_t h) {
        const std::vector<int>& keys = heads[h].reachable_keys;
        write_json_list(out, keys.size(), [&](size_t i) { out << keys[i]; });
      });
    });
  }
  if (analysis.rollout.size() > 0) {
    out << ",\n\"attention_rollout\":";
    write_json_matrix(out, analysis.rollout);
  }
  if (!analysis.roles.empty()) {
    out << ",\n\"head_roles\":";
    write_head_roles_json(out, analysis.roles);
  }
  if (run.output.size() > 0) {
    out << ",\n\"output\":";
    write_json_matrix(out, run.output);
  }
  if (extras.ablation) {
    out << ",\n\"head_ablation\":{\"mode\":" << json_string(ablation_mode_name(extras.ablation->mode)) << ",\"base_loss\":";
    write_json_float(out, float(extras.ablation->base_loss));
    out << ",\"delta_loss\":";
    write_json_matrix(out, extras.ablation->delta_loss);
    out << '}';
  }
  if (extras.compute_ms_median) {
    out << ",\n\"timing\":{\"compute_ms_median\":" << *extras.compute_ms_median << ",\"repeat\":" << extras.repeat
        << ",\"threads\":" << extras.threads << "}";
  }
  // What made the run (core/export/provenance.h): model and input files' SHA-256, sentence, version.
  out << ",\n\"provenance\":" << run_provenance_json(analysis);
  out << "}\n";
}

}  // namespace hs
