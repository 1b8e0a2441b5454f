#include "app/common/model_flags.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "app/common/flag_vocabulary.h"
#include "app/common/friendly_errors.h"
#include "core/model/attention_config.h"
#include "core/model/synthetic_model.h"
#include "core/util/errors.h"

namespace hs {
namespace {

bool given(const CLI::Option* o) { return o && o->count() > 0; }

std::string shown(const std::string& text) { return text.empty() ? std::string("an empty value") : text; }

// Digits with an optional leading '-', no spaces, no hex, no exponent; false when it does not fit.
bool parse_whole(const std::string& text, long long& out) {
  const size_t digits = text.size() - (text.size() && text[0] == '-' ? 1 : 0);
  if (digits == 0 || digits > 19) return false;
  for (size_t i = text.size() - digits; i < text.size(); ++i)
    if (text[i] < '0' || text[i] > '9') return false;
  errno = 0;
  out = std::strtoll(text.c_str(), nullptr, 10);
  return errno != ERANGE;
}

// The whole text as a number that stays finite as a float32; false for nan, inf, 1e999, text.
bool parse_finite(const std::string& text, float& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  out = static_cast<float>(v);
  return end == text.c_str() + text.size() && std::isfinite(v) && std::isfinite(out);
}

constexpr const char* kSeedRange = "0 to 18446744073709551615";

// "0" .. "18446744073709551615", digits only: no sign, no spaces, no wrap-around ("-1" was 2^64 - 1).
bool parse_seed(const std::string& text, uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  for (const char c : text)
    if (c < '0' || c > '9') return false;
  errno = 0;
  out = std::strtoull(text.c_str(), nullptr, 10);
  return errno != ERANGE;
}

}  // namespace

CLI::Validator float_between(const std::string& name, float lo, float hi) {
  std::ostringstream range;
  range << lo << " - " << hi;
  return CLI::Validator(
      [name, lo, hi](std::string& text) -> std::string {
        float f = 0;
        if (parse_finite(text, f) && f >= lo && f <= hi) return "";
        std::ostringstream msg;
        msg << name << " (" << shown(text) << ") must be a number from " << lo << " to " << hi;
        return msg.str();
      },
      "[" + range.str() + "]");
}

CLI::Validator finite_number(const std::string& name) {
  return CLI::Validator(
      [name](std::string& text) -> std::string {
        float f = 0;
        return parse_finite(text, f) ? "" : name + " (" + shown(text) + ") must be a finite number (not nan or inf)";
      },
      "NUMBER");
}

// Checked on the text, before CLI11 converts it (CLI11 prefixes the flag): "--window: window (-3)
// must be a whole number from 0 to 2147483647", also for values an int cannot hold, which CLI11
// alone reports as "Could not convert".
CLI::Validator whole_number(const std::string& name, long long lo, long long hi) {
  return CLI::Validator(
      [name, lo, hi](std::string& text) -> std::string {
        long long v = 0;
        if (parse_whole(text, v) && v >= lo && v <= hi) return "";
        return name + " (" + shown(text) + ") must be a whole number from " + std::to_string(lo) + " to " +
               std::to_string(hi);
      },
      "[" + std::to_string(lo) + " - " + std::to_string(hi) + "]");
}

void add_model_flags(CLI::App& app, ModelFlags& f) {
  ModelRequest& r = f.request;
  r.attention.d_model = 8;
  r.attention.n_heads = 4;
  f.sentence_option = app.add_option("--sentence", r.sentence, flag_help("sentence"));
  f.sentence_b_option = app.add_option("--sentence-b", r.sentence_b,
                                       "Encoders: a second sentence, encoded as the model's pair ([CLS] A [SEP] B [SEP], "
                                       "token types 0 then 1; RoBERTa <s> A </s></s> B </s>)");
  f.input_ids_option = app.add_option("--input-ids", f.input_ids,
                                      "Pretrained: token ids instead of --sentence, the whole sequence as the model reads "
                                      "it (e.g. \"101,7592,102\" from a Python tokenizer; no special token is added)");
  f.token_type_ids_option = app.add_option("--token-type-ids", f.token_type_ids,
                                           "With --input-ids: each token's segment, 0 or 1 (encoders with token types)");
  f.attention_option = app.add_option("--attention", r.attention_file,
                                      "Attention maps made elsewhere: .safetensors or .npz with [layers, heads, T, T] "
                                      "(docs/attention-file.md; tools/export_attention.py writes it)");
  app.add_option("--input", r.input_npy, "float32 .npy [T, d_model] fed to the attention layer as Q, K and V input");
  app.add_option("--d-model", r.attention.d_model, "Width of the synthetic model")
      ->check(whole_number("d_model", 1, kMaxDModel))
      ->capture_default_str();
  app.add_option("--heads", r.attention.n_heads, "Query heads (must divide d_model)")
      ->check(whole_number("heads", 1, kMaxHeads))
      ->capture_default_str();
  app.add_option("--kv-heads", r.attention.n_kv_heads,
                 "Key/value heads G (default: heads); query head h reads key/value head h / (heads/G)")
      ->check(whole_number("key/value heads", 1, kMaxHeads));
  app.add_option("--d-head", r.attention.d_head, "Decoupled head width (default: d_model / heads)")
      ->check(whole_number("head width", 1, kMaxDModel));
  f.seed_option = app.add_option("--seed", f.seed_text, "Seed for the synthetic model's embeddings and weights (default 0)")
                      ->type_name("UINT")
                      ->check(CLI::Validator(
                          [](std::string& text) -> std::string {
                            uint64_t v = 0;
                            return parse_seed(text, v) ? "" : "seed (" + shown(text) + ") must be a whole number from " + kSeedRange;
                          },
                          "[0 - 18446744073709551615]"));
  app.add_flag("--causal", r.attention.causal, "Causal mask: query i sees keys j <= i");
  app.add_flag("--scrambled-reshape", r.attention.scrambled_reshape,
               "Teaching: split heads with the classic view(heads, T, d_head) mistake");
  f.window_option = app.add_option("--window", f.window, "Sliding window: query i sees keys within W positions (back only with --causal)")
                        ->check(whole_number("window", 0, INT_MAX));
  app.add_option("--temperature", r.attention.temperature, "Divide the scores by this before the softmax")
      ->check(float_between("temperature", kMinTemperature, kMaxTemperature))
      ->capture_default_str();
  app.add_option("--weights", r.weights, "nn.MultiheadAttention state_dict as .safetensors (d_model from the file)");
  app.add_option("--model", r.model_path, flag_help("model"));
  app.add_option("--tokenizer", r.tokenizer, flag_help("tokenizer"));
  app.add_option("--generate", r.generate, "Pretrained: continue the sentence greedily by N tokens")
      ->check(whole_number("tokens to generate", 0, kMaxTokens));
  app.add_flag("--fit-context", r.fit_context,
               "Pretrained: cut a text longer than the model's context to the tokens it reads (the first ones; "
               "a note says so) instead of refusing it");
}

std::vector<int> parse_id_list(const std::string& text, const std::string& flag) {
  std::vector<int> ids;
  std::string item;
  const auto take = [&] {
    if (item.empty()) return;
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != item.size() || v < 0 || v > (1LL << 30)) {
      throw InputError(flag + ": '" + item + "' is not a token id; give whole numbers 0 or more separated by commas, " +
                       "e.g. 101,7592,102");
    }
    ids.push_back(int(v));
    item.clear();
  };
  for (const char ch : text) {
    if (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '[' || ch == ']') take();
    else item += ch;
  }
  take();
  if (ids.empty()) throw InputError(flag + " is empty: give at least one token id, e.g. 101,7592,102");
  return ids;
}

void require_input(const ModelRequest& r) {
  if (!r.sentence.empty() || !r.input_npy.empty() || !r.input_ids.empty() || !r.attention_file.empty() || r.generate > 0) return;
  throw InputError("no input: give --sentence TEXT (or --input-ids IDS, --input FILE.npy, --attention FILE; with a "
                   "checkpoint, --generate N writes from its <s>)");
}

ModelRequest model_request(const ModelFlags& flags) {
  ModelRequest r = flags.request;
  if (given(flags.seed_option) && !parse_seed(flags.seed_text, r.seed)) {  // checked at parse; kept for direct use
    throw InputError("--seed (" + shown(flags.seed_text) + ") must be a whole number from " + kSeedRange);
  }
  r.attention.window = given(flags.window_option) ? flags.window : -1;
  if (given(flags.sentence_option) && r.sentence.empty()) throw InputError("the sentence is empty: type at least one word");
  if (given(flags.sentence_b_option) && r.sentence_b.empty()) throw InputError("the second sentence (--sentence-b) is empty");
  if (given(flags.attention_option) && r.attention_file.empty()) throw InputError("--attention needs a file name");
  if (given(flags.input_ids_option)) r.input_ids = parse_id_list(flags.input_ids, "--input-ids");
  if (given(flags.token_type_ids_option)) r.token_type_ids = parse_id_list(flags.token_type_ids, "--token-type-ids");
  return r;
}

std::vector<std::string> split_empty_values(std::vector<std::string> args) {
  std::vector<std::string> out;
  out.reserve(args.size() + 1);
  bool options = true;  // after "--" everything is positional and stays as it is
  for (size_t i = 0; i < args.size(); ++i) {
    std::string& a = args[i];
    const bool empty_value = options && i > 0 && a.size() > 3 && a.compare(0, 2, "--") == 0 &&
                             a.find('=') == a.size() - 1;  // "--name=": the first '=' is the last character
    if (options && i > 0 && a == "--") options = false;
    if (empty_value) {
      a.pop_back();
      out.push_back(std::move(a));
      out.emplace_back();
    } else {
      out.push_back(std::move(a));
    }
  }
  return out;
}

void parse_arguments(CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> args(argv, argv + argc);
  args = split_empty_values(std::move(args));
  std::vector<const char*> pointers;
  for (const std::string& a : args) pointers.push_back(a.c_str());
  try {
    app.parse(int(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) throw;  // --help, --version
    throw CLI::ParseError(explain_parse_error(app, e, args), e.get_exit_code());
  }
}

}  // namespace hs
