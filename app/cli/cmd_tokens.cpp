// `headscope-cli tokens`: a model's tokenizer on one sentence, without the model: each token's id,
// its piece as the app labels it, and the bytes of the sentence it covers (token_spans.h). Reads a
// tokenizer-only folder, a model folder, a GGUF file, a tokenizer.json or a llama2.c tokenizer.bin
// (core/model/tokenizer_only.h). --json [FILE] writes the same as JSON (standard output without
// FILE or with '-').
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/output_file.h"
#include "app/common/flag_vocabulary.h"
#include "core/model/tokenizer_only.h"
#include "core/text/token_spans.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs::cli {
namespace {

struct TokensOptions {
  std::string model, tokenizer, sentence, json;
  CLI::Option* json_option = nullptr;
};

nlohmann::json tokens_json(const LoadedTokenizer& t, const std::string& sentence, const Encoding& e,
                           const std::vector<TokenSpan>& spans) {
  nlohmann::json tokens = nlohmann::json::array();
  for (size_t i = 0; i < e.ids.size(); ++i) {
    nlohmann::json span = spans[i].found ? nlohmann::json::array({spans[i].begin, spans[i].end}) : nlohmann::json();
    tokens.push_back({{"id", e.ids[i]}, {"piece", e.labels[i]}, {"bytes", span}, {"special", bool(e.special[i])}});
  }
  return {{"tokenizer", {{"path", utf8_repair(t.path)}, {"kind", t.kind}, {"vocab_size", t.tokenizer->vocab_size()}}},
          {"sentence", utf8_repair(sentence)},
          {"ids", e.ids},
          {"tokens", tokens}};
}

void print_table(std::ostream& out, const LoadedTokenizer& t, const Encoding& e, const std::vector<TokenSpan>& spans) {
  out << e.ids.size() << " tokens (" << t.kind << ": " << utf8_repair(t.path) << ", vocabulary " << t.tokenizer->vocab_size() << ")\n";
  out << std::setw(6) << "#" << std::setw(9) << "id" << std::setw(14) << "bytes" << "  piece\n";
  for (size_t i = 0; i < e.ids.size(); ++i) {
    const std::string span = spans[i].found ? std::to_string(spans[i].begin) + ".." + std::to_string(spans[i].end) : "-";
    out << std::setw(6) << i << std::setw(9) << e.ids[i] << std::setw(14) << span << "  " << e.labels[i]
        << (e.special[i] ? "  (special)" : "") << "\n";
  }
}

int run_tokens(const TokensOptions& o) {
  const LoadedTokenizer t = load_tokenizer_only(o.model, o.tokenizer);
  const Encoding e = t.tokenizer->encode_pair(o.sentence);
  const std::vector<TokenSpan> spans = token_byte_spans(*t.tokenizer, o.sentence, e);
  if (o.json_option->count() == 0) {
    print_table(std::cout, t, e, spans);
    return 0;
  }
  const nlohmann::json j = tokens_json(t, o.sentence, e, spans);
  write_output(o.json.empty() ? "-" : o.json, [&](std::ostream& out) { out << j.dump(1) << "\n"; });
  return 0;
}

}  // namespace

Command add_tokens_command(CLI::App& app) {
  auto options = std::make_shared<TokensOptions>();
  CLI::App* sub = app.add_subcommand("tokens", "Tokenize a sentence with a model's tokenizer (no weights needed): ids, pieces, byte spans");
  sub->add_option("--model", options->model,
                  flag_help("model", "Also a tokenizer folder (tokenizer.json, vocab.json + merges.txt, tokenizer.model or "
                                     "vocab.txt) or a tokenizer.json; a llama2.c checkpoint needs its tokenizer.bin beside it"));
  sub->add_option("--tokenizer", options->tokenizer, flag_help("tokenizer", "Read alone"));
  sub->add_option("--sentence", options->sentence, flag_help("sentence"))->required();
  options->json_option = sub->add_option("--json", options->json, flag_help("json", "Instead of the table; without FILE, standard output"))
                             ->expected(0, 1);
  return [options]() { return run_tokens(*options); };
}

}  // namespace hs::cli
