#include "core/formats/json_strict.h"

#include <set>
#include <vector>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {

using nlohmann::json;

json parse_json_strict(const char* begin, const char* end, const std::string& where) {
  // The keys seen so far in the open object at each depth (keys of an object at depth d are
  // reported at depth d + 1; a new object clears its set).
  std::vector<std::set<std::string>> keys;
  const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      if (keys.size() < size_t(depth) + 2) keys.resize(size_t(depth) + 2);
      keys[size_t(depth) + 1].clear();
    } else if (event == json::parse_event_t::key && size_t(depth) < keys.size()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys[size_t(depth)].insert(key).second) {
        throw FormatError(where + ": \"" + utf8_repair(key) + "\" appears twice in one object (a file names each key once)");
      }
    }
    return true;
  };
  try {
    return json::parse(begin, end, check);
  } catch (const json::exception& e) {
    throw FormatError(where + ": not valid JSON (" + e.what() + ")");
  }
}

json parse_json_strict(const std::string& text, const std::string& where) {
  return parse_json_strict(text.data(), text.data() + text.size(), where);
}

int64_t json_integer_in(const json& v, int64_t lo, int64_t hi, const std::string& what) {
  if (!v.is_number_integer()) throw FormatError(what + " is not an integer (" + v.dump() + ")");
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(hi) && int64_t(v.get<uint64_t>()) >= lo
                                           : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!fits) {
    throw FormatError(what + " is " + v.dump() + "; expected a whole number from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
  }
  return v.get<int64_t>();
}

}  // namespace hs
