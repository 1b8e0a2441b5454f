#include "core/formats/json_strict.h"

#include <vector>

#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

using nlohmann::json;

// Builds the document from nlohmann's SAX events (its parser keeps its own state on the heap, so
// no input recurses) and checks the rules of json_strict.h as it goes. A repeated key is found
// where the key goes into its object (a std::map: log n per key, no rescans).
class StrictDomBuilder {
 public:
  StrictDomBuilder(json& root, const std::string& where, bool throw_on_syntax)
      : root_(root), where_(where), throw_on_syntax_(throw_on_syntax) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
  bool string(json::string_t& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t& v) { return put(json(std::move(v))); }

  bool start_object(size_t) { return open(json::object()); }
  bool start_array(size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    auto [it, inserted] = open_.back()->get_ref<json::object_t&>().try_emplace(std::move(k), nullptr);
    if (!inserted) throw FormatError(where_ + ": \"" + excerpt(k) + "\" appears twice in one object (a file names each key once)");
    slot_ = &it->second;
    return true;
  }

  bool parse_error(size_t, const std::string& last_token, const nlohmann::detail::exception& e) {
    if (!throw_on_syntax_) return false;
    // nlohmann's message ends with the token it read ("...; last read: '\"aaaa...'"), which can
    // be the whole file: that part is cut.
    std::string what = e.what();
    const std::string last_read = "last read: '";
    if (const size_t at = what.find(last_read); at != std::string::npos) {
      what = what.substr(0, at + last_read.size()) + excerpt(last_token) + "'";
    }
    throw FormatError(where_ + ": not valid JSON (" + what + ")");
  }

 private:
  // Places a value where the document is at (the root, the end of the open array, or the slot of
  // the last key) and returns it.
  json* place(json&& v) {
    if (++values_ > kMaxJsonValues) {
      throw FormatError(where_ + ": more than " + format_count(int64_t(kMaxJsonValues)) +
                        " JSON values (the limit against files that would not fit in memory)");
    }
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    if (open_.back()->is_array()) {
      json::array_t& a = open_.back()->get_ref<json::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool put(json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(json&& container) {
    if (open_.size() >= kMaxJsonDepth) {
      throw FormatError(where_ + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    // The pointer stays valid while the container is open: nothing is added to its parent then.
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  json& root_;
  const std::string& where_;
  const bool throw_on_syntax_;
  std::vector<json*> open_;  // the arrays and objects open, outermost first
  json* slot_ = nullptr;     // the value of the last key read
  size_t values_ = 0;
};

}  // namespace

json parse_json_strict(const char* begin, const char* end, const std::string& where) {
  json root;
  StrictDomBuilder builder(root, where, true);
  json::sax_parse(begin, end, &builder);
  return root;
}

json parse_json_strict(const std::string& text, const std::string& where) {
  return parse_json_strict(text.data(), text.data() + text.size(), where);
}

std::optional<json> parse_json_if_json(const std::string& text, const std::string& where) {
  json root;
  StrictDomBuilder builder(root, where, false);
  if (!json::sax_parse(text.data(), text.data() + text.size(), &builder)) return std::nullopt;
  return root;
}

std::string json_excerpt(const json& v) { return excerpt(v.dump(-1, ' ', false, json::error_handler_t::replace)); }

int64_t json_integer_in(const json& v, int64_t lo, int64_t hi, const std::string& what) {
  if (!v.is_number_integer()) throw FormatError(what + " is not an integer (" + json_excerpt(v) + ")");
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(hi) && int64_t(v.get<uint64_t>()) >= lo
                                           : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!fits) {
    throw FormatError(what + " is " + v.dump() + "; expected a whole number from " + std::to_string(lo) + " to " +
                      std::to_string(hi));
  }
  return v.get<int64_t>();
}

}  // namespace hs
