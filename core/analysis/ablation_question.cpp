#include "core/analysis/ablation_question.h"

#include <algorithm>

#include "core/analysis/activation_patching.h"
#include "core/analysis/head_list.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

// A reference text is read whole: 64 MiB of sentences is past any mean that needs them.
constexpr size_t kMaxReferenceBytes = size_t(64) << 20;

bool blank_line(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
}

// The target's position and token id from the question, on `ids`.
AblationTarget pick_target(const AblationQuestion& q, const ModelRequest& request, const SubwordTokenizer& tokenizer,
                           const std::vector<int>& ids, AblationAnswer& out) {
  const int T = int(ids.size());
  AblationTarget t;
  if (q.target.empty() && q.target_position < 0) return t;
  t.position = q.target_position < 0 ? T - 1 : q.target_position;
  if (t.position >= T) {
    throw InputError("--target-position " + std::to_string(t.position) + " is past the input: expected a position from 0 to " +
                     std::to_string(T - 1) + " (" + std::to_string(T) + " tokens)");
  }
  if (q.target.empty()) {
    if (t.position == T - 1) {
      throw InputError("--target-position " + std::to_string(t.position) + " is the last token: no next token follows it; give "
                       "--target TEXT for the continuation to measure");
    }
    t.token_id = ids[size_t(t.position + 1)];
    return t;
  }
  if (request.sentence.empty()) throw InputError("--target TEXT continues the sentence as typed: give the input as --sentence");
  const std::vector<int> pieces = continuation_ids(tokenizer, request.sentence, q.target);
  t.token_id = pieces[0];
  out.target_pieces = int(pieces.size());
  if (pieces.size() > 1) {
    out.notes.push_back("'" + q.target + "' is " + std::to_string(pieces.size()) + " pieces; its log-prob is that of its first piece, " +
                        tokenizer.label(pieces[0]));
  }
  return t;
}

std::string reference_note(const std::string& path, const ReferenceLineCounts& c) {
  return "mean ablation over " + path + ": " + std::to_string(c.used) + " of " + std::to_string(c.lines) + " lines used (" +
         std::to_string(c.tokens) + " tokens); skipped " + std::to_string(c.blank) + " blank, " + std::to_string(c.invalid_utf8) +
         " invalid UTF-8, " + std::to_string(c.too_long) + " longer than the model's context";
}

}  // namespace

std::vector<std::vector<int>> reference_texts(const SubwordTokenizer& tokenizer, const std::string& path, int max_tokens,
                                              ReferenceLineCounts& counts) {
  const std::string text = read_file_limited(path, kMaxReferenceBytes, "a reference text");
  std::vector<std::vector<int>> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++counts.lines;
    if (blank_line(line)) {
      ++counts.blank;
      continue;
    }
    if (!utf8_is_valid(line)) {
      ++counts.invalid_utf8;
      continue;
    }
    std::vector<int> ids = tokenizer.encode(line);
    if (ids.empty()) {
      ++counts.blank;
      continue;
    }
    if (int(ids.size()) > max_tokens) {
      ++counts.too_long;
      continue;
    }
    ++counts.used;
    counts.tokens += int64_t(ids.size());
    out.push_back(std::move(ids));
  }
  return out;
}

AblationAnswer answer_ablation(const ModelRequest& request, const AblationQuestion& question, AblationOptions options,
                               CheckpointCache* cache) {
  if (request.model_path.empty()) {
    throw InputError("ablation needs a language model (--model): the synthetic layer and --weights predict no next token");
  }
  if (!question.reference.empty() && options.mode != AblationMode::mean) {
    throw InputError("--reference " + question.reference + " gives the means of mean ablation: add --ablation mean");
  }
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  const auto* session = dynamic_cast<const TransformerSession*>(prepared.get());
  if (!session) throw InputError("ablation needs a language model (--model PATH)");
  const TransformerModel& model = session->model();
  const SubwordTokenizer& tokenizer = session->tokenizer();
  AblationAnswer out;
  out.ids = session->continue_greedily();
  for (const int id : out.ids) out.tokens.push_back(tokenizer.label(id));
  if (!question.group.empty()) check_head_list(question.group, model.info().n_layers, model.info().n_heads);
  out.target = pick_target(question, request, tokenizer, out.ids, out);
  if (!out.target.is_mean_loss()) out.target_token = tokenizer.label(out.target.token_id);
  options.target = out.target;
  ContextMeanSet reference;
  if (!question.reference.empty()) {
    const std::vector<std::vector<int>> texts = reference_texts(tokenizer, question.reference, model.max_positions(), out.reference);
    if (texts.empty()) {
      throw InputError("--reference " + question.reference + " has no line to take means over (" + std::to_string(out.reference.lines) +
                       " lines: " + std::to_string(out.reference.skipped()) + " skipped); expected sentences, one a line");
    }
    reference = context_means(model, texts, options.threads, options.reference_progress);
    options.reference = &reference;
    out.notes.push_back(reference_note(question.reference, out.reference));
  }
  if (question.group.empty()) {
    auto heads = std::make_shared<HeadAblation>(ablate_heads(model, out.ids, options));
    heads->tokens = out.tokens;
    out.heads = std::move(heads);
  } else {
    auto group = std::make_shared<GroupAblation>(ablate_group(model, out.ids, question.group, options));
    group->tokens = out.tokens;
    out.group = std::move(group);
  }
  return out;
}

}  // namespace hs
