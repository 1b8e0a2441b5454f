#include "core/model/teaching_model.h"

#include <cassert>

#include "core/model/attention_layer.h"
#include "core/model/context_editor.h"
#include "core/model/transformer_ops.h"
#include "core/text/teaching_vocabulary.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

constexpr int kHeads = 4, kLayers = 2;
constexpr float kMatch = 20.0f;      // b: a key that matches wins by e^20 over one that does not
constexpr float kPerPosition = 8.0f;  // who/what heads: score per position nearer (or earlier)
constexpr float kLogitScale = 10.0f;  // logits = 10 * next
constexpr float kNoGuess = 0.4f;      // ... + 4 on <unk>
constexpr float kPerBit = 2.5f;       // a word outside the core table: + 2.5 (s(w) . next_bits - m)

// Slots of the residual stream (see the header).
struct Layout {
  int P = kTeachingPositions;
  int K = kTeachingSlots;
  int B = 0;  // m, the bits of an id (docs/teaching-model.md)
  int pos = 0, tok = 0, feat = 0, bits = 0, prev = 0, next = 0, next_bits = 0, d = 0;
  int dh = 0;  // head width: token part [0, K), position part [K, K + P); values carry id bits in [K, K + B)
  explicit Layout(int vocab) {
    while ((int64_t(1) << B) < vocab) ++B;
    assert(B <= P && "the id bits fit in a value's position part");
    tok = pos + P;
    feat = tok + K;
    bits = feat + 3;
    prev = bits + B;
    next = prev + K;
    next_bits = next + K;
    d = next_bits + B;
    dh = K + P;
  }
  int feature(WordFeature f) const { return feat + (f == WordFeature::name ? 0 : f == WordFeature::pronoun ? 1 : 2); }
};

const Layout& layout() {
  static const Layout l(int(teaching_vocabulary().size()));
  return l;
}

// Bit k of an id as +1 or -1: s(id) [B].
float teaching_id_sign(int id, int k) { return (id >> k) & 1 ? 1.0f : -1.0f; }

// Head h's rows of a [H*dh, d] projection.
auto head_rows(Map& w, int h) { return w.middleRows(Eigen::Index(h) * layout().dh, layout().dh); }

AttentionConfig teaching_attention(const ModelInfo& info) { return layer_attention_config(info, 0); }

}  // namespace

namespace {

// Each head's job, [layer][head]: its one-word name and the words its tile shows.
struct TeachingHeadJob {
  const char* name;
  const char* title;
};
constexpr TeachingHeadJob kTeachingHeadJobTable[kLayers][kHeads] = {
    {{"previous", "previous token"}, {"first", "first token"}, {"who", "who: pronoun \xE2\x86\x92 name"}, {"what", "what: pronoun \xE2\x86\x92 noun"}},
    {{"induction", "induction"}, {"duplicate", "duplicate"}, {"self", "self"}, {"broad", "broad: even rows"}}};

std::vector<std::vector<std::string>> teaching_job_strings(const char* TeachingHeadJob::*field) {
  std::vector<std::vector<std::string>> out;
  for (const auto& layer : kTeachingHeadJobTable) {
    out.emplace_back();
    for (const TeachingHeadJob& job : layer) out.back().emplace_back(job.*field);
  }
  return out;
}

}  // namespace

const std::vector<std::vector<std::string>>& teaching_head_jobs() {
  static const std::vector<std::vector<std::string>> jobs = teaching_job_strings(&TeachingHeadJob::name);
  return jobs;
}

const std::vector<std::vector<std::string>>& teaching_head_titles() {
  static const std::vector<std::vector<std::string>> titles = teaching_job_strings(&TeachingHeadJob::title);
  return titles;
}

TeachingModel::TeachingModel() {
  const Layout& L = layout();
  const int H = kHeads, P = L.P, K = L.K, dh = L.dh;
  std::vector<Layer> layers(kLayers);
  for (Layer& layer : layers) {
    layer.wq = Map::Zero(H * dh, L.d);
    layer.wk = Map::Zero(H * dh, L.d);
    layer.wv = Map::Zero(H * dh, L.d);
    layer.wo = Map::Zero(L.d, H * dh);
    // Every head's value is the key's token: v_j = tok(j) in the token part, s(j) (its id's bits)
    // after it.
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < K; ++t) head_rows(layer.wv, h)(t, L.tok + t) = 1.0f;
      for (int k = 0; k < L.B; ++k) head_rows(layer.wv, h)(K + k, L.bits + k) = 1.0f;
    }
  }
  // The position part of a head is slots K .. K + P - 1; sum_t pos_t = 1 in every row, so a
  // projection row that reads every pos slot with weight c is the constant c.
  const auto pos_part = [&](int p) { return K + p; };
  // Keys that read a token's position: k_j = pos(j).
  const auto keys_are_positions = [&](Map& wk, int h) {
    for (int p = 0; p < P; ++p) head_rows(wk, h)(pos_part(p), L.pos + p) = 1.0f;
  };

  Layer& l0 = layers[0];
  // L0 h0 previous: q_i = b pos(i - 1); row 0 has no previous token (q = 0: it sees only itself).
  for (int p = 1; p < P; ++p) head_rows(l0.wq, 0)(pos_part(p - 1), L.pos + p) = kMatch;
  keys_are_positions(l0.wk, 0);
  for (int t = 0; t < K; ++t) l0.wo(L.prev + t, 0 * dh + t) = 1.0f;  // writes tok(i - 1) into prev
  // L0 h1 first: q_i = b pos(0) whatever i is (the constant from the pos slots).
  for (int p = 0; p < P; ++p) head_rows(l0.wq, 1)(pos_part(0), L.pos + p) = kMatch;
  keys_are_positions(l0.wk, 1);
  // L0 h2 who and h3 what: one score dimension (the head's first), q_i = is_pronoun(i).
  const float big = kPerPosition * P + kMatch;  // B: more than any position term can add
  for (int h : {2, 3}) {
    head_rows(l0.wq, h)(0, L.feature(WordFeature::pronoun)) = 1.0f;
    head_rows(l0.wk, h)(0, L.feature(h == 2 ? WordFeature::name : WordFeature::noun)) = big;
    for (int p = 0; p < P; ++p) head_rows(l0.wk, h)(0, L.pos + p) = (h == 2 ? kPerPosition : -kPerPosition) * float(p);
  }

  Layer& l1 = layers[1];
  // L1 h0 induction: q_i = b tok(i) - b pos(0), k_j = prev(j) + pos(j): a key whose previous token
  // is token i scores b, except key 0, which has no previous token (L0 h0 wrote its own token there).
  for (int t = 0; t < K; ++t) head_rows(l1.wq, 0)(t, L.tok + t) = kMatch;
  for (int t = 0; t < K; ++t) head_rows(l1.wk, 0)(t, L.prev + t) = 1.0f;
  for (int p = 0; p < P; ++p) head_rows(l1.wq, 0)(pos_part(0), L.pos + p) = -kMatch;
  keys_are_positions(l1.wk, 0);
  for (int t = 0; t < K; ++t) l1.wo(L.next + t, 0 * dh + t) = 1.0f;  // writes the key's token into next
  for (int k = 0; k < L.B; ++k) l1.wo(L.next_bits + k, 0 * dh + K + k) = 1.0f;  // and its id's bits
  // L1 h1 duplicate: q_i = b tok(i) - b pos(i), k_j = tok(j) + pos(j): an earlier copy scores b,
  // the query's own key b - b = 0, like every other key.
  for (int t = 0; t < K; ++t) head_rows(l1.wq, 1)(t, L.tok + t) = kMatch;
  for (int t = 0; t < K; ++t) head_rows(l1.wk, 1)(t, L.tok + t) = 1.0f;
  for (int p = 0; p < P; ++p) head_rows(l1.wq, 1)(pos_part(p), L.pos + p) = -kMatch;
  keys_are_positions(l1.wk, 1);
  // L1 h2 self: q_i = b pos(i).
  for (int p = 0; p < P; ++p) head_rows(l1.wq, 2)(pos_part(p), L.pos + p) = kMatch;
  keys_are_positions(l1.wk, 2);
  // L1 h3 broad: q = 0, nothing to prefer.
  layers_ = std::make_shared<const std::vector<Layer>>(std::move(layers));

  // The readout's id bits: s(w) for a word outside the core table, 0 for a core word (its slot is its own).
  const int core = int(teaching_core_words().size()), V = int(teaching_vocabulary().size());
  Map signs = Map::Zero(L.B, V);  // [B, V]
  for (int w = core; w < V; ++w)
    for (int k = 0; k < L.B; ++k) signs(k, w) = teaching_id_sign(w, k);
  readout_signs_ = std::make_shared<const Map>(std::move(signs));

  info_.kind = "teaching";
  info_.name = "teaching model";
  info_.d_model = L.d;
  info_.n_heads = H;
  info_.n_kv_heads = H;
  info_.d_head = dh;
  info_.n_layers = kLayers;
  info_.causal = true;
  info_.score_scale = 1.0f;
  info_.vocab_size = V;
  info_.param_count = 4 * int64_t(L.d) * H * dh;  // Wq, Wk, Wv [H*dh, d], Wo [d, H*dh]; no biases
  // + the readout: each word's logit reads the next and next_bits slots ([V, K + B]) and a bias.
  info_.total_params = kLayers * info_.param_count + int64_t(V) * (K + L.B + 1);
  info_.weight_bytes = info_.total_params * int64_t(sizeof(float));
  info_.weight_types = "F32";
}

TeachingModel::TeachingModel(const TeachingModel& base, const TeachingVariant& variant)
    : layers_(base.layers_), readout_signs_(base.readout_signs_), variant_(variant), info_(base.info_) {
  const int G = variant.kv_heads, H = kHeads;
  if (G < 1 || H % G != 0) {
    throw InputError("key/value heads (" + std::to_string(G) + ") must divide the teaching model's " +
                     std::to_string(H) + " heads: give 4, 2 or 1");
  }
  if (variant.window < -1) throw InputError("window (" + std::to_string(variant.window) + ") must be 0 or more, or -1 for none");
  info_.window = variant.window;  // layer_attention_config hands it to the engine for both layers
  const int64_t d = info_.d_model, dh = info_.d_head;
  info_.n_kv_heads = G;
  info_.param_count = 2 * d * H * dh + 2 * d * G * dh;  // Wq, Wo [H*dh, d]; Wk, Wv [G*dh, d]
  const int V = info_.vocab_size;
  info_.total_params = kLayers * info_.param_count + int64_t(V) * (layout().K + layout().B + 1);
  info_.weight_bytes = info_.total_params * int64_t(sizeof(float));
}

// Grouped-query attention: key/value head g is the projection of query head g * H / G, the first
// of its group. x: [n, d], w: [H*dh, d] -> [n, G*dh].
Map TeachingModel::grouped(const Map& x, const Map& w, int threads) const {
  const int G = variant_.kv_heads, group = kHeads / G, dh = layout().dh;
  if (G == kHeads) return matmul_wt(x, w, threads);
  Map first_heads(Eigen::Index(G) * dh, w.cols());  // [G*dh, d]
  for (int g = 0; g < G; ++g) first_heads.middleRows(Eigen::Index(g) * dh, dh) = w.middleRows(Eigen::Index(g) * group * dh, dh);
  return matmul_wt(x, first_heads, threads);
}

Map TeachingModel::embed(const std::vector<int>& ids, int first_pos) const {
  const Layout& L = layout();
  const auto& words = teaching_vocabulary();
  Map x = Map::Zero(Eigen::Index(ids.size()), L.d);  // [n, d]
  for (size_t t = 0; t < ids.size(); ++t) {
    const int id = ids[t], p = first_pos + int(t);
    assert(id >= 0 && size_t(id) < words.size() && p < L.P && "ids and length checked by the session");
    const TeachingEntry& w = words[size_t(id)];
    x(Eigen::Index(t), L.pos + p) = 1.0f;
    x(Eigen::Index(t), L.tok + w.slot) = 1.0f;
    for (int k = 0; k < L.B; ++k) x(Eigen::Index(t), L.bits + k) = teaching_id_sign(id, k);
    if (w.feature != WordFeature::none) x(Eigen::Index(t), L.feature(w.feature)) = 1.0f;
  }
  return x;
}

Map TeachingModel::forward(const std::vector<int>& ids, Observer* observer, int threads) const {
  const AttentionConfig ac = teaching_attention(info_);
  const int dh = layout().dh;
  Map x = embed(ids, 0);  // [T, d]
  for (int l = 0; l < kLayers; ++l) {
    const Layer& w = (*layers_)[size_t(l)];
    Map q = matmul_wt(x, w.wq, threads), k = grouped(x, w.wk, threads), v = grouped(x, w.wv, threads);  // [T, H*dh], [T, G*dh]
    if (variant_.scrambled_reshape) q = scramble_heads(q, dh), k = scramble_heads(k, dh), v = scramble_heads(v, dh);
    Map ctx = attend_heads(q, k, v, ac, l, observer, threads);  // [T, H*dh]
    if (ContextEditor* editor = as_context_editor(observer)) editor->edit_contexts(l, ctx);  // head ablation
    const Map out = matmul_wt(ctx, w.wo, threads);  // [T, d]
    if (observer && observer->wants(TensorKind::output, l, -1)) observer->on_tensor(TensorKind::output, l, -1, out);
    x += out;
  }
  return x;
}

Map TeachingModel::forward_cached(const std::vector<int>& new_ids, KvCache& cache) const {
  // The scrambled split mixes each token with later ones: there is no cache to extend.
  if (variant_.scrambled_reshape) throw InputError("the teaching model with the scrambled reshape cannot continue a text");
  const AttentionConfig ac = teaching_attention(info_);
  const int first = cache.length, width = variant_.kv_heads * layout().dh;
  if (cache.k.empty()) cache.k.assign(kLayers, Map(0, width));
  if (cache.v.empty()) cache.v.assign(kLayers, Map(0, width));
  Map x = embed(new_ids, first);  // [n, d]
  for (int l = 0; l < kLayers; ++l) {
    const Layer& w = (*layers_)[size_t(l)];
    append_rows(cache.k[size_t(l)], grouped(x, w.wk, 1));
    append_rows(cache.v[size_t(l)], grouped(x, w.wv, 1));
    const Map ctx = attend_cached(matmul_wt(x, w.wq), cache.k[size_t(l)], cache.v[size_t(l)], ac, first);
    x += matmul_wt(ctx, w.wo);
  }
  cache.length += int(new_ids.size());
  return x;
}

Map TeachingModel::logits(const Map& hidden, int threads) const {
  (void)threads;
  const Layout& L = layout();
  const auto& words = teaching_vocabulary();
  const int V = int(words.size()), core = int(teaching_core_words().size());
  // logit(w) = 10 next[slot(w)], + 4 on <unk> (no guess: <unk> wins unless the induction head put
  // at least 0.4 of its row on one copy), and for a word outside the core table, whose slot other
  // words share, + 2.5 (s(w) . next_bits - m): each bit of its id that differs from the copied
  // token's costs 5, so among the words of a slot the copied one wins.
  Map out = kPerBit * (hidden.middleCols(L.next_bits, L.B) * *readout_signs_);  // [n, V]
  out.rightCols(V - core).array() -= kPerBit * float(L.B);
  for (int w = 0; w < V; ++w) out.col(w) += kLogitScale * hidden.col(L.next + words[size_t(w)].slot);
  out.col(0).array() += kLogitScale * kNoGuess;
  return out;
}

std::string teaching_width_story() {
  const Layout& L = layout();
  return "d_model " + format_count(L.d) + " = " + std::to_string(L.P) + " positions + 3 x " + std::to_string(L.K) +
         " word codes (token, previous, next) + 2 x " + std::to_string(L.B) + " id bits + 3 word classes; head width " +
         std::to_string(L.dh) + " = " + std::to_string(L.K) + " + " + std::to_string(L.P) +
         ". The width is bookkeeping: every feature keeps slots of its own, and it does not grow with the vocabulary.";
}

std::shared_ptr<const TeachingModel> teaching_model(const TeachingVariant& variant) {
  static const std::shared_ptr<const TeachingModel> model = std::make_shared<const TeachingModel>();
  if (variant.kv_heads == kHeads && !variant.scrambled_reshape && variant.window < 0) return model;
  return std::make_shared<const TeachingModel>(*model, variant);  // shares the weights: cheap
}

std::shared_ptr<const SubwordTokenizer> teaching_tokenizer() {
  static const std::shared_ptr<const SubwordTokenizer> tokenizer = std::make_shared<const TeachingTokenizer>();
  return tokenizer;
}

}  // namespace hs
