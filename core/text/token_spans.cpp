#include "core/text/token_spans.h"

#include <string>

namespace hs {

std::vector<TokenSpan> token_byte_spans(const SubwordTokenizer& tok, std::string_view text, const Encoding& e) {
  std::vector<TokenSpan> spans;
  spans.reserve(e.ids.size());
  size_t cursor = 0;
  for (size_t i = 0; i < e.ids.size(); ++i) {
    TokenSpan s;
    if (i < e.sequence_ids.size() && e.sequence_ids[i] < 0) {  // added around the text
      spans.push_back(s);
      continue;
    }
    const std::string bytes = tok.piece_bytes(e.ids[i]);
    if (!bytes.empty() && text.compare(cursor, bytes.size(), bytes) == 0) {
      s = {true, cursor, cursor + bytes.size()};
    } else if (!bytes.empty() && bytes[0] == ' ' && text.compare(cursor, bytes.size() - 1, std::string_view(bytes).substr(1)) == 0) {
      s = {true, cursor, cursor + bytes.size() - 1};
    }
    if (s.found) cursor = s.end;
    spans.push_back(s);
  }
  return spans;
}

}  // namespace hs
