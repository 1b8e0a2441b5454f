#include "core/session/lesson_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/model/shipped_models.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

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

// A checkpoint named by a step: a file or folder, or a model that comes with headscope. Checked
// when the lesson loads, so a misspelt name is not found only when its step opens.
void check_checkpoint(const Session& s, const std::string& where) {
  const std::string& path = s.request.model_path;
  std::vector<std::string> shipped;
  for (const ShippedModel& m : shipped_models()) shipped.push_back(m.name);
  if (path.empty() || path_exists(path) || std::find(shipped.begin(), shipped.end(), path) != shipped.end()) return;
  throw FormatError(where + ".model.checkpoint: '" + excerpt(path) + "' is no file or folder, and no model that comes " +
                    "with headscope" + did_you_mean(path, shipped) + " (those are " + or_list(shipped) + ")");
}

// A session overlay: the same object as a session file's body, without format/version.
Session overlay(const json& body, const std::string& where, const Session& base) {
  if (!body.is_object()) throw FormatError(where + " must be an object");
  if (body.contains("format") || body.contains("version"))
    throw FormatError(where + ": a step's session holds input, model and view only (no format or version)");
  json full = body;
  full["format"] = "headscope-session";
  full["version"] = kSessionVersion;
  Session s = parse_session(full.dump(), where, base);
  check_checkpoint(s, where);
  return s;
}

// "tab:NAME" with NAME a view (or an alias): "tab:" and the name of the tab that shows it.
std::optional<std::string> tab_control(const std::string& name) {
  if (name.rfind("tab:", 0) != 0) return std::nullopt;
  const ViewDescriptor* v = find_view(name.substr(4));
  if (!v) return std::nullopt;
  return std::string("tab:") + view_name(v->tab);
}

// An entry of "unlocked", as the app looks it up.
std::string unlocked_control(const json& e, const std::string& where) {
  const std::vector<std::string>& known = lesson_controls();
  if (e.is_string()) {
    const std::string name = e.get<std::string>();
    if (find_lesson_control(name)) return name;
    if (std::optional<std::string> tab = tab_control(name)) return *tab;
    throw FormatError(where + ".unlocked: " + json_excerpt(e) + " is not a control" + did_you_mean(name, known) +
                      "; known: " + or_list(known));
  }
  throw FormatError(where + ".unlocked: " + json_excerpt(e) + " is not a control name; known: " + or_list(known));
}

LessonStep read_step(const json& s, const std::string& where, const Session& previous) {
  if (!s.is_object()) throw FormatError(where + " must be an object");
  check_known_keys(s, {"title", "caption", "notes", "label", "session", "compare", "unlocked", "needs_pretrained"}, where);
  LessonStep step;
  step.title = text_field(s, "title", where, true);
  step.caption = text_field(s, "caption", where, true);
  step.notes = text_field(s, "notes", where, false);
  step.label = text_field(s, "label", where, false);
  step.session = s.contains("session") ? overlay(s["session"], where + ".session", previous) : previous;
  if (s.contains("compare")) {
    const json& list = s["compare"];
    if (!list.is_array() || list.size() > kMaxCompare) {
      throw FormatError(where + ".compare must be a list of at most " + std::to_string(kMaxCompare) + " entries");
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string w = where + ".compare[" + std::to_string(i) + "]";
      if (!list[i].is_object()) throw FormatError(w + " must be an object");
      check_known_keys(list[i], {"label", "session"}, w);
      LessonCompare c;
      c.label = text_field(list[i], "label", w, true);
      c.session = list[i].contains("session") ? overlay(list[i]["session"], w + ".session", step.session) : step.session;
      step.compare.push_back(std::move(c));
    }
  }
  if (s.contains("unlocked")) {
    const json& u = s["unlocked"];
    if (!u.is_array()) throw FormatError(where + ".unlocked must be a list of control names");
    for (const auto& e : u) step.unlocked.push_back(unlocked_control(e, where));
  }
  if (s.contains("needs_pretrained")) {
    if (!s["needs_pretrained"].is_boolean()) throw FormatError(where + ".needs_pretrained must be true or false");
    step.needs_pretrained = s["needs_pretrained"].get<bool>();
  }
  return step;
}

}  // namespace

const char* lesson_control_name(LessonControl control) {
  // In LessonControl's order.
  static const char* const names[] = {"sentence", "d_model", "heads", "kv_heads", "d_head", "causal", "window",
                                      "temperature", "seed", "layer", "head", "queries", "panel", "color_scale",
                                      "colormap"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(LessonControl::colormap) + 1, "one name per LessonControl");
  return names[size_t(control)];
}

const std::vector<std::string>& lesson_controls() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> all;
    for (int i = 0; i <= int(LessonControl::colormap); ++i) all.emplace_back(lesson_control_name(LessonControl(i)));
    for (View v : tab_views()) all.push_back(std::string("tab:") + view_name(v));
    return all;
  }();
  return c;
}

std::optional<LessonControl> find_lesson_control(const std::string& name) {
  for (int i = 0; i <= int(LessonControl::colormap); ++i)
    if (name == lesson_control_name(LessonControl(i))) return LessonControl(i);
  return std::nullopt;
}

bool step_unlocks(const LessonStep& step, LessonControl control) {
  return std::find(step.unlocked.begin(), step.unlocked.end(), lesson_control_name(control)) != step.unlocked.end();
}

bool step_unlocks_tab(const LessonStep& step, View view) {
  const std::string tab = std::string("tab:") + view_name(view_descriptor(view).tab);
  return std::find(step.unlocked.begin(), step.unlocked.end(), tab) != step.unlocked.end();
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
  check_known_keys(j, {"format", "version", "title", "description", "steps"}, name);
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

std::string lesson_handout(const Lesson& lesson) {
  std::string out = lesson.title + " (" + std::to_string(lesson.steps.size()) +
                    (lesson.steps.size() == 1 ? " step)\n" : " steps)\n");
  if (!lesson.description.empty()) out += lesson.description + "\n";
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const LessonStep& s = lesson.steps[i];
    // Titles of shipped steps start with their number ("5. Narrow heads ..."): no second one.
    const std::string number = std::to_string(i + 1) + ".";
    out += "\n" + (s.title.rfind(number, 0) == 0 ? s.title : number + " " + s.title) + "\n";
    out += "  slide: " + s.caption + "\n";
    out += "  notes: " + (s.notes.empty() ? std::string("none") : s.notes) + "\n";
  }
  return out;
}

Lesson load_lesson(const std::string& path) { return parse_lesson(read_file_limited(path, kMaxLessonBytes, "a lesson file"), path); }

}  // namespace hs
