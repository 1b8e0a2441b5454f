#include "core/model/special_tokens.h"

#include <algorithm>
#include <optional>

namespace hs {

SentenceEncoder::SentenceEncoder(std::shared_ptr<const SubwordTokenizer> tokenizer) : tokenizer_(std::move(tokenizer)) {}

EncodedText SentenceEncoder::encode(std::string_view a, const std::string* b) const {
  const Encoding e = tokenizer_->encode_pair(a, b ? std::optional<std::string_view>(*b) : std::nullopt);
  EncodedText out;
  out.ids = e.ids;
  out.type_ids = e.type_ids;
  out.special = e.special;
  const auto first_b = std::find(e.sequence_ids.begin(), e.sequence_ids.end(), 1);
  if (b && first_b != e.sequence_ids.end()) out.segment_b_start = int(first_b - e.sequence_ids.begin());
  return out;
}

EncodedText SentenceEncoder::from_ids(std::vector<int> ids, std::vector<int> type_ids) const {
  EncodedText out;
  for (const int id : ids) out.special.push_back(tokenizer_->is_special(id));
  const auto b = std::find_if(type_ids.begin(), type_ids.end(), [](int t) { return t != 0; });
  if (b != type_ids.end()) out.segment_b_start = static_cast<int>(b - type_ids.begin());
  out.ids = std::move(ids);
  out.type_ids = std::move(type_ids);
  return out;
}

}  // namespace hs
