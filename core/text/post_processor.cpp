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

std::vector<int> PostProcessor::special_ids() const {
  std::vector<int> ids;
  for (const auto* t : {&single, &pair})
    for (const TemplateItem& item : *t) ids.insert(ids.end(), item.ids.begin(), item.ids.end());
  return ids;
}

}  // namespace hs
