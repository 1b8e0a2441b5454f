#pragma once
// JSON read from files, strictly, and the one JSON reader of the program (every file it reads
// goes through here):
// - a repeated key in one object is a FormatError naming the file and the key (nlohmann alone
//   keeps the last one without a word, so a safetensors header naming a tensor twice was read as
//   whichever came last);
// - nesting deeper than kMaxJsonDepth is refused: nlohmann copies and dumps values recursively,
//   and a config.json with one unused key nested 10^6 deep overflowed the stack;
// - more than kMaxJsonValues values are refused: "[[],[],...]" costs some 64 bytes of memory
//   per 3 bytes of file;
// - the time is linear in the text (a parse callback made nlohmann rescan the parent after every
//   object: 20,000 safetensors tensors took 25 s);
// - ids are range-checked before they are cut to an int (2^40 became 0).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hs {

constexpr size_t kMaxJsonDepth = 512;             // arrays and objects open at once; files use < 10
constexpr size_t kMaxJsonValues = size_t(1) << 23;  // 8,388,608 (~600 MB at worst); real files: < 2M

// Parses [begin, end). Throws FormatError "<where>: not valid JSON (...)", "<where>: \"key\"
// appears twice in one object", "<where>: JSON nested deeper than 512 levels" or "<where>: more
// than 8,388,608 JSON values". `where` is usually the path, or "PATH: safetensors header".
nlohmann::json parse_json_strict(const char* begin, const char* end, const std::string& where);
nlohmann::json parse_json_strict(const std::string& text, const std::string& where);

// A member of a document read flat, without a json value per entry (a 150,000-piece vocabulary
// as json objects costs ten times what flat tables do): an object whose members are scalars, or an
// array whose elements are scalars or arrays of scalars. Deeper nesting is kept whole as json
// (`nested`), so the reader can name it; the rules above still apply to it.
struct JsonFlatMember {
  bool found = false;          // the member was there, as an object or an array
  bool is_object = false;
  std::vector<std::string> keys;     // object: the member keys, in file order (repeats kept)
  // The scalars (and, for an array, its elements' scalars) in file order, as json (strings in
  // `strings`, referred to by index: a json string costs a heap block each).
  std::vector<nlohmann::json> scalars;
  std::vector<int32_t> string_of;    // per scalar: index into strings, or -1
  std::vector<std::string> strings;
  std::vector<uint32_t> element_begin;  // array: index of each element's first scalar (+ one past the last)
  std::vector<bool> element_is_array;   // array: the element is an array of scalars
  std::vector<std::pair<size_t, nlohmann::json>> nested;  // (element or member index, value) nested deeper

  // The member as json (for readers that take json); a key repeated in an object is the
  // FormatError parse_json_strict gives, naming `where`.
  nlohmann::json to_json(const std::string& where) const;
};

// parse_json_strict, except that the members at `paths` (keys from the root, e.g. {"model",
// "vocab"}) that are objects or arrays are read into `flat` (one per path) and left as empty
// containers of their kind in the document.
nlohmann::json parse_json_strict_flat(const char* begin, const char* end, const std::string& where,
                                      const std::vector<std::vector<std::string>>& paths, std::vector<JsonFlatMember>& flat);

// For text that may be JSON or plain text (safetensors metadata strings): nullopt when it is not
// valid JSON; JSON that breaks a rule above still throws.
std::optional<nlohmann::json> parse_json_if_json(const std::string& text, const std::string& where);

// Refuses a key of the object `obj` that is not in `known` (a file with a misspelt key is not
// read as if the key were absent): FormatError "<where>: unknown key \"pannel\" (did you mean
// panel?); expected title, caption, ...". `where` names the file and the path to `obj`.
void check_known_keys(const nlohmann::json& obj, const std::vector<std::string>& known, const std::string& where);

// A value for a message: its JSON text cut to kExcerptCodePoints ("[[[[[[...").
std::string json_excerpt(const nlohmann::json& v);

// An integer in [lo, hi] (0 <= hi), or a FormatError: "<what> is not an integer (...)", "<what> is
// 1099511627776; expected a whole number from 0 to 4194303".
int64_t json_integer_in(const nlohmann::json& v, int64_t lo, int64_t hi, const std::string& what);

}  // namespace hs
