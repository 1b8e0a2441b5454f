#include "core/text/post_processor.h"

namespace hs {
namespace {

using Kind = TemplateItem::Kind;

TemplateItem special(int id, int type_id) { return {Kind::special, {id}, type_id}; }

}  // namespace

PostProcessor PostProcessor::bos_eos(int bos, int eos) {
  PostProcessor p;
  p.single.clear();
  if (bos >= 0) p.single.push_back(special(bos, 0));
  p.single.push_back({Kind::sequence_a, {}, 0});
  if (eos >= 0) p.single.push_back(special(eos, 0));
  p.pair.clear();
  return p;
}

PostProcessor PostProcessor::bert(int cls, int sep) {
  PostProcessor p;
  p.single = {special(cls, 0), {Kind::sequence_a, {}, 0}, special(sep, 0)};
  p.pair = {special(cls, 0), {Kind::sequence_a, {}, 0}, special(sep, 0), {Kind::sequence_b, {}, 1}, special(sep, 1)};
  return p;
}

PostProcessor PostProcessor::roberta(int cls, int sep) {
  PostProcessor p;
  p.single = {special(cls, 0), {Kind::sequence_a, {}, 0}, special(sep, 0)};
  p.pair = {special(cls, 0), {Kind::sequence_a, {}, 0}, special(sep, 0), special(sep, 0), {Kind::sequence_b, {}, 0},
            special(sep, 0)};
  return p;
}

PostProcessor PostProcessor::bos_eos_pair(int bos, int eos) {
  PostProcessor p = bos_eos(bos, eos);
  for (const int type_id : {0, 1}) {
    if (bos >= 0) p.pair.push_back(special(bos, type_id));
    p.pair.push_back({type_id == 0 ? Kind::sequence_a : Kind::sequence_b, {}, type_id});
    if (eos >= 0) p.pair.push_back(special(eos, type_id));
  }
  return p;
}

bool PostProcessor::adds_nothing() const {
  for (const TemplateItem& item : single)
    if (item.kind == Kind::special && !item.ids.empty()) return false;
  return true;
}

std::vector<int> PostProcessor::special_ids() const {
  std::vector<int> ids;
  for (const auto* t : {&single, &pair})
    for (const TemplateItem& item : *t) ids.insert(ids.end(), item.ids.begin(), item.ids.end());
  return ids;
}

}  // namespace hs
