#pragma once
// Where a tokenizer puts its special tokens around one text or a sentence pair, and which token
// type (segment) id each position gets: Hugging Face's TemplateProcessing, of which BertProcessing
// and RobertaProcessing are fixed cases:
//   TemplateProcessing  single "[CLS]:0 $A:0 [SEP]:0", pair "[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1"
//                       (any special tokens, any type ids; a special token may add several ids)
//   BertProcessing      single [CLS] A [SEP], pair [CLS] A [SEP] B [SEP], type ids 0 0 0 1 1
//   RobertaProcessing   single <s> A </s>, pair <s> A </s> </s> B </s>, type ids all 0
//   none                single A, pair A B with type ids 0 and 1
// An empty pair template means the tokenizer has no pair form.
#include <vector>

namespace hs {

struct TemplateItem {
  enum class Kind { sequence_a, sequence_b, special } kind = Kind::sequence_a;
  std::vector<int> ids;  // special: the ids it adds
  int type_id = 0;
};

struct PostProcessor {
  std::vector<TemplateItem> single{{TemplateItem::Kind::sequence_a, {}, 0}};
  std::vector<TemplateItem> pair{{TemplateItem::Kind::sequence_a, {}, 0}, {TemplateItem::Kind::sequence_b, {}, 1}};

  // BOS before and EOS after the text (-1: none), as llama.cpp adds them; no pair form.
  static PostProcessor bos_eos(int bos, int eos);
  static PostProcessor bert(int cls, int sep);
  static PostProcessor roberta(int cls, int sep);
  // transformers' LlamaTokenizerFast.update_post_processor (what tokenizer_config.json's
  // add_bos_token / add_eos_token make): single "BOS:0 $A:0 EOS:0", pair "BOS:0 $A:0 EOS:0
  // BOS:1 $B:1 EOS:1", each special token only when its id is >= 0.
  static PostProcessor bos_eos_pair(int bos, int eos);

  // The single template adds no token: sentence A alone.
  bool adds_nothing() const;

  // Every id a template adds (for range checks).
  std::vector<int> special_ids() const;
};

}  // namespace hs
