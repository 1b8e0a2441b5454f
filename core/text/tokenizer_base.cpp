#include "core/text/tokenizer_base.h"

#include <cstdio>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {

Encoding SubwordTokenizer::encode_pair(std::string_view a, std::optional<std::string_view> b) const {
  if (b) throw InputError("this tokenizer has no sentence-pair form (only tokenizers with a pair template have one: BERT, RoBERTa, XLM-R, ...)");
  Encoding e;
  e.ids = encode(a);
  for (const int id : e.ids) {
    const bool special = is_special(id);
    e.type_ids.push_back(0);
    e.sequence_ids.push_back(special ? -1 : 0);
    e.special.push_back(special);
    e.labels.push_back(label(id));
  }
  return e;
}

bool SubwordTokenizer::is_special(int) const { return false; }

std::string visible_label(std::string_view bytes) {
  std::string out;
  for (size_t pos = 0; pos < bytes.size();) {
    size_t len = 1;
    const int32_t cp = utf8_decode(bytes, pos, len);
    if (cp == ' ') out += "\xE2\x96\x81";        // ▁
    else if (cp == '\n') out += "\xE2\x86\xB5";  // ↵
    else if (cp == '\t') out += "\xE2\x87\xA5";  // ⇥
    else if (cp < 0 || cp < 0x20 || cp == 0x7F) {
      for (size_t i = 0; i < len; ++i) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned char>(bytes[pos + i]));
        out += hex;
      }
    } else {
      out.append(bytes.substr(pos, len));
    }
    pos += len;
  }
  return out;
}

}  // namespace hs
