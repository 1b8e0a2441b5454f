#pragma once
// The teaching model: a two-layer, four-head causal transformer whose weights are written by
// hand, not learned, so that each head does one named job and the lessons can say what a map
// shows and be right (`--model teaching`; docs/teaching-model.md). Like a compiled transformer
// (tracr, RASP), its residual stream keeps every feature in slots of its own:
//
//   x[t] = [ pos: one-hot position t (P = 64 slots)
//          | tok: the token's identity code, one-hot over K = 512 slots (core/text/teaching_vocabulary.h:
//            a core word has a slot of its own, other words share the rest by a hash of the word)
//          | feat: is_name, is_pronoun, is_noun (3 slots, from the vocabulary's word classes)
//          | bits: the token's id in binary, +1 or -1 per bit (m = 16 slots: ids below 2^16)
//          | prev: the previous token's code, written by L0 h0 (K slots, 0 at the start)
//          | next: the predicted next token's code, written by L1 h0 (K slots, 0 at the start)
//          | next_bits: the predicted next token's id bits, written by L1 h0 (m slots) ]
//
// Every head has width d_head = K + P (a token part and a position part); scores are q . k with
// no 1/sqrt(d_head) (score_scale 1); b = 20 makes a matching key win by e^20. A head whose query
// is zero for a row (nothing to look for) spreads that row evenly over what it may see.
//   L0 h0 previous  q_i = b pos(i-1), k_j = pos(j)             -> key i - 1; writes tok(i-1) into prev
//   L0 h1 first     q_i = b pos(0),   k_j = pos(j)             -> key 0 (the first token)
//   L0 h2 who       q_i = is_pronoun(i), k_j = B is_name(j) + 8 j   -> the nearest name before a pronoun
//   L0 h3 what      q_i = is_pronoun(i), k_j = B is_noun(j) - 8 j   -> the first noun before a pronoun
//                   (B = 8 P + 20: any name/noun beats any other key; among them 8 per position decides)
//   L1 h0 induction q_i = b tok(i) - b pos(0), k_j = prev(j) + pos(j)
//                   -> the key just after an earlier copy of token i's code; writes that key's code
//                   into next and its id bits into next_bits
//   L1 h1 duplicate q_i = b tok(i) - b pos(i), k_j = tok(j) + pos(j) -> earlier tokens with i's code
//   L1 h2 self      q_i = b pos(i), k_j = pos(j)               -> key i
//   L1 h3 broad     q_i = 0                                    -> uniform over keys 0..i
// Values are v_j = [tok(j), bits(j)] for every head; only L0 h0 and L1 h0 write into the stream
// (the other heads' output projections are zero). Next-token logits are 10 * next[slot(w)], plus 4
// on <unk> (no guess), plus 2.5 (bits(w) . next_bits - m) for a word outside the core table (each
// differing id bit costs 5: the copied word beats the others of its slot). On a repeated text the
// induction pair predicts the repeat, elsewhere the model says <unk>. No norms, no MLP.
// Two different words outside the core table share a code with probability 1 / (K - core size):
// then the duplicate and induction heads take one for the other (docs/teaching-model.md).
//
// Variants for lesson 1 (the same weights, run differently; docs/teaching-model.md):
// - kv_heads G = 2 or 1: grouped-query attention. Query head h reads key/value head h / (4 / G),
//   which is the key and value projection of the first head of its group (head g * 4 / G): with
//   G = 2, L0 h1 (first) keeps its keys (positions, the same as h0's) and L0 h3 (what) reads who's
//   keys (names), so its pronoun rows land on the name, like h2's.
// - scrambled_reshape: q, k and v split into heads with the classic view(heads, T, d_head)
//   mistake (scramble_heads, core/model/attention_layer.h), in both layers.
// - window W >= 0: a sliding window on both layers (a query i sees keys i - W .. i), so a head
//   whose key is further back loses it: the first-token head and who/what's long reaches.
#include <memory>
#include <string>
#include <vector>

#include "core/model/transformer_model.h"
#include "core/text/tokenizer_base.h"

namespace hs {

constexpr int kTeachingPositions = 64;  // P: the longest text it reads

// The job of each head, [layer][head]: "previous", "first", "who", "what", "induction", "duplicate", "self", "broad".
const std::vector<std::vector<std::string>>& teaching_head_jobs();
// The same jobs as a head's tile names them, [layer][head]: "previous token", "who: pronoun → name", ...
const std::vector<std::vector<std::string>>& teaching_head_titles();

struct TeachingVariant {
  int kv_heads = 4;  // 4 (multi-head), 2 or 1
  bool scrambled_reshape = false;
  int window = -1;  // -1: causal only; W >= 0: keys i - W .. i
};

class TeachingModel : public TransformerModel {
 public:
  TeachingModel();
  // The same weights run as `variant` (shares them with `base`).
  TeachingModel(const TeachingModel& base, const TeachingVariant& variant);
  const ModelInfo& info() const override { return info_; }
  int max_positions() const override { return kTeachingPositions; }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override;
  Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const override;
  Map logits(const Map& hidden, int threads) const override;

 private:
  struct Layer {
    Map wq, wk, wv;  // [H*dh, d]  (nn.Linear layout: y = x W^T)
    Map wo;          // [d, H*dh]
  };
  Map embed(const std::vector<int>& ids, int first_pos) const;  // [n, d]
  // Key or value projections of x [n, d] by w [H*dh, d]: [n, G*dh], each group's first head's.
  Map grouped(const Map& x, const Map& w, int threads) const;

  std::shared_ptr<const std::vector<Layer>> layers_;
  std::shared_ptr<const Map> readout_signs_;  // [B, V]: s(w), the bits of word w's id as +-1 (0 for a core word)
  TeachingVariant variant_;
  ModelInfo info_;
};

// What its width is made of, for the model panel: "d_model 1,635 = 64 positions + 3 x 512 word
// codes (token, previous, next) + 2 x 16 id bits + 3 word classes; head width 576 = 512 + 64".
std::string teaching_width_story();

// The model with its tokenizer (shared: building the weights once is enough). A variant other than
// the default throws InputError for kv_heads other than 4, 2, 1 ("... must divide its 4 heads")
// and for a window under -1.
std::shared_ptr<const TeachingModel> teaching_model(const TeachingVariant& variant = {});
std::shared_ptr<const SubwordTokenizer> teaching_tokenizer();

}  // namespace hs
