#include "core/analysis/pair_target.h"

#include "core/model/transformer_session.h"
#include "core/text/token_label.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// The session of a language model's request, or an InputError saying why there is none.
std::unique_ptr<Prepared> language_model(const ModelRequest& r, CheckpointCache* cache) {
  if (!r.attention_file.empty())
    throw InputError("logit differences need the model's weights: maps read from a file (--attention) have none");
  if (r.model_path.empty())
    throw InputError("logit differences need a language model (--model): the synthetic layer and --weights predict no next token");
  if (r.generate > 0) throw InputError("--target compares continuations of the sentences as typed; leave out --generate");
  std::unique_ptr<Prepared> prepared = prepare(r, cache);
  if (!dynamic_cast<const TransformerSession*>(prepared.get())) throw InputError("logit differences need a language model (--model PATH)");
  return prepared;
}

// The first piece of `text` after sentence a, checked to be the same after sentence b; `pieces`
// gets how many pieces it is after a.
int first_piece(const SubwordTokenizer& tokenizer, const std::string& a, const std::string& b, const std::string& text, int& pieces) {
  if (a.empty() || b.empty()) throw InputError("--target and --versus continue the sentences as typed: give both as text (--sentence)");
  const std::vector<int> after_a = continuation_ids(tokenizer, a, text), after_b = continuation_ids(tokenizer, b, text);
  if (after_a[0] != after_b[0]) {
    throw InputError("the continuation '" + text + "' starts with '" + tokenizer.label(after_a[0]) + "' after sentence A but '" +
                     tokenizer.label(after_b[0]) + "' after sentence B; compare continuations that start alike");
  }
  pieces = int(after_a.size());
  return after_a[0];
}

std::string pieces_note(const SubwordTokenizer& tokenizer, const std::string& text, int id, int pieces) {
  return "'" + text + "' is " + std::to_string(pieces) + " pieces; its logit is that of its first piece, " + tokenizer.label(id);
}

std::string positions_note(const HeadPatching& p, bool every, int n_a, int n_b) {
  if (every) return "patched at every position (both sentences are " + std::to_string(n_a) + " tokens)";
  return "the sentences are " + std::to_string(n_a) + " and " + std::to_string(n_b) + " tokens: patched at the " +
         std::to_string(p.positions.size()) +
         " positions the alignment pairs (the same token or a replaced one); B's other positions keep their own";
}

}  // namespace

PairAnswer answer_pair(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const PairQuestion& question,
                       const PatchingOptions& options, CheckpointCache* cache) {
  const std::unique_ptr<Prepared> prepared = language_model(a.request, cache);
  const auto& session = static_cast<const TransformerSession&>(*prepared);
  const TransformerModel& model = session.model();
  const SubwordTokenizer& tokenizer = session.tokenizer();
  require_next_token(model);
  PairAnswer out;
  out.question = question;
  const std::string &sa = a.request.sentence, &sb = b.request.sentence;
  out.ids.target = first_piece(tokenizer, sa, sb, question.target, out.target_pieces);
  out.ids.versus = first_piece(tokenizer, sa, sb, question.versus, out.versus_pieces);
  out.target_token = tokenizer.label(out.ids.target);
  out.versus_token = tokenizer.label(out.ids.versus);
  if (out.target_pieces > 1) out.notes.push_back(pieces_note(tokenizer, question.target, out.ids.target, out.target_pieces));
  if (out.versus_pieces > 1) out.notes.push_back(pieces_note(tokenizer, question.versus, out.ids.versus, out.versus_pieces));
  const std::vector<int>&ids_a = a.run.token_ids, &ids_b = b.run.token_ids;
  if (!question.patch) {
    out.logit_diff_a = logit_difference(model, ids_a, out.ids);
    out.logit_diff_b = logit_difference(model, ids_b, out.ids);
    return out;
  }
  const std::vector<PatchPosition> positions =
      patch_positions(contrast.alignment, int(ids_a.size()), int(ids_b.size()), &out.every_position);
  auto patching = std::make_shared<HeadPatching>(patch_heads(model, ids_a, ids_b, positions, out.ids, options));
  out.logit_diff_a = patching->logit_diff_a;
  out.logit_diff_b = patching->logit_diff_b;
  out.notes.push_back(positions_note(*patching, out.every_position, int(ids_a.size()), int(ids_b.size())));
  if (patching->gap_too_small)
    out.notes.push_back("the logit differences after A and B are equal (within 1e-6): no gap for a head to restore, so no share");
  if (!patching->complete) out.notes.push_back("cancelled: the heads not patched have no share");
  out.patching = std::move(patching);
  return out;
}

}  // namespace hs
