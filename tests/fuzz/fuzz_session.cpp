// libFuzzer harness: arbitrary bytes as a session file and as a lesson file. Must parse or
// throw hs::Error; a parsed session must survive a save/parse round trip unchanged.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/session/lesson_file.h"
#include "core/session/session_file.h"
#include "core/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hs::Session s = hs::parse_session(text, "fuzz.json");
    const std::string once = hs::session_to_json(s);
    if (hs::session_to_json(hs::parse_session(once, "again.json")) != once) __builtin_trap();
  } catch (const hs::Error&) {
  }
  try {
    (void)hs::parse_lesson(text, "fuzz.json");
  } catch (const hs::Error&) {
  }
  return 0;
}
