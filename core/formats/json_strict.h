#pragma once
// JSON read from files, strictly: nlohmann keeps the last of a key repeated in one object
// without a word, so a safetensors header naming a tensor twice, or a vocabulary listing a piece
// twice, was read as whichever came last. Here a repeated key is a FormatError naming the file
// and the key; and ids are range-checked before they are cut to an int (2^40 became 0).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace hs {

// Parses [begin, end). Throws FormatError "<where>: not valid JSON (...)" or "<where>: \"key\"
// appears twice in one object". `where` is usually the path, or "PATH: safetensors header".
nlohmann::json parse_json_strict(const char* begin, const char* end, const std::string& where);
nlohmann::json parse_json_strict(const std::string& text, const std::string& where);

// An integer in [lo, hi] (0 <= hi), or a FormatError: "<what> is not an integer (...)", "<what> is
// 1099511627776; expected a whole number from 0 to 4194303".
int64_t json_integer_in(const nlohmann::json& v, int64_t lo, int64_t hi, const std::string& what);

}  // namespace hs
