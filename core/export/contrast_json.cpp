#include "core/export/contrast_json.h"

#include "core/formats/json_text.h"
#include "core/model/next_token_rows.h"

namespace hs {
namespace {

void write_side(std::ostream& out, const AttentionRun& run) {
  out << "{\"tokens\":";
  write_json_list(out, run.tokens.size(), [&](size_t i) { out << json_string(run.tokens[i]); });
  out << ",\"token_ids\":";
  write_json_list(out, run.token_ids.size(), [&](size_t i) { out << run.token_ids[i]; });
  out << ",\"next_tokens\":";
  write_json_list(out, run.next_tokens.size(), [&](size_t i) { out << json_string(next_token_label(run, int(i))); });
  out << ",\"last_token_log_prob\":";
  write_json_float(out, run.last_token_log_prob);
  out << ",\"next_token_log_prob\":";
  write_json_float(out, run.next_token_log_prob);
  out << '}';
}

void write_maps(std::ostream& out, const ModelMaps& maps) {
  write_json_list(out, maps.size(), [&](size_t l) {
    write_json_list(out, maps[l].size(), [&](size_t h) {
      out << '\n';
      write_json_matrix(out, maps[l][h]);
    });
  });
}

}  // namespace

void write_contrast_json(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast) {
  out << "{\"a\":";
  write_side(out, a.run);
  out << ",\n\"b\":";
  write_side(out, b.run);
  out << ",\n\"alignment\":";
  write_json_list(out, contrast.alignment.steps.size(), [&](size_t i) {
    const AlignStep& s = contrast.alignment.steps[i];
    out << "{\"op\":\"" << align_op_name(s.op) << "\",\"a\":";
    if (s.a >= 0) out << s.a;
    else out << "null";
    out << ",\"b\":";
    if (s.b >= 0) out << s.b;
    else out << "null";
    out << '}';
  });
  out << ",\n\"query_rows\":" << contrast.query_rows << ",\n\"heads\":";
  write_json_list(out, contrast.heads.size(), [&](size_t l) {
    write_json_list(out, contrast.heads[l].size(), [&](size_t h) {
      const HeadChange& c = contrast.heads[l][h];
      out << "{\"distance\":";
      write_json_float(out, c.distance);
      out << ",\"max_row\":";
      write_json_float(out, c.max_row);
      out << ",\"max_row_step\":" << c.max_row_step << ",\"weight_on_changed_a\":";
      write_json_float(out, c.changed_a);
      out << ",\"weight_on_changed_b\":";
      write_json_float(out, c.changed_b);
      out << '}';
    });
  });
  out << ",\n\"attention_a\":";
  write_maps(out, a.run.attention);
  out << ",\n\"attention_b\":";
  write_maps(out, b.run.attention);
  out << "}\n";
}

void write_contrast_csv(std::ostream& out, const ContrastResult& contrast) {
  out << "layer,head,distance,max_row,max_row_query_a,max_row_query_b,weight_on_changed_a,weight_on_changed_b\n";
  for (size_t l = 0; l < contrast.heads.size(); ++l) {
    for (size_t h = 0; h < contrast.heads[l].size(); ++h) {
      const HeadChange& c = contrast.heads[l][h];
      const AlignStep* s = c.max_row_step >= 0 ? &contrast.alignment.steps[size_t(c.max_row_step)] : nullptr;
      out << l << ',' << h << ',';
      write_json_float(out, c.distance);
      out << ',';
      write_json_float(out, c.max_row);
      out << ',' << (s ? s->a : -1) << ',' << (s ? s->b : -1) << ',';
      write_json_float(out, c.changed_a);
      out << ',';
      write_json_float(out, c.changed_b);
      out << '\n';
    }
  }
}

}  // namespace hs
