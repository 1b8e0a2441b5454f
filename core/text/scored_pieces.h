#pragma once
// SentencePiece-style BPE by piece scores, shared by llama2.c's run.c encoder and llama.cpp's
// SentencePiece tokenizer (GGUF tokenizer.ggml.model "llama"): a text starts as a row of symbols
// (one per character); then, repeatedly, the adjacent pair whose concatenated text is a piece with
// the highest score is merged, the leftmost such pair on ties, until no adjacent pair is a piece.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hs {

struct ScoredSymbol {
  std::string text;
  int id = -1;          // the piece `text` is, or -1
  bool frozen = false;  // never merged (SentencePiece's user-defined symbols)
};

class ScoredPieces {
 public:
  ScoredPieces() = default;
  // pieces[i] has id i and score scores[i] (same length). A repeated piece keeps its first id.
  // mergeable (empty: all): only those pieces are merge results and found by lookup().
  ScoredPieces(std::vector<std::string> pieces, std::vector<float> scores, std::vector<bool> mergeable = {});

  int size() const { return static_cast<int>(pieces_.size()); }
  const std::string& piece(int id) const { return pieces_.at(size_t(id)); }
  float score(int id) const { return scores_.at(size_t(id)); }
  int lookup(std::string_view text) const;  // -1 when `text` is not a piece

  // Merges `symbols` in place as described above. A pair is merged only when its piece's score is
  // above `floor` (run.c never merges at or below -1e10; llama.cpp has no floor: pass -inf).
  // on_candidate, when given, is told of every candidate pair as it is queued: (piece id, left
  // text, right text) (SentencePiece's record of how an unused piece was made).
  using CandidateHook = void (*)(void* context, int id, const std::string& left, const std::string& right);
  void merge(std::vector<ScoredSymbol>& symbols, float floor, CandidateHook on_candidate = nullptr, void* context = nullptr) const;

 private:
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace hs
