#include "app/gui/widgets/token_notes.h"

#include <algorithm>

#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/theme.h"
#include "core/model/next_token_rows.h"

namespace hs::gui {

bool is_generated(const AttentionRun& run, int i) {
  return run.prompt_tokens > 0 && run.prompt_tokens < run.n_tokens() && i >= run.prompt_tokens && i < run.n_tokens();
}

int first_generated(const AttentionRun& run) { return is_generated(run, run.prompt_tokens) ? run.prompt_tokens : -1; }

ImVec4 generated_colour_vec() { return tone(Tone::generated); }

ImU32 generated_colour() { return ImGui::GetColorU32(generated_colour_vec()); }

std::string spelled_text(const AttentionRun& run, int from, int to) {
  std::string out;
  const std::string mark = "\xE2\x96\x81";  // U+2581, the loaders' space mark
  for (int i = std::max(from, 0); i < to && i < run.n_tokens(); ++i) {
    const std::string& t = run.tokens[size_t(i)];
    for (size_t k = 0; k < t.size();) {
      if (t.compare(k, mark.size(), mark) == 0) out += ' ', k += mark.size();
      else out += t[k++];
    }
  }
  return out;
}

std::string next_token_note(const AttentionRun& run, int i) {
  if (i < 0 || i >= int(run.next_tokens.size())) return "";
  // The prediction after a shown position: computed here the first time (one row of the output
  // projection) when the run predicted only its last (core/model/next_token_rows.h).
  const std::string next = next_token_label(run, i);
  // The unknown-word token is no prediction a class can read (the teaching model's small vocabulary).
  if (next == "<unk>") return "";
  std::string s = "model expects \"" + display_token(next) + "\" next";
  if (i + 1 < run.n_tokens()) {
    const bool hit = size_t(i + 1) < run.token_ids.size() && next_token_id(run, i) == run.token_ids[size_t(i + 1)];
    s += hit ? "  (and it does follow)" : "  (\"" + display_token(run.tokens, size_t(i + 1)) + "\" follows)";
  }
  return s;
}

void draw_next_token_line(const AttentionRun& run, int query) {
  const std::string note = next_token_note(run, query);
  if (note.empty()) return;
  ImGui::TextDisabled("after \"%s\" (token %d): %s%s", display_token(run.tokens, size_t(query)).c_str(), query,
                      note.c_str(), is_generated(run, query) ? "  \xC2\xB7  generated token" : "");
}

}  // namespace hs::gui
