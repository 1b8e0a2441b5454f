#include "core/export/export_data.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/formats/csv.h"
#include "core/formats/npy.h"
#include "core/util/errors.h"

namespace hs {
namespace {

std::vector<std::string> head_names(int n) {
  std::vector<std::string> names;
  for (int h = 0; h < n; ++h) names.push_back("head " + std::to_string(h));
  return names;
}

const char* const kSweepColumns[] = {"n_heads",         "d_head",          "param_count",
                                     "mean_head_difference", "mean_entropy", "mean_score_rank",
                                     "mean_effective_rank",  "mean_head_distance"};
constexpr int kSweepColumnCount = 8;

// [n_counts, 7], one row per head count.
Map sweep_table(const std::vector<SweepPoint>& points) {
  Map t(Eigen::Index(points.size()), kSweepColumnCount);
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    t.row(Eigen::Index(i)) << float(p.n_heads), float(p.d_head), float(p.param_count), p.mean_head_difference,
        p.mean_entropy, p.mean_score_rank, p.mean_effective_rank, p.mean_head_distance;
  }
  return t;
}

}  // namespace

std::string attention_npy(const AttentionRun& run, int layer, int head) {
  const int64_t T = run.n_tokens();
  if (head >= 0) {
    const Map& a = run.attention[size_t(layer)][size_t(head)];  // [T, T] row-major
    return npy_bytes(a.data(), {T, T});
  }
  // all: [n_layers, n_heads, T, T], C order: layer-major, then head, then the row-major map
  const int64_t L = run.n_layers(), H = run.n_heads();
  std::vector<float> all;
  all.reserve(size_t(L * H * T * T));
  for (const LayerMaps& maps : run.attention)
    for (const Map& a : maps) all.insert(all.end(), a.data(), a.data() + a.size());
  return npy_bytes(all.data(), {L, H, T, T});
}

std::string attention_csv(const AttentionRun& run, int layer, int head) {
  std::ostringstream out;
  const LayerMaps& maps = run.attention[size_t(layer)];
  const int first = head >= 0 ? head : 0, last = head >= 0 ? head : run.n_heads() - 1;
  for (int h = first; h <= last; ++h) {
    if (h != first) out << '\n';
    write_matrix_csv(out, maps[size_t(h)], run.tokens, run.tokens, "query\\key");
  }
  return out.str();
}

std::string pairs_npy(const RunAnalysis& analysis, int layer) {
  const Map& d = analysis.distance[size_t(layer)];  // [H, H]
  return npy_bytes(d.data(), {d.rows(), d.cols()});
}

std::string pairs_csv(const RunAnalysis& analysis, int layer) {
  const Map& d = analysis.distance[size_t(layer)];  // [H, H]
  const std::vector<std::string> names = head_names(int(d.rows()));
  std::ostringstream out;
  write_matrix_csv(out, d, names, names, "head\\head");
  return out.str();
}

namespace {

Map role_table(const HeadRoles& roles, HeadRole role) {  // [n_layers, n_heads]
  Map t(roles.n_layers(), roles.n_heads());
  for (int l = 0; l < roles.n_layers(); ++l)
    for (int h = 0; h < roles.n_heads(); ++h) t(l, h) = roles.scores[size_t(l)][size_t(h)][role];
  return t;
}

}  // namespace

std::string roles_npy(const HeadRoles& roles, HeadRole role) {
  const Map t = role_table(roles, role);
  return npy_bytes(t.data(), {t.rows(), t.cols()});
}

std::string roles_csv(const HeadRoles& roles, HeadRole role) {
  const Map t = role_table(roles, role);
  std::ostringstream out;
  out << "layer\\head";
  for (int h = 0; h < roles.n_heads(); ++h) out << ",head " << h;
  out << '\n';
  for (int l = 0; l < roles.n_layers(); ++l) {
    out << "layer " << l;
    for (int h = 0; h < roles.n_heads(); ++h) out << ',' << csv_number(t(l, h));
    out << '\n';
  }
  return out.str();
}

std::string all_roles_npy(const HeadRoles& roles) {
  // [n_roles, n_layers, n_heads], roles in HeadRole order; each role_table is row-major [L, H].
  const int64_t L = roles.n_layers(), H = roles.n_heads();
  std::vector<float> all;
  all.reserve(size_t(kHeadRoleCount * L * H));
  for (int r = 0; r < kHeadRoleCount; ++r) {
    const Map t = role_table(roles, HeadRole(r));
    all.insert(all.end(), t.data(), t.data() + t.size());
  }
  return npy_bytes(all.data(), {int64_t(kHeadRoleCount), L, H});
}

std::string all_roles_csv(const HeadRoles& roles) {
  std::ostringstream out;
  for (int r = 0; r < kHeadRoleCount; ++r) {
    if (r) out << '\n';
    std::string table = roles_csv(roles, HeadRole(r));
    out << head_role_name(HeadRole(r)) << ' ' << table;  // "previous layer\head,head 0,..."
  }
  return out.str();
}

std::string map_npy(const Map& map) { return npy_bytes(map.data(), {map.rows(), map.cols()}); }

std::string map_csv(const Map& map, const std::vector<std::string>& tokens) {
  std::ostringstream out;
  write_matrix_csv(out, map, tokens, tokens, "query\\key");
  return out.str();
}

std::string sweep_npy(const std::vector<SweepPoint>& points) {
  const Map t = sweep_table(points);
  return npy_bytes(t.data(), {t.rows(), t.cols()});
}

std::string sweep_csv(const std::vector<SweepPoint>& points) {
  std::ostringstream out;
  for (int c = 0; c < kSweepColumnCount; ++c) out << (c ? "," : "") << kSweepColumns[c];
  out << '\n';
  for (const SweepPoint& p : points) {
    out << p.n_heads << ',' << p.d_head << ',' << p.param_count;
    for (float v : {p.mean_head_difference, p.mean_entropy, p.mean_score_rank, p.mean_effective_rank,
                    p.mean_head_distance})
      out << ',' << csv_number(v);  // NaN: no value (one head: no pair), not 0
    out << '\n';
  }
  return out.str();
}

}  // namespace hs
