#pragma once
// The numbers of the views that hold one map (or one table) per layer, for every layer or one
// (ExportSpec::every_layer; `layers` lists those written, ascending), and of the ablation view:
//   heads (no head)  .npy [n, n_heads, T, T]     .csv tidy: layer,head,query,key,query_token,key_token,weight
//   average          .npy [n, T, T]              .csv tidy: layer,query,key,query_token,key_token,weight
//   query            .npy [n, n_heads, T]        .csv tidy: layer,head,key,key_token,weight
//                    (weight: the chosen query rows summed, core/analysis/query_profile.h)
//   width            .npy [n, n_heads, k]        .csv tidy: layer,head,index,singular_value
//                    (k = T singular values of each head's unmasked scores, largest first)
//   ablation         .npy [n_layers, n_heads]    .csv tidy: layer,head,delta_loss (empty: not run)
// n = the number of layers written. Tidy CSVs have one header row and one row per cell, loadable
// as one table (pandas.read_csv); tokens are quoted as RFC 4180 asks (core/formats/csv.h); masked
// cells (keys a causal or windowed query cannot see) hold weight 0.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"
#include "core/analysis/run_analysis.h"

namespace hs {

// A tidy CSV of more rows than this (about 1 GB of text) is refused: give one layer or one head.
constexpr int64_t kMaxTidyCsvRows = 20'000'000;
// InputError when a tidy CSV of `rows` rows would pass kMaxTidyCsvRows, naming the count.
void check_tidy_csv_rows(int64_t rows);

// Every layer, or `layer` alone.
std::vector<int> exported_layers(int n_layers, bool every_layer, int layer);

// head >= 0: that head's rows only.
std::string layers_attention_npy(const AttentionRun& run, const std::vector<int>& layers);
std::string attention_tidy_csv(const AttentionRun& run, const std::vector<int>& layers, int head);

std::string average_npy(const RunAnalysis& analysis, const std::vector<int>& layers);
std::string average_tidy_csv(const RunAnalysis& analysis, const std::vector<int>& layers);

// queries: valid token indices (export checks them).
std::string query_npy(const AttentionRun& run, const std::vector<int>& layers, const std::vector<int>& queries);
std::string query_tidy_csv(const AttentionRun& run, const std::vector<int>& layers, const std::vector<int>& queries);

// analysis.spectrum must hold singular values for every head of `layers`.
std::string spectrum_npy(const RunAnalysis& analysis, const std::vector<int>& layers);
std::string spectrum_tidy_csv(const RunAnalysis& analysis, const std::vector<int>& layers);

std::string ablation_npy(const HeadAblation& ablation);
std::string ablation_tidy_csv(const HeadAblation& ablation);

}  // namespace hs
