#include "core/model/attention_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/util/errors.h"

namespace hs {

int first_bad_row(const float* rows, int n_rows, int cols, int64_t ld, double* sum) {
  for (int i = 0; i < n_rows; ++i) {
    const float* r = rows + int64_t(i) * ld;
    double s = 0;
    for (int j = 0; j < cols; ++j) s += double(r[j]);  // a NaN or infinity makes s NaN or inf
    if (!(std::fabs(s - 1.0) <= kRowSumTolerance)) {
      if (sum) *sum = s;
      return i;
    }
  }
  return -1;
}

void throw_bad_attention(const std::string& model, int layer, int head, int row, double sum) {
  std::ostringstream msg;
  msg << model << ": layer " << layer << ", head " << head << " is not a probability distribution (query " << row
      << "'s weights sum to " << sum << ", expected 1): the checkpoint's numbers overflow float32 in the forward "
      << "pass (check its weights and config.json)";
  throw FormatError(msg.str());
}

void check_attention_maps(const ModelMaps& maps, const std::string& model, int first_row) {
  for (size_t l = 0; l < maps.size(); ++l)
    for (size_t h = 0; h < maps[l].size(); ++h) {
      const Map& a = maps[l][h];
      const int row0 = std::min(std::max(first_row, 0), int(a.rows()));
      double sum = 0;
      const int row = first_bad_row(a.data() + int64_t(row0) * a.cols(), int(a.rows()) - row0, int(a.cols()), a.cols(), &sum);
      if (row >= 0) throw_bad_attention(model, int(l), int(h), row0 + row, sum);
    }
}

void AttentionRowCheck::on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
                                const float* entropy) {
  double sum = 0;
  const int bad = first_bad_row(rows, n_rows, cols, ld, &sum);
  if (bad >= 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!bad_) {
      bad_ = true;
      layer_ = layer, head_ = head, row_ = row0 + bad, sum_ = sum;
    }
  }
  inner_->on_rows(layer, head, row0, n_rows, rows, cols, ld, entropy);
}

void AttentionRowCheck::throw_if_bad(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bad_) throw_bad_attention(model, layer_, head_, row_, sum_);
}

}  // namespace hs
