#pragma once
// Command-line mistakes answered in sentences, for headscope-cli and headscope alike:
//   unknown flag --sentnce (did you mean --sentence?)
//   --sentence was given 2 times; give it once
//   --zoom takes 3 values separated by commas (X0,Y0,SPAN), got 2
//   --heads needs a value after it: Query heads (must divide d_model)
// in place of CLI11's "The following argument was not expected", "At Most 1 required but
// received 2", "At least 3 required", "1 required INT missing".
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hs {

// The sentence for a parse error of `app` on `args` (argv as given, program name first).
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& error, const std::vector<std::string>& args);

// A validator accepting one of `choices`; anything else is "unknown WHAT 'x' (did you mean
// y?); expected a, b or c".
CLI::Validator one_of(const std::string& what, const std::vector<std::string>& choices);

// --help in groups: every flag still in CLI11's default group "Options" goes to its group by name
// (Input, Model, View, Output / export, Window); what is not named stays under "Options".
// Call once all flags are added (it goes into subcommands too).
void group_flags(CLI::App& app);

// Puts the flags of `app` named in `names` (long names without dashes) into `group`.
void set_group(CLI::App& app, const std::string& group, std::initializer_list<const char*> names);

}  // namespace hs
