#pragma once
// `headscope-cli heads --corpus FILE` and `heads --merge A.jsonl B.jsonl ...`: role statistics over
// one sentence per line, sharded and merged (core/analysis/corpus_roles.h).
#include <string>
#include <vector>

#include "core/analysis/head_roles.h"
#include "core/model/model_request.h"

namespace hs::cli {

struct HeadsCorpusArgs {
  ModelRequest request;        // the model; its sentence is replaced by each line
  std::string corpus;          // --corpus FILE
  std::string shard = "0/1";   // --shard I/N
  std::vector<std::string> merge;  // --merge FILES
  std::string out = "-";       // --json FILE, or '-' for standard output
  RoleOptions role_options;
  int threads = 0;
  bool quiet = false;          // no progress on stderr
};

int run_heads_corpus(const HeadsCorpusArgs& args);
int run_heads_merge(const HeadsCorpusArgs& args);

}  // namespace hs::cli
