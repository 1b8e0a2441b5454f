#include "app/common/friendly_errors.h"

#include <algorithm>
#include <map>
#include <regex>

#include "app/common/flag_vocabulary.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {
namespace {

// The app whose flags the arguments are for: the subcommand named first, else the program.
const CLI::App* active_app(const CLI::App& app, const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].empty() || args[i][0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->check_name(args[i])) return sub;
    break;
  }
  return &app;
}

// Every long flag name of `active` and of the program above it, without the dashes.
std::vector<std::string> long_names(const CLI::App& app, const CLI::App& active) {
  std::vector<std::string> names;
  for (const CLI::App* a : {&active, &app}) {
    for (const CLI::Option* o : a->get_options())
      for (const std::string& n : o->get_lnames()) names.push_back(n);
    if (a == &app) break;
  }
  return names;
}

std::string flag_name(const std::string& arg) { return arg.substr(2, arg.find('=') - 2); }

// "--zoom" given as "--zoom", "--zoom=..." in `args`, counted.
size_t times_given(const std::vector<std::string>& args, const std::string& flag) {
  size_t n = 0;
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == flag || args[i].rfind(flag + "=", 0) == 0) ++n;
  return n;
}

std::string unknown_flags(const CLI::App& app, const CLI::App& active, const std::vector<std::string>& args) {
  const std::vector<std::string> known = long_names(app, active);
  std::string out;
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    const std::string& a = args[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string name = flag_name(a);
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string where = &active == &app ? "" : " for " + active.get_name();
    std::string near = did_you_mean(name, known, "--");
    for (const CLI::App* other : app.get_subcommands([](const CLI::App*) { return true; }))
      if (near.empty() && other != &active && other->get_option_no_throw("--" + name))
        near = " (it is a flag of " + other->get_name() + ")";
    out += std::string(out.empty() ? "" : "; ") + "unknown flag --" + excerpt(name) + where + near;
  }
  return out;
}

// CLI11 lists the extra arguments last first: "The following arguments were not expected: c b a".
std::string unexpected_values(const std::string& message) {
  const size_t colon = message.find(": ");
  if (colon == std::string::npos) return message;
  std::vector<std::string> words;
  std::string word;
  for (const char c : message.substr(colon + 2) + " ") {
    if (c != ' ') word += c;
    else if (!word.empty()) words.push_back(excerpt(word)), word.clear();
  }
  std::reverse(words.begin(), words.end());
  std::string quoted;
  for (const std::string& w : words) quoted += std::string(quoted.empty() ? "" : " ") + "'" + w + "'";
  return "unexpected " + std::string(words.size() == 1 ? "argument " : "arguments ") + quoted +
         " (each value goes right after its flag, and text with spaces in quotes: --sentence \"the cat sat\")";
}

std::string mismatch(const CLI::App& active, const std::vector<std::string>& args, const std::string& message) {
  static const std::regex at_most(R"(^(\S+): At Most (\d+) required but received (\d+)$)");
  static const std::regex at_least(R"(^(\S+): At least (\d+) required but received (\d+)$)");
  static const std::regex missing(R"(^(\S+): (\d+) required .* missing$)");
  std::smatch m;
  const auto option = [&](const std::string& name) { return active.get_option_no_throw(name); };
  const auto values = [&](const std::string& name, const std::string& n) {
    const CLI::Option* o = option(name);
    const bool commas = o && o->get_delimiter() == ',';
    return name + " takes " + n + " values" + (commas ? " separated by commas" : "");
  };
  if (std::regex_match(message, m, at_most)) {
    const std::string name = m[1];
    const size_t given = std::max<size_t>(times_given(args, name), 2);
    if (m[2] == "1") return name + " was given " + std::to_string(given) + " times; give it once";
    return values(name, m[2]) + ", got " + std::string(m[3]) + (times_given(args, name) > 1 ? "; give it once" : "");
  }
  if (std::regex_match(message, m, at_least)) return values(m[1], m[2]) + ", got " + std::string(m[3]);
  if (std::regex_match(message, m, missing)) {
    const CLI::Option* o = option(m[1]);
    const bool short_help = o && !o->get_description().empty() && o->get_description().size() <= 100;
    return std::string(m[1]) + " needs a value after it" + (short_help ? ": " + o->get_description() : "");
  }
  return message;
}

}  // namespace

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& error, const std::vector<std::string>& args) {
  const CLI::App& active = *active_app(app, args);
  const std::string message = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    const std::string flags = unknown_flags(app, active, args);
    return flags.empty() ? unexpected_values(message) : flags;
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) return mismatch(active, args, message);
  return message;
}

CLI::Validator one_of(const std::string& what, const std::vector<std::string>& choices) {
  return CLI::Validator(
      [what, choices](std::string& text) -> std::string {
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
        return "unknown " + what + " '" + excerpt(text) + "'" + did_you_mean(text, choices) + "; expected " + or_list(choices);
      },
      "{" + or_list(choices) + "}");
}

void set_group(CLI::App& app, const std::string& group, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (CLI::Option* o = app.get_option_no_throw(std::string("--") + name)) o->group(group);
}

void group_flags(CLI::App& app) {
  for (CLI::App* a : app.get_subcommands([](CLI::App*) { return true; })) group_flags(*a);
  for (CLI::Option* o : app.get_options()) {
    if (o->get_group() != "Options" || o->get_lnames().empty()) continue;
    for (const FlagWord& w : flag_vocabulary())
      if (o->get_lnames().front() == w.name) o->group(w.group);
  }
}

}  // namespace hs
