#include "core/text/tokenizer_base.h"

#include <cstdio>

#include "core/util/utf8.h"

namespace hs {

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
