#include "core/text/byte_piece.h"

namespace hs {

int byte_piece_value(std::string_view piece, bool lower_case_too) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int v = 0;
  for (size_t i = 3; i < 5; ++i) {
    const char c = piece[i];
    const int d = (c >= '0' && c <= '9')                   ? c - '0'
                  : (c >= 'A' && c <= 'F')                 ? c - 'A' + 10
                  : (lower_case_too && c >= 'a' && c <= 'f') ? c - 'a' + 10
                                                           : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

}  // namespace hs
