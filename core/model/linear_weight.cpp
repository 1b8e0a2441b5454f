#include "core/model/linear_weight.h"

#include <algorithm>
#include <cassert>

#include "core/model/transformer_ops.h"

namespace hs {

int64_t LinearWeight::bytes() const {
  return quantized_ ? int64_t(quantized_->bytes()) : int64_t(dense_.size()) * int64_t(sizeof(float));
}

const char* LinearWeight::type_name() const { return quantized_ ? ggml_type_name(quantized_->type()) : "F32"; }

Map LinearWeight::gather_rows(const std::vector<int>& ids) const {
  if (quantized_) return quantized_->gather_rows(ids);
  Map out(Eigen::Index(ids.size()), dense_.cols());  // [n, cols]
  for (size_t t = 0; t < ids.size(); ++t) {
    assert(ids[t] >= 0 && ids[t] < dense_.rows() && "row ids checked by the caller");
    out.row(Eigen::Index(t)) = dense_.row(ids[t]);
  }
  return out;
}

std::vector<int> LinearWeight::argmax_wt(const Map& x, float cap, int threads) const {
  if (quantized_) return quantized_->argmax_wt(x, cap, threads);
  // Float weights: logits of 64 rows at a time ([64, rows]), soft-capped, then their argmax.
  std::vector<int> out;
  out.reserve(size_t(x.rows()));
  const Eigen::Index block = 64;
  for (Eigen::Index t0 = 0; t0 < x.rows(); t0 += block) {
    const Eigen::Index n = std::min(block, x.rows() - t0);
    Map y = matmul_wt(Map(x.middleRows(t0, n)), dense_, threads);
    if (cap > 0.0f) y = y.unaryExpr([cap](float v) { return soft_cap(v, cap); });
    const std::vector<int> best = argmax_rows(y);
    out.insert(out.end(), best.begin(), best.end());
  }
  return out;
}

Map matmul_wt(const Map& x, const LinearWeight& w, int threads) {
  return w.quantized() ? w.matrix().multiply_wt(x, threads) : matmul_wt(x, w.dense(), threads);
}

}  // namespace hs
