#include "core/formats/json_strict.h"

#include <algorithm>
#include <vector>

#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

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
  bool binary(json::binary_t& v) { return put(json(std::move(v))); }
  bool string(json::string_t& v) { return put_string(v); }

  bool start_object(size_t) { return open(json::object()); }
  bool start_array(size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  // Members at `paths` go flat into `flat` (parse_json_strict_flat).
  void divert(const std::vector<std::vector<std::string>>* paths, std::vector<JsonFlatMember>* flat) {
    paths_ = paths;
    flat_ = flat;
  }

  bool key(json::string_t& k) {
    if (div_ && open_.size() == div_depth_) {  // a member of the flat object
      div_->keys.push_back(std::move(k));
      return true;
    }
    if (paths_ && !div_) last_key_ = k;
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
  // In a flat member: at its own level (or in one of its array's element arrays) a scalar is
  // stored flat; anything deeper is json in div_->nested.
  bool flat_level() const { return div_ && (open_.size() == div_depth_ || (in_element_ && open_.size() == div_depth_ + 1)); }
  void count_value() {
    if (++values_ > kMaxJsonValues) {
      throw FormatError(where_ + ": more than " + format_count(int64_t(kMaxJsonValues)) +
                        " JSON values (the limit against files that would not fit in memory)");
    }
  }
  void start_element(bool is_array) {
    if (div_->is_object || open_.size() != div_depth_) return;
    div_->element_begin.push_back(uint32_t(div_->scalars.size()));
    div_->element_is_array.push_back(is_array);
  }
  bool put(json&& v) {
    if (!flat_level()) {
      place(std::move(v));
      return true;
    }
    count_value();
    start_element(false);
    div_->string_of.push_back(-1);
    div_->scalars.push_back(std::move(v));
    return true;
  }
  bool put_string(json::string_t& v) {
    if (!flat_level()) return put(json(std::move(v)));
    count_value();
    start_element(false);
    div_->string_of.push_back(int32_t(div_->strings.size()));
    div_->strings.push_back(std::move(v));
    div_->scalars.emplace_back();
    return true;
  }
  bool open(json&& container) {
    if (open_.size() >= kMaxJsonDepth) {
      throw FormatError(where_ + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    if (div_ && open_.size() == div_depth_ && !div_->is_object && container.is_array()) {  // an element array
      count_value();
      start_element(true);
      in_element_ = true;
      open_.push_back(nullptr);
      return true;
    }
    if (flat_level()) {  // nested deeper than a flat member holds: kept as json
      count_value();
      const size_t index = div_->is_object ? div_->keys.size() - 1 : div_->element_begin.size() - (in_element_ ? 1 : 0);
      if (!in_element_) start_element(false);
      div_->nested.emplace_back(index, std::move(container));
      open_.push_back(&div_->nested.back().second);
      return true;
    }
    if (paths_ && !div_) {
      path_.push_back(open_.empty() ? "" : open_.back()->is_array() ? "[]" : last_key_);
      for (size_t i = 0; i < paths_->size(); ++i) {
        if (path_.size() != (*paths_)[i].size() + 1 || !std::equal((*paths_)[i].begin(), (*paths_)[i].end(), path_.begin() + 1)) continue;
        div_ = &(*flat_)[i];
        div_->found = true;
        div_->is_object = container.is_object();
        open_.push_back(place(std::move(container)));  // stays empty
        div_depth_ = open_.size();
        return true;
      }
    }
    // The pointer stays valid while the container is open: nothing is added to its parent then.
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    if (div_ && open_.size() == div_depth_) {  // the flat member ends
      if (!div_->is_object) div_->element_begin.push_back(uint32_t(div_->scalars.size()));
      div_ = nullptr;
    } else if (div_ && in_element_ && open_.size() == div_depth_ + 1) {
      in_element_ = false;
    }
    open_.pop_back();
    if (paths_ && !div_ && !path_.empty() && path_.size() > open_.size()) path_.pop_back();
    return true;
  }

  json& root_;
  const std::string& where_;
  const bool throw_on_syntax_;
  std::vector<json*> open_;  // the arrays and objects open, outermost first
  json* slot_ = nullptr;     // the value of the last key read
  size_t values_ = 0;
  // parse_json_strict_flat: the paths, their members, the keys to the open containers.
  const std::vector<std::vector<std::string>>* paths_ = nullptr;
  std::vector<JsonFlatMember>* flat_ = nullptr;
  std::vector<std::string> path_;  // "" for the root, "[]" in arrays, else the key
  std::string last_key_;
  JsonFlatMember* div_ = nullptr;  // the flat member being read
  size_t div_depth_ = 0;           // open_.size() inside it
  bool in_element_ = false;        // inside one of its array's element arrays
};

}  // namespace

json parse_json_strict(const char* begin, const char* end, const std::string& where) {
  json root;
  StrictDomBuilder builder(root, where, true);
  json::sax_parse(begin, end, &builder);
  return root;
}

json parse_json_strict_flat(const char* begin, const char* end, const std::string& where,
                            const std::vector<std::vector<std::string>>& paths, std::vector<JsonFlatMember>& flat) {
  flat.assign(paths.size(), JsonFlatMember{});
  json root;
  StrictDomBuilder builder(root, where, true);
  builder.divert(&paths, &flat);
  json::sax_parse(begin, end, &builder);
  return root;
}

json JsonFlatMember::to_json(const std::string& where) const {
  const auto scalar = [&](size_t i) { return string_of[i] >= 0 ? json(strings[size_t(string_of[i])]) : scalars[i]; };
  json out = is_object ? json::object() : json::array();
  size_t next_nested = 0;
  if (is_object) {
    size_t s = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (out.contains(keys[k])) throw FormatError(where + ": \"" + excerpt(keys[k]) + "\" appears twice in one object (a file names each key once)");
      if (next_nested < nested.size() && nested[next_nested].first == k) out[keys[k]] = nested[next_nested++].second;
      else out[keys[k]] = scalar(s++);
    }
    return out;
  }
  for (size_t e = 0; e + 1 < element_begin.size(); ++e) {
    json element = json::array();
    for (size_t i = element_begin[e]; i < element_begin[e + 1]; ++i) element.push_back(scalar(i));
    while (next_nested < nested.size() && nested[next_nested].first == e) element.push_back(nested[next_nested++].second);
    out.push_back(element_is_array[e] ? element : element.empty() ? json() : element[0]);
  }
  return out;
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

void check_known_keys(const nlohmann::json& obj, const std::vector<std::string>& known, const std::string& where) {
  if (!obj.is_object()) return;
  for (const auto& item : obj.items()) {
    if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
    throw FormatError(where + ": unknown key \"" + excerpt(item.key()) + "\"" + did_you_mean(item.key(), known) +
                      "; expected " + or_list(known));
  }
}

}  // namespace hs
