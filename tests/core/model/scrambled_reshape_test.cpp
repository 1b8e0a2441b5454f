// The teaching variant "scrambled reshape" (the classic view(heads, T, d_head) mistake):
// with one head it is the same as the right split; with several heads it runs, gives valid
// row-stochastic maps, and differs from the right split because tokens land in wrong heads.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/attention_weights.h"
#include "core/model/embedding.h"
#include "core/model/synthetic_model.h"

namespace hs {
namespace {

AttentionRun run(int heads, bool scrambled) {
  SyntheticSpec spec;
  spec.attention.d_model = 8;
  spec.attention.n_heads = heads;
  spec.attention.scrambled_reshape = scrambled;
  spec.seed = 3;
  return run_synthetic("the keys that Priya left on the table were not hers", spec);
}

TEST(ScrambledReshape, OneHeadIsTheSameAsTheRightSplit) {
  const AttentionRun right = run(1, false), wrong = run(1, true);
  EXPECT_LE((right.attention[0][0] - wrong.attention[0][0]).cwiseAbs().maxCoeff(), 1e-6f);
  EXPECT_LE((right.output - wrong.output).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(ScrambledReshape, SeveralHeadsRunAndScrambleTheMaps) {
  const AttentionRun right = run(4, false), wrong = run(4, true);
  for (int h = 0; h < 4; ++h) {
    const Map& a = wrong.attention[0][size_t(h)];
    for (Eigen::Index i = 0; i < a.rows(); ++i) EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-5f) << "head " << h << " row " << i;
    EXPECT_GT((a - right.attention[0][size_t(h)]).cwiseAbs().maxCoeff(), 1e-3f) << "head " << h << " was not scrambled";
  }
}

TEST(ScrambledReshape, MatchesAnIndependentFlatIndexReference) {
  // Reference in double precision, straight from the definition: the wrong view gives head h,
  // token t the flat slice [(h*T + t)*dh, +dh) of the row-major [T, H*dh] projection.
  const int H = 4, dh = 2;
  SyntheticSpec spec;
  spec.attention.d_model = 8;
  spec.attention.n_heads = H;
  spec.attention.scrambled_reshape = true;
  spec.seed = 3;
  const std::vector<std::string> tokens = {"the", "keys", "that", "Priya", "left", "on", "the"};
  const int T = static_cast<int>(tokens.size());
  const AttentionRun wrong = run_synthetic_tokens(tokens, spec);
  const Map x = embed_tokens(tokens, 8, spec.seed);
  const AttentionWeights w = init_attention_weights(spec.attention, spec.seed);
  const Eigen::MatrixXd q = (x.cast<double>() * w.w_q.cast<double>().transpose()).rowwise() + w.b_q.cast<double>().transpose();
  const Eigen::MatrixXd k = (x.cast<double>() * w.w_k.cast<double>().transpose()).rowwise() + w.b_k.cast<double>().transpose();
  auto flat = [&](const Eigen::MatrixXd& m, int64_t f) { return m(f / m.cols(), f % m.cols()); };  // row-major index
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < T; ++i) {
      Eigen::VectorXd s(T);
      for (int j = 0; j < T; ++j) {
        double dot = 0;
        for (int c = 0; c < dh; ++c) dot += flat(q, (int64_t(h) * T + i) * dh + c) * flat(k, (int64_t(h) * T + j) * dh + c);
        s[j] = dot / std::sqrt(double(dh));
      }
      const Eigen::VectorXd e = (s.array() - s.maxCoeff()).exp();
      const Eigen::VectorXd a = e / e.sum();
      for (int j = 0; j < T; ++j) {
        EXPECT_NEAR(wrong.attention[0][size_t(h)](i, j), a[j], 1e-5) << "head " << h << " query " << i << " key " << j;
      }
    }
  }
}

}  // namespace
}  // namespace hs
