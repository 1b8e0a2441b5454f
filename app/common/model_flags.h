#pragma once
// The input and model flags that `headscope-cli maps`, `headscope-cli export` and `headscope`
// all take (docs/cli-contract.md), bound to one ModelRequest.
#include <string>
#include <vector>

#include "core/model/model_request.h"

// CLI11's header costs ~9 s of compile time; files that add or parse flags include it themselves.
namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace hs {

struct ModelFlags {
  ModelRequest request;
  int window = -1;        // bound separately: absent = no window
  std::string seed_text;  // bound as text: CLI11 turned "-1" into 2^64 - 1
  CLI::Option* window_option = nullptr;
  CLI::Option* seed_option = nullptr;
  CLI::Option* sentence_option = nullptr;  // given but empty: "the sentence is empty"
  CLI::Option* sentence_b_option = nullptr;  // given but empty: "the second sentence is empty"
  std::string input_ids;       // --input-ids "101,7592,102" (parsed into request.input_ids)
  std::string token_type_ids;  // --token-type-ids "0,0,0"
  CLI::Option* input_ids_option = nullptr;
  CLI::Option* token_type_ids_option = nullptr;
  CLI::Option* attention_option = nullptr;
};

// Adds --sentence, --sentence-b, --input, --input-ids, --token-type-ids, --attention, --d-model,
// --heads, --kv-heads, --d-head, --seed, --causal, --window, --temperature, --weights, --model,
// --tokenizer, --generate. Every number is checked on its text while parsing (a
// CLI::ValidationError naming the value and the allowed range: "--window: window (-3) must be a
// whole number from 0 to 2147483647"), so nothing wraps.
void add_model_flags(CLI::App& app, ModelFlags& flags);

// A validator for a whole-number flag, checked on its text before CLI11 converts it: "--step:
// lesson step (0) must be a whole number from 1 to 200". Readable bounds, unlike CLI11's
// PositiveNumber ("0.000000 to 1.797e308"); values an int cannot hold are refused, not wrapped.
CLI::Validator whole_number(const std::string& name, long long lo, long long hi);

// Validators for a float flag, checked on its text before CLI11 converts it; nan, inf, -inf and
// values a float cannot hold (1e999) are refused with one line: "--zoom: zoom (nan) must be a
// number from 0 to 1", "--dpi: dpi (inf) must be a finite number (not nan or inf)". Every float
// flag of the CLI and the app uses one of them (list flags such as --zoom check each element).
CLI::Validator float_between(const std::string& name, float lo, float hi);
CLI::Validator finite_number(const std::string& name);

// The request after parsing (window and seed folded in, id lists parsed).
ModelRequest model_request(const ModelFlags& flags);

// A command that reads text refuses to run on none (a checkpoint would otherwise run on its <s>
// alone): InputError "no input: give --sentence TEXT (...)" unless the request names an input
// (--sentence, --input, --input-ids, --attention) or generates from nothing (--generate N).
void require_input(const ModelRequest& request);

// "101,7592,102" or "101 7592 102" -> ids; InputError naming `flag` and the bad entry.
std::vector<int> parse_id_list(const std::string& text, const std::string& flag);

// CLI11 (2.1) reads "--name=" (nothing after the '=') as "--name" without a value and then takes
// the next argument as the value: "--sentence= --causal" became the sentence "--causal". This
// splits every "--name=" into "--name" and "", so the empty value stays the option's own.
std::vector<std::string> split_empty_values(std::vector<std::string> args);

// app.parse(argc, argv) after split_empty_values; what main() of the CLI and the app call.
void parse_arguments(CLI::App& app, int argc, const char* const* argv);

}  // namespace hs
