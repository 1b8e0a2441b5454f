#include "core/session/session_file.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/analysis/head_roles.h"
#include "core/analysis/target_pattern.h"
#include "core/export/view_registry.h"
#include "core/formats/json_strict.h"
#include "core/render/colormap.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {
namespace {

using nlohmann::json;

constexpr size_t kMaxSessionBytes = 4u << 20;  // a session is a few hundred bytes; sentences can be long
constexpr size_t kMaxQueries = 65536;

// Reads one object of the file; every key it is asked for is known, and check_unknown() refuses
// any other (a misspelt key is not read as if it were absent).
class Reader {
 public:
  Reader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  const json* find(const char* key) const {
    known_.emplace_back(key);
    auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }
  FormatError bad(const char* key, const std::string& expected) const {
    return FormatError(where_ + "." + key + " must be " + expected);
  }
  void text(const char* key, std::string& out) const {
    if (const json* v = find(key)) {
      if (!v->is_string()) throw bad(key, "a string");
      out = v->get<std::string>();
    }
  }
  void flag(const char* key, bool& out) const {
    if (const json* v = find(key)) {
      if (!v->is_boolean()) throw bad(key, "true or false");
      out = v->get<bool>();
    }
  }
  void integer(const char* key, int& out, long long lo, long long hi) const {
    if (const json* v = find(key)) {
      if (!v->is_number_integer()) throw bad(key, "a whole number");
      const long long n = v->get<long long>();
      if (n < lo || n > hi) throw bad(key, "between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " + std::to_string(n) + ")");
      out = static_cast<int>(n);
    }
  }
  void number(const char* key, float& out) const {
    if (const json* v = find(key)) {
      if (!v->is_number()) throw bad(key, "a number");
      const double d = v->get<double>();
      // 1e300 is a JSON number but no float: refused rather than read as inf.
      if (!std::isfinite(float(d))) throw bad(key, "a number a float can hold (got " + v->dump() + ")");
      out = float(d);
    }
  }
  void choice(const char* key, std::string& out, const std::vector<std::string>& allowed) const {
    std::string s = out;
    text(key, s);
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
      throw bad(key, "one of " + or_list(allowed) + " (got '" + excerpt(s) + "'" + did_you_mean(s, allowed) + ")");
    out = s;
  }
  const json* object(const char* key) const {
    const json* v = find(key);
    if (v && !v->is_object()) throw bad(key, "an object");
    return v;
  }
  void check_unknown() const { check_known_keys(obj_, known_, where_); }

 private:
  const json& obj_;
  std::string where_;
  mutable std::vector<std::string> known_;
};

void read_model(const json& m, const std::string& where, Session& session) {
  ModelRequest& r = session.request;
  const Reader in(m, where);
  AttentionConfig& c = r.attention;
  in.integer("d_model", c.d_model, 1, kMaxDModel);
  in.integer("heads", c.n_heads, 1, kMaxHeads);
  in.integer("kv_heads", c.n_kv_heads, 0, kMaxHeads);
  in.integer("d_head", c.d_head, 0, kMaxDModel);
  in.flag("causal", c.causal);
  if (m.contains("window")) {
    c.window = -1;
    in.integer("window", c.window, -1, 1 << 30);
  }
  in.number("temperature", c.temperature);
  if (const json* s = in.find("seed")) {
    if (!s->is_number_unsigned()) throw in.bad("seed", "a non-negative whole number");
    r.seed = s->get<uint64_t>();
  }
  in.text("weights", r.weights);
  in.text("checkpoint", r.model_path);
  in.text("attention", r.attention_file);
  in.text("tokenizer", r.tokenizer);
  in.text("checkpoint_b", session.model_b);
  in.text("tokenizer_b", session.tokenizer_b);
  in.integer("generate", r.generate, 0, 4096);
  std::string reshape = c.scrambled_reshape ? "scrambled" : "correct";
  in.choice("reshape", reshape, {"correct", "scrambled"});
  c.scrambled_reshape = reshape == "scrambled";
  in.check_unknown();
}

void read_view(const json& v, const std::string& where, ViewState& view) {
  const Reader in(v, where);
  in.choice("panel", view.panel, session_panels());
  view.panel = find_view(view.panel)->name;  // "grid" is "heads", "layers" "overview"
  in.integer("layer", view.layer, 0, 1 << 20);
  in.integer("head", view.head, 0, kMaxHeads);
  if (const json* q = in.find("queries")) {
    if (!q->is_array() || q->size() > kMaxQueries) throw in.bad("queries", "a list of token indices");
    view.queries.clear();
    for (const auto& e : *q) {
      if (!e.is_number_integer() || e.get<long long>() < 0 || e.get<long long>() > (1 << 30)) {
        throw in.bad("queries", "a list of non-negative token indices");
      }
      view.queries.push_back(e.get<int>());
    }
  }
  in.choice("color_scale", view.color_scale, session_color_scales());
  in.flag("ignore_first_column", view.ignore_first_column);
  std::vector<std::string> maps;
  for (Colormap c : all_colormaps()) maps.emplace_back(colormap_name(c));
  in.choice("colormap", view.colormap, maps);
  in.choice("roles_sort", view.roles_sort, session_roles_sorts());
  in.text("width", view.width);
  if (view.width != "keys" && view.width != "sweep" && !is_pattern_name(view.width))
    throw in.bad("width", "keys, sweep or a pattern (previous, first, token:N, permutation:SEED, head:L:H, a .npy or .csv "
                          "file; got '" + excerpt(view.width) + "')");
  in.check_unknown();
}

}  // namespace

const std::vector<std::string>& session_panels() {
  static const std::vector<std::string> p = view_names();
  return p;
}

const std::vector<std::string>& session_roles_sorts() {
  static const std::vector<std::string> s = [] {
    std::vector<std::string> v = {"layer", "head", "role"};
    for (int r = 0; r < kHeadRoleCount; ++r) v.emplace_back(head_role_name(HeadRole(r)));
    return v;
  }();
  return s;
}

const std::vector<std::string>& session_color_scales() {
  static const std::vector<std::string> s = {"linear", "log", "row"};
  return s;
}

std::string session_to_json(const Session& s) {
  const ModelRequest& r = s.request;
  const AttentionConfig& c = r.attention;
  json j;
  j["format"] = "headscope-session";
  j["version"] = kSessionVersion;
  j["input"] = {{"sentence", r.sentence}, {"sentence_b", r.sentence_b}};
  if (!s.contrast.empty()) j["input"]["contrast"] = s.contrast;
  if (!s.target.empty()) j["input"]["target"] = s.target;
  if (!s.versus.empty()) j["input"]["versus"] = s.versus;
  j["model"] = {{"d_model", c.d_model},     {"heads", c.n_heads},     {"kv_heads", c.n_kv_heads},
                {"d_head", c.d_head},       {"causal", c.causal},     {"temperature", c.temperature},
                {"seed", r.seed},           {"weights", r.weights},   {"checkpoint", r.model_path},
                {"tokenizer", r.tokenizer}, {"generate", r.generate}, {"attention", r.attention_file},
                {"reshape", c.scrambled_reshape ? "scrambled" : "correct"}};
  j["model"]["window"] = c.window >= 0 ? json(c.window) : json(nullptr);
  if (!s.model_b.empty()) j["model"]["checkpoint_b"] = s.model_b;
  if (!s.tokenizer_b.empty()) j["model"]["tokenizer_b"] = s.tokenizer_b;
  j["view"] = {{"panel", s.view.panel},
               {"layer", s.view.layer},
               {"head", s.view.head},
               {"queries", s.view.queries},
               {"color_scale", s.view.color_scale},
               {"ignore_first_column", s.view.ignore_first_column},
               {"colormap", s.view.colormap},
               {"roles_sort", s.view.roles_sort},
               {"width", s.view.width}};
  // Invalid UTF-8 in a sentence is replaced rather than failing the save.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Session parse_session(const std::string& text, const std::string& name, const Session& base) {
  if (text.size() > kMaxSessionBytes) {
    throw FormatError(name + ": " + std::to_string(text.size()) + " bytes is too large for a session file (limit 4 MiB)");
  }
  json j = parse_json_strict(text, name);
  if (!j.is_object()) throw FormatError(name + ": a session file must be a JSON object");
  if (!j.contains("format") || j["format"] != "headscope-session") {
    throw FormatError(name + ": not a headscope session (expected \"format\": \"headscope-session\")");
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<long long>() < 1) {
    throw FormatError(name + ": \"version\" must be a whole number >= 1");
  }
  const long long version = j["version"].get<long long>();
  if (version > kSessionVersion) {
    throw FormatError(name + ": written by a newer headscope (session version " + std::to_string(version) +
                      "); this one reads versions up to " + std::to_string(kSessionVersion));
  }
  Session s = base;
  const Reader top(j, name);
  top.find("format"), top.find("version");  // checked above
  if (const json* in = top.object("input")) {
    const Reader input(*in, name + ": input");
    input.text("sentence", s.request.sentence);
    input.text("sentence_b", s.request.sentence_b);
    input.text("contrast", s.contrast);
    input.text("target", s.target);
    input.text("versus", s.versus);
    input.check_unknown();
  }
  if (const json* m = top.object("model")) read_model(*m, name + ": model", s);
  if (const json* v = top.object("view")) read_view(*v, name + ": view", s.view);
  top.check_unknown();
  // A synthetic model's shape is checked now; checkpoints and weights files when they load.
  if (s.request.model_path.empty() && s.request.weights.empty() && s.request.attention_file.empty()) {
    try {
      s.request.attention.validate();
    } catch (const InputError& e) {
      throw FormatError(name + ": model settings are impossible: " + e.what());
    }
  }
  return s;
}

Session default_session() {
  Session s;
  s.request.sentence = "the keys that Priya left on the table were not hers";
  s.request.attention.d_model = 8;
  s.request.attention.n_heads = 4;
  return s;
}

Session load_session(const std::string& path, const Session& base) {
  return parse_session(read_file_limited(path, kMaxSessionBytes, "a session file"), path, base);
}

void save_session(const std::string& path, const Session& s) { write_file_atomic(path, session_to_json(s)); }

}  // namespace hs
