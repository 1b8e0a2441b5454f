#include "core/analysis/head_roles.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/model/rng.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const char* const kNames[kHeadRoleCount] = {"previous", "first", "bos", "self", "local", "duplicate", "induction",
                                            "broadness"};

const char* const kDefinitions[kHeadRoleCount] = {
    "previous-token: mean attention from each token i to token i-1",
    "first-token (sink): mean attention from each token i >= 1 to position 0",
    ("BOS: mean attention from each token i >= 1 to keys holding the BOS token (with BOS only at position 0, "
     "as llama2.c and Llama models put it, this equals first and the label says first)"),
    "self: mean attention from each token to itself (rows that see two or more keys)",
    "local: mean attention mass on keys fewer than w positions away (w = 3 unless set)",
    "duplicate-token: mean attention from a repeated token to its earlier copies",
    ("induction: on a random sequence repeated twice, mean attention from each token of the second copy "
     "to the token after its earlier occurrence"),
    "broadness: mean row entropy divided by log(number of keys the row may see); 1 = uniform"};

float mean_or_nan(double sum, int64_t n) { return n > 0 ? float(sum / double(n)) : kNaN; }

}  // namespace

const char* head_role_name(HeadRole role) { return kNames[int(role)]; }
const char* head_role_definition(HeadRole role) { return kDefinitions[int(role)]; }

const std::vector<std::string>& head_labels() {
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> v;
    for (int r = 0; r < kHeadRoleCount; ++r)
      if (HeadRole(r) != HeadRole::local && HeadRole(r) != HeadRole::broadness) v.emplace_back(head_role_name(HeadRole(r)));
    v.emplace_back("local");
    v.emplace_back("broad");
    return v;
  }();
  return labels;
}

HeadRole parse_head_role(const std::string& name) {
  for (int r = 0; r < kHeadRoleCount; ++r)
    if (name == kNames[r]) return HeadRole(r);
  std::string all;
  for (int r = 0; r < kHeadRoleCount; ++r) all += std::string(r ? ", " : "") + kNames[r];
  throw InputError("unknown head role '" + name + "'; expected one of " + all);
}

HeadRoleScores::HeadRoleScores() { std::fill(std::begin(score), std::end(score), kNaN); }

bool KeyMask::visible(int query, int key) const {
  if (causal && key > query) return false;
  if (window >= 0 && std::abs(int64_t(query) - int64_t(key)) > window) return false;
  return true;
}

int KeyMask::visible_count(int query, int n_keys) const {
  int64_t lo = 0, hi = int64_t(n_keys) - 1;  // visible keys are one contiguous range [lo, hi]
  if (causal) hi = std::min<int64_t>(hi, query);
  if (window >= 0) {  // in 64 bits: a window of 2^31 - 1 must not wrap
    lo = std::max<int64_t>(lo, int64_t(query) - window);
    hi = std::min<int64_t>(hi, int64_t(query) + window);
  }
  return int(std::max<int64_t>(0, hi - lo + 1));
}

HeadRoleScores head_role_scores(const Map& rows, const std::vector<int>& queries, const KeyMask& mask,
                                const std::vector<int>& token_keys, int bos_id, const RoleOptions& options,
                                const std::vector<double>* row_entropy) {
  assert((!row_entropy || int64_t(row_entropy->size()) == rows.rows()) && "one entropy per row");
  assert(int64_t(queries.size()) == rows.rows() && "one query index per row");
  const int T = int(rows.cols());
  const bool keyed = int(token_keys.size()) == T;
  const bool has_bos = keyed && bos_id >= 0 && std::find(token_keys.begin(), token_keys.end(), bos_id) != token_keys.end();
  // Where each key id occurs, in ascending order (the BOS keys; the earlier copies of token i): the
  // sums below visit the same keys in the same order as a scan of the whole row, without the scan
  // (it was most of the roles' time: 144 heads x T^2 comparisons per keystroke on GPT-2-small).
  std::unordered_map<int, std::vector<int>> where;
  if (keyed)
    for (int j = 0; j < T; ++j) where[token_keys[size_t(j)]].push_back(j);
  static const std::vector<int> none;
  const std::vector<int>& bos_keys = has_bos ? where[bos_id] : none;
  double prev = 0, first = 0, bos = 0, self = 0, local = 0, dup = 0, broad = 0;
  int64_t n_after0 = 0, n_informative = 0, n_dup = 0;
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    const int i = queries[size_t(r)];
    const auto a = rows.row(r);  // [T]: query i's weights over the keys
    const int visible = mask.visible_count(i, T);
    if (i >= 1) {
      ++n_after0;
      prev += a(i - 1);
      first += a(0);
      for (int j : bos_keys) bos += a(j);
    }
    if (keyed && i < T) {
      // Earlier copies of token i: keys j < i with the same id.
      double on_copies = 0;
      bool repeated = false;
      for (int j : where[token_keys[size_t(i)]]) {
        if (j >= i) break;
        repeated = true;
        on_copies += a(j);
      }
      if (repeated) {
        ++n_dup;
        dup += on_copies;
      }
    }
    if (visible < 2) continue;
    ++n_informative;
    self += a(i);
    // local: keys with |i - j| < w (masked ones hold 0).
    const int w = std::max(1, options.local_window);  // at least the query itself
    const int lo = int(std::max<int64_t>(0, int64_t(i) - w + 1)), hi = int(std::min<int64_t>(T - 1, int64_t(i) + w - 1));
    local += a.segment(lo, hi - lo + 1).sum();
    // broadness: H_i / log(visible), H_i = -sum_j A_ij log A_ij with 0 log 0 = 0.
    double h = 0;
    if (row_entropy) h = (*row_entropy)[size_t(r)];
    else
      for (int j = 0; j < T; ++j)
        if (a(j) > 0) h -= double(a(j)) * std::log(double(a(j)));
    broad += std::clamp(h / std::log(double(visible)), 0.0, 1.0);
  }
  HeadRoleScores s;
  s[HeadRole::previous] = mean_or_nan(prev, n_after0);
  s[HeadRole::first] = mean_or_nan(first, n_after0);
  if (has_bos) s[HeadRole::bos] = mean_or_nan(bos, n_after0);
  s[HeadRole::self] = mean_or_nan(self, n_informative);
  s[HeadRole::local] = mean_or_nan(local, n_informative);
  if (keyed) s[HeadRole::duplicate] = mean_or_nan(dup, n_dup);
  s[HeadRole::broadness] = mean_or_nan(broad, n_informative);
  return s;
}

HeadRoleScores head_role_scores(const Map& attention, const KeyMask& mask, const std::vector<int>& token_keys,
                                int bos_id, const RoleOptions& options) {
  std::vector<int> queries(size_t(attention.rows()));
  for (size_t i = 0; i < queries.size(); ++i) queries[i] = int(i);
  return head_role_scores(attention, queries, mask, token_keys, bos_id, options);
}

namespace {

// Uniform attention over the visible keys of each query in `queries` ([R, T]).
Map uniform_rows(const std::vector<int>& queries, int T, const KeyMask& mask) {
  Map rows = Map::Zero(Eigen::Index(queries.size()), T);
  for (size_t r = 0; r < queries.size(); ++r) {
    const int i = queries[r], c = mask.visible_count(i, T);
    if (c <= 0) continue;
    for (int j = 0; j < T; ++j)
      if (mask.visible(i, j)) rows(Eigen::Index(r), j) = 1.0f / float(c);
  }
  return rows;
}

}  // namespace

HeadRoleScores uniform_role_scores(const std::vector<int>& queries, int T, const KeyMask& mask,
                                   const std::vector<int>& token_keys, int bos_id, const RoleOptions& options,
                                   int probe_tokens) {
  HeadRoleScores s = head_role_scores(uniform_rows(queries, T, mask), queries, mask, token_keys, bos_id, options);
  const int offset = probe_tokens % 2, n = (probe_tokens - offset) / 2;
  if (probe_tokens > 0 && n >= 1) {
    std::vector<int> all;
    for (int i = 0; i < probe_tokens; ++i) all.push_back(i);
    s[HeadRole::induction] = induction_score(uniform_rows(all, probe_tokens, mask), offset, n);
  }
  return s;
}

std::vector<int> induction_probe_ids(int vocab, int bos_id, int n, uint64_t seed) {
  const int usable = vocab - (bos_id >= 0 && bos_id < vocab ? 1 : 0);
  if (n < 2) throw InputError("induction probe length (" + std::to_string(n) + ") must be 2 or more");
  if (usable < n) {
    throw InputError("induction probe needs " + std::to_string(n) + " distinct tokens; the vocabulary has " +
                     std::to_string(usable));
  }
  Rng rng(seed);
  std::vector<int> half;
  std::unordered_set<int> used;
  while (int(half.size()) < n) {
    const int id = int(rng.next_u64() % uint64_t(vocab));
    if (id == bos_id || !used.insert(id).second) continue;
    half.push_back(id);
  }
  std::vector<int> ids;
  if (bos_id >= 0) ids.push_back(bos_id);
  ids.insert(ids.end(), half.begin(), half.end());
  ids.insert(ids.end(), half.begin(), half.end());
  return ids;
}

float induction_score(const Map& attention, int offset, int n) {
  // Second copy: positions p = offset + n + k (k = 0..n-1); the earlier occurrence is p - n and
  // the token after it p - n + 1.
  assert(attention.rows() == offset + 2 * n && "a map of the probe");
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const int p = offset + n + k;
    sum += attention(p, p - n + 1);
  }
  return float(sum / n);
}

std::string strongest_role(const HeadRoleScores& s, float threshold, const HeadRoleScores* chance, float margin) {
  // Clears chance by the margin (or chance is not known).
  const auto above_chance = [&](HeadRole r) { return !chance || std::isnan((*chance)[r]) || s[r] >= (*chance)[r] + margin; };
  // Specific roles first; on a tie the earlier one (first before bos).
  const HeadRole specific[] = {HeadRole::previous, HeadRole::first, HeadRole::bos, HeadRole::self, HeadRole::duplicate,
                               HeadRole::induction};
  float best = -1;
  const char* name = "";
  for (const HeadRole r : specific)
    if (!std::isnan(s[r]) && s[r] >= threshold && above_chance(r) && s[r] > best) {
      best = s[r];
      name = head_role_name(r);
    }
  if (*name) return name;
  if (!std::isnan(s[HeadRole::broadness]) && s[HeadRole::broadness] >= kBroadLabelMin) return "broad";
  if (!std::isnan(s[HeadRole::local]) && s[HeadRole::local] >= kLocalLabelMin && above_chance(HeadRole::local)) return "local";
  return "";
}

std::string head_label_rule(float threshold, float margin) {
  char chance[96] = "";
  if (margin >= 0) std::snprintf(chance, sizeof chance, " and at least its chance level + %.2f", double(margin));
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "a head's role is its strongest of previous, first, bos, self, duplicate and induction at or above "
                "%.2f%s (first before bos on a tie), else broad when broadness >= %.1f, else local when local >= %.1f%s, "
                "else %s; %s = not measured",
                double(threshold), chance, double(kBroadLabelMin), double(kLocalLabelMin),
                margin >= 0 ? " and clears its chance level as much" : "", kNoRoleMark, kNotMeasuredMark);
  return buf;
}

float HeadRoles::chance_of(int layer, HeadRole role) const {
  if (layer < 0 || size_t(layer) >= chance.size()) return std::numeric_limits<float>::quiet_NaN();
  return chance[size_t(layer)][role];
}

bool same_role_scores(const HeadRoleScores& a, const HeadRoleScores& b) {
  for (int r = 0; r < kHeadRoleCount; ++r)
    if (!(a.score[r] == b.score[r] || (std::isnan(a.score[r]) && std::isnan(b.score[r])))) return false;
  return true;
}

namespace {

// Mean and sample standard deviation of the finite values of one role (NaN: none; sd NaN below two).
void null_roles_mean_sd(const std::vector<double>& v, float& mean, float& sd) {
  if (v.empty()) return;
  double sum = 0;
  for (double x : v) sum += x;
  const double m = sum / double(v.size());
  mean = float(m);
  if (v.size() < 2) return;
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  sd = float(std::sqrt(ss / double(v.size() - 1)));
}

}  // namespace

NullRoleScores pool_null_roles(const std::vector<HeadRoles>& models, uint64_t seed, std::string initialisation) {
  NullRoleScores out;
  out.models = int(models.size());
  out.seed = seed;
  out.initialisation = std::move(initialisation);
  if (models.empty()) return out;
  const int L = models[0].n_layers();
  out.layer_mean.resize(size_t(L));
  out.layer_sd.resize(size_t(L));
  for (int r = 0; r < kHeadRoleCount; ++r) {
    std::vector<double> all;
    for (int l = 0; l < L; ++l) {
      std::vector<double> layer;
      for (const HeadRoles& m : models) {
        assert(m.n_layers() == L && "null models share the loaded model's shape");
        for (const HeadRoleScores& s : m.scores[size_t(l)])
          if (std::isfinite(s.score[r])) layer.push_back(double(s.score[r]));
      }
      null_roles_mean_sd(layer, out.layer_mean[size_t(l)].score[r], out.layer_sd[size_t(l)].score[r]);
      all.insert(all.end(), layer.begin(), layer.end());
    }
    null_roles_mean_sd(all, out.mean.score[r], out.sd.score[r]);
  }
  return out;
}

bool HeadRoles::chance_same_everywhere() const {
  for (size_t l = 1; l < chance.size(); ++l)
    if (!same_role_scores(chance[0], chance[l])) return false;
  return true;
}

std::string HeadRoles::label_rule() const {
  return head_label_rule(options.threshold, chance.empty() ? -1.0f : options.chance_margin);
}

}  // namespace hs

namespace hs {

KeyMask layer_key_mask(const ModelInfo& info, int layer) {
  KeyMask m;
  m.causal = info.causal;
  m.window = info.layer_window(layer);
  return m;
}

HeadRoles compute_head_roles(const AttentionRun& run, int bos_id, const AttentionRun* probe,
                             const std::vector<int>& probe_ids, const RoleOptions& options, int sample_rows,
                             int threads, const RowEntropies* entropies) {
  HeadRoles out;
  out.options = options;
  const int T = run.n_tokens(), L = run.n_layers(), H = run.n_heads();
  // One integer per token, equal for equal tokens.
  std::vector<int> keys = run.token_ids;
  if (int(keys.size()) != T) {
    keys.clear();
    std::unordered_map<std::string, int> seen;
    for (const std::string& t : run.tokens) keys.push_back(seen.emplace(t, int(seen.size())).first->second);
    bos_id = -1;
  }
  const bool sampled = run.compact();
  std::vector<int> queries;
  if (sampled) {
    const int R = std::min(T, sample_rows);
    for (int r = 0; r < R; ++r) queries.push_back(int((int64_t(r) * T + T / 2) / R));  // evenly spaced
  } else {
    for (int i = 0; i < T; ++i) queries.push_back(i);
  }
  out.query_rows = int(queries.size());
  const bool with_probe = probe && !probe_ids.empty() && probe->n_layers() == L && probe->n_heads() == H &&
                          !probe->compact() && probe->n_tokens() == int(probe_ids.size());
  const int offset = with_probe ? int(probe_ids.size()) % 2 : 0;  // BOS makes the probe odd
  const int n = with_probe ? (int(probe_ids.size()) - offset) / 2 : 0;
  out.induction_measured = with_probe;
  if (with_probe) out.probe_ids = probe_ids, out.probe_seeds = 1;
  out.scores.assign(size_t(L), std::vector<HeadRoleScores>(size_t(H)));
  out.label.assign(size_t(L), std::vector<std::string>(size_t(H)));
  // Chance levels: one uniform map per distinct mask (most models: one for every layer).
  for (int l = 0; l < L; ++l) {
    const KeyMask mask = layer_key_mask(run.info, l);
    out.masks.push_back(mask);
    int same = -1;
    for (int k = 0; k < l && same < 0; ++k)
      if (out.masks[size_t(k)].causal == mask.causal && out.masks[size_t(k)].window == mask.window) same = k;
    out.chance.push_back(same >= 0 ? out.chance[size_t(same)]
                                   : uniform_role_scores(queries, T, mask, keys, bos_id, options,
                                                         with_probe ? int(probe_ids.size()) : 0));
  }
  // Heads are independent: one work item each, every item writes only its own slot.
  const int64_t cells = int64_t(queries.size()) * T;
  parallel_for(L * H, threads_for_work(threads, cells * L * H * 4), [&](int item) {
    const int l = item / H, h = item % H;
    const KeyMask mask = layer_key_mask(run.info, l);
    HeadRoleScores s;
    if (sampled) {
      Map rows(Eigen::Index(queries.size()), T);  // [R, T] exact rows of the sampled queries
      for (size_t r = 0; r < queries.size(); ++r) rows.row(Eigen::Index(r)) = run.exact->row(l, h, queries[r]).transpose();
      s = head_role_scores(rows, queries, mask, keys, bos_id, options);
    } else {
      const bool have = entropies && entropies->size() == size_t(L) && (*entropies)[size_t(l)].size() == size_t(H);
      s = head_role_scores(run.attention[size_t(l)][size_t(h)], queries, mask, keys, bos_id, options,
                           have ? &(*entropies)[size_t(l)][size_t(h)] : nullptr);
    }
    if (with_probe) s[HeadRole::induction] = induction_score(probe->attention[size_t(l)][size_t(h)], offset, n);
    out.label[size_t(l)][size_t(h)] = strongest_role(s, options.threshold, &out.chance[size_t(l)], options.chance_margin);
    out.scores[size_t(l)][size_t(h)] = s;
  });
  return out;
}

}  // namespace hs

namespace hs {

std::vector<HeadIndex> rank_heads(const HeadRoles& roles, int by, bool descending, const std::string& label) {
  std::vector<HeadIndex> out;
  for (int l = 0; l < roles.n_layers(); ++l)
    for (int h = 0; h < roles.n_heads(); ++h)
      if (label.empty() || roles.label[size_t(l)][size_t(h)] == label) out.push_back({l, h});
  const auto less = [&](const HeadIndex& x, const HeadIndex& y) {
    switch (by) {
      case kSortByLayer: return false;  // already in layer, head order
      case kSortByHead: return x.head < y.head;
      case kSortByLabel: return roles.label[size_t(x.layer)][size_t(x.head)] < roles.label[size_t(y.layer)][size_t(y.head)];
      default: return roles.scores[size_t(x.layer)][size_t(x.head)].score[by] < roles.scores[size_t(y.layer)][size_t(y.head)].score[by];
    }
  };
  const bool scores = by >= 0 && by < kHeadRoleCount;
  assert((scores || by == kSortByLayer || by == kSortByHead || by == kSortByLabel) && "a sort column");
  std::stable_sort(out.begin(), out.end(), [&](const HeadIndex& x, const HeadIndex& y) {
    if (scores) {
      const bool nx = std::isnan(roles.scores[size_t(x.layer)][size_t(x.head)].score[by]);
      const bool ny = std::isnan(roles.scores[size_t(y.layer)][size_t(y.head)].score[by]);
      if (nx || ny) return !nx && ny;  // measured before unmeasured
    }
    return descending ? less(y, x) : less(x, y);
  });
  if (by == kSortByLayer && descending) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace hs
