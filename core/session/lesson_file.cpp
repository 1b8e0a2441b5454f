#include "core/session/lesson_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;

constexpr size_t kMaxLessonBytes = 4u << 20;
constexpr size_t kMaxSteps = 200;
constexpr size_t kMaxCompare = 8;

std::string text_field(const json& obj, const char* key, const std::string& where, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) throw FormatError(where + " needs a \"" + key + "\" string");
    return {};
  }
  if (!it->is_string()) throw FormatError(where + "." + key + " must be a string");
  return it->get<std::string>();
}

// A session overlay: the same object as a session file's body, without format/version.
Session overlay(const json& body, const std::string& where, const Session& base) {
  if (!body.is_object()) throw FormatError(where + " must be an object");
  json full = body;
  full["format"] = "headscope-session";
  full["version"] = kSessionVersion;
  return parse_session(full.dump(), where, base);
}

LessonStep read_step(const json& s, const std::string& where, const Session& previous) {
  if (!s.is_object()) throw FormatError(where + " must be an object");
  LessonStep step;
  step.title = text_field(s, "title", where, true);
  step.caption = text_field(s, "caption", where, true);
  step.session = s.contains("session") ? overlay(s["session"], where + ".session", previous) : previous;
  if (s.contains("compare")) {
    const json& list = s["compare"];
    if (!list.is_array() || list.size() > kMaxCompare) {
      throw FormatError(where + ".compare must be a list of at most " + std::to_string(kMaxCompare) + " entries");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + ".compare[" + std::to_string(i) + "]";
      if (!list[i].is_object()) throw FormatError(w + " must be an object");
      LessonCompare c;
      c.label = text_field(list[i], "label", w, true);
      c.session = list[i].contains("session") ? overlay(list[i]["session"], w + ".session", step.session) : step.session;
      step.compare.push_back(std::move(c));
    }
  }
  if (s.contains("unlocked")) {
    const json& u = s["unlocked"];
    if (!u.is_array()) throw FormatError(where + ".unlocked must be a list of control names");
    for (const auto& e : u) {
      const auto& known = lesson_controls();
      if (!e.is_string() || std::find(known.begin(), known.end(), e.get<std::string>()) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw FormatError(where + ".unlocked: " + json_excerpt(e) + " is not a control (known: " + list + ")");
      }
      step.unlocked.push_back(e.get<std::string>());
    }
  }
  if (s.contains("needs_pretrained")) {
    if (!s["needs_pretrained"].is_boolean()) throw FormatError(where + ".needs_pretrained must be true or false");
    step.needs_pretrained = s["needs_pretrained"].get<bool>();
  }
  return step;
}

}  // namespace

const char* lesson_control_name(LessonControl control) {
  // In LessonControl's order; the tabs are "tab:" and the app's --view names.
  static const char* const names[] = {"sentence", "d_model", "heads", "kv_heads", "d_head", "causal", "window",
                                      "temperature", "seed", "layer", "head", "queries", "panel", "color_scale",
                                      "colormap", "tab:heads", "tab:head", "tab:query", "tab:difference",
                                      "tab:average", "tab:width", "tab:roles", "tab:ablation", "tab:contrast"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(LessonControl::tab_contrast) + 1, "one name per LessonControl");
  return names[size_t(control)];
}

const std::vector<std::string>& lesson_controls() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> all;
    for (int i = 0; i <= int(LessonControl::tab_contrast); ++i) all.emplace_back(lesson_control_name(LessonControl(i)));
    return all;
  }();
  return c;
}

std::optional<LessonControl> find_lesson_control(const std::string& name) {
  for (int i = 0; i <= int(LessonControl::tab_contrast); ++i)
    if (name == lesson_control_name(LessonControl(i))) return LessonControl(i);
  return std::nullopt;
}

bool step_unlocks(const LessonStep& step, LessonControl control) {
  return std::find(step.unlocked.begin(), step.unlocked.end(), lesson_control_name(control)) != step.unlocked.end();
}

Lesson parse_lesson(const std::string& text, const std::string& name) {
  if (text.size() > kMaxLessonBytes) throw FormatError(name + ": too large for a lesson file (limit 4 MiB)");
  json j = parse_json_strict(text, name);
  if (!j.is_object() || !j.contains("format") || j["format"] != "headscope-lesson") {
    throw FormatError(name + ": not a headscope lesson (expected \"format\": \"headscope-lesson\")");
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<long long>() < 1) {
    throw FormatError(name + ": \"version\" must be a whole number >= 1");
  }
  if (j["version"].get<long long>() > kLessonVersion) {
    throw FormatError(name + ": written for a newer headscope (lesson version " + json_excerpt(j["version"]) +
                      "); this one reads versions up to " + std::to_string(kLessonVersion));
  }
  Lesson lesson;
  lesson.title = text_field(j, "title", name, true);
  lesson.description = text_field(j, "description", name, false);
  if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty() || j["steps"].size() > kMaxSteps) {
    throw FormatError(name + ": \"steps\" must be a list of 1 to " + std::to_string(kMaxSteps) + " steps");
  }
  Session state = default_session();  // what the first step leaves out
  for (size_t i = 0; i < j["steps"].size(); ++i) {
    lesson.steps.push_back(read_step(j["steps"][i], name + ": step " + std::to_string(i + 1), state));
    state = lesson.steps.back().session;
  }
  return lesson;
}

Lesson load_lesson(const std::string& path) { return parse_lesson(read_file_limited(path, kMaxLessonBytes, "a lesson file"), path); }

}  // namespace hs
