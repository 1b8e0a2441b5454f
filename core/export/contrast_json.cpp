#include "core/export/contrast_json.h"

#include <cmath>
#include <cstdio>

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

void write_json_double(std::ostream& out, double v) {
  if (!std::isfinite(v)) {
    out << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  out << buf;
}

// The logit difference and, when run, activation patching (core/analysis/pair_target.h).
void write_answer(std::ostream& out, const PairAnswer& p) {
  out << ",\n\"target\":" << json_string(p.question.target) << ",\"versus\":" << json_string(p.question.versus)
      << ",\"target_id\":" << p.ids.target << ",\"versus_id\":" << p.ids.versus << ",\"target_token\":" << json_string(p.target_token)
      << ",\"versus_token\":" << json_string(p.versus_token) << ",\"target_pieces\":" << p.target_pieces
      << ",\"versus_pieces\":" << p.versus_pieces << ",\n\"logit_diff\":{\"a\":";
  write_json_double(out, p.logit_diff_a);
  out << ",\"b\":";
  write_json_double(out, p.logit_diff_b);
  out << "},\n\"notes\":";
  write_json_list(out, p.notes.size(), [&](size_t i) { out << json_string(p.notes[i]); });
  if (!p.patching) return;
  const HeadPatching& h = *p.patching;
  out << ",\n\"patching\":";
  write_json_matrix(out, h.share);
  out << ",\n\"patched_logit_diff\":";
  write_json_matrix(out, h.logit_diff);
  out << ",\n\"patched_positions\":";
  write_json_list(out, h.positions.size(), [&](size_t i) { out << '[' << h.positions[i].first << ',' << h.positions[i].second << ']'; });
  out << ",\"patching_complete\":" << (h.complete ? "true" : "false");
}

}  // namespace

void write_contrast_json(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                         const PairAnswer* answer) {
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
  out << ",\n\"first_query_step\":" << contrast.first_query_step << ",\"query_rows\":" << contrast.query_rows;
  if (answer) write_answer(out, *answer);
  out << ",\n\"heads\":";
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

void write_contrast_csv(std::ostream& out, const ContrastResult& contrast, const HeadPatching* patching) {
  out << "layer,head,distance,max_row,max_row_query_a,max_row_query_b,weight_on_changed_a,weight_on_changed_b"
      << (patching ? ",patching,patched_logit_diff\n" : "\n");
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
      if (patching) {  // a null share as an empty cell
        const float share = patching->share(Eigen::Index(l), Eigen::Index(h)), ld = patching->logit_diff(Eigen::Index(l), Eigen::Index(h));
        out << ',';
        if (std::isfinite(share)) write_json_float(out, share);
        out << ',';
        if (std::isfinite(ld)) write_json_float(out, ld);
      }
      out << '\n';
    }
  }
}

}  // namespace hs
