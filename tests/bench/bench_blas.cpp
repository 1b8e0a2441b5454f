// The engine's matrix products against Debian's OpenBLAS (cblas_sgemm) at every shape the models
// use (issue 21): one attention layer of GPT-2 small (d 768, 12 heads of 64, T = 512) and its MLP,
// on 1 and 2 threads, in alternating rounds (engine, OpenBLAS, engine, ...) so a busy machine
// slows both alike. Prints GFLOP/s (best and median of the rounds) for both per shape, the
// engine's whole attention layer (streaming, and keeping every map) against OpenBLAS's SGEMM on the
// layer's own products, and one BENCH_SUMMARY line (ratios as best/median). It measures; it
// asserts nothing.
//   bench_blas [--rounds N]
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "app/common/environment.h"
#include "core/model/attention_layer.h"
#include "core/model/model_run.h"
#include "core/util/kernels.h"

namespace {

using Clock = std::chrono::steady_clock;

// One product as the engine calls it: C [M, N] (+)= A [M, K] op(B), row-major with leading
// dimensions; B [N, K] when `bt` (a weight stored as PyTorch's nn.Linear stores it).
struct Shape {
  const char* name;
  int M, N, K;
  bool bt;
  int64_t lda, ldb, ldc;
  int repeat;  // times the layer runs it (per head: 12)
};

constexpr int kT = 512, kD = 768, kHeads = 12, kDh = 64, kMlp = 3072;

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {"qkv projection", kT, 3 * kD, kD, true, kD, kD, 3 * kD, 1},
      {"q k^T per head", kT, kT, kDh, true, 3 * kD, 3 * kD, kT, kHeads},
      {"a v per head", kT, kDh, kT, false, kT, 3 * kD, kD, kHeads},
      {"output projection", kT, kD, kD, true, kD, kD, kD, 1},
      {"mlp up", kT, kMlp, kD, true, kD, kD, kMlp, 0},
      {"mlp down", kT, kD, kMlp, true, kMlp, kMlp, kD, 0},
  };
  return s;
}

double flops(const Shape& s) { return 2.0 * s.M * s.N * s.K; }

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

struct Buffers {
  std::vector<float> a, b, c;
  explicit Buffers(const Shape& s)
      : a(random_floats(size_t(s.M) * size_t(s.lda), 1)),
        b(random_floats(size_t(s.bt ? s.N : s.K) * size_t(s.ldb), 2)),
        c(size_t(s.M) * size_t(s.ldc), 0.0f) {}
};

void run_engine(const Shape& s, Buffers& b, int threads) {
  hs::sgemm(s.M, s.N, s.K, 1.0f, b.a.data(), s.lda, b.b.data(), s.ldb, s.bt, b.c.data(), s.ldc, false, threads);
}

void run_openblas(const Shape& s, Buffers& b) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, s.bt ? CblasTrans : CblasNoTrans, s.M, s.N, s.K, 1.0f, b.a.data(),
              int(s.lda), b.b.data(), int(s.ldb), 0.0f, b.c.data(), int(s.ldc));
}

// Seconds per call: the best of `reps` calls after one warm-up call.
double seconds_per_call(const std::function<void()>& f, int reps) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

int reps_for(double flop) { return std::clamp(int(2e9 / flop), 3, 200); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Rates {
  std::vector<double> engine, blas;  // GFLOP/s per round
};

}  // namespace

int main(int argc, char** argv) {
  hs::apply_environment();  // HEADSCOPE_KERNELS caps the kernels, as in the programs
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: bench_blas [--rounds N] (got '%s')\n", argv[i]);
      return 2;
    }
  }
  std::printf("engine kernels (%s) against OpenBLAS %s cblas_sgemm; %d alternating rounds; GFLOP/s best / median\n",
              hs::kernel_isa(), OPENBLAS_VERSION, rounds);
  std::string summary = "BENCH_SUMMARY bench=blas";
  for (int threads : {1, 2}) {
    openblas_set_num_threads(threads);
    std::printf("\n%d thread%s\n%-20s %-16s %17s %17s %13s\n", threads, threads == 1 ? "" : "s", "product", "M x N x K",
                "engine", "openblas", "ratio b / m");
    double blas_layer_s = 0, blas_layer_median_s = 0;
    for (const Shape& s : shapes()) {
      Buffers buf(s);
      const int reps = reps_for(flops(s));
      Rates r;
      for (int round = 0; round < rounds; ++round) {
        r.engine.push_back(flops(s) / seconds_per_call([&] { run_engine(s, buf, threads); }, reps) / 1e9);
        r.blas.push_back(flops(s) / seconds_per_call([&] { run_openblas(s, buf); }, reps) / 1e9);
      }
      const double e = *std::max_element(r.engine.begin(), r.engine.end());
      const double o = *std::max_element(r.blas.begin(), r.blas.end());
      const double em = median(r.engine), om = median(r.blas);
      blas_layer_s += s.repeat * flops(s) / (o * 1e9);
      blas_layer_median_s += s.repeat * flops(s) / (om * 1e9);
      char dims[32];
      std::snprintf(dims, sizeof dims, "%dx%dx%d", s.M, s.N, s.K);
      std::printf("%-20s %-16s %8.1f / %6.1f %8.1f / %6.1f %6.2f / %4.2f\n", s.name, dims, e, em, o, om, e / o, em / om);
      std::string key = s.name;
      for (char& ch : key)
        if (ch == ' ' || ch == '^') ch = '_';
      char field[96];
      std::snprintf(field, sizeof field, " %s_%dt_ratio=%.2f/%.2f", key.c_str(), threads, e / o, em / om);
      summary += field;
    }
    // The whole attention layer as the engine runs it (projections, per-head scores and
    // softmax, AV), against OpenBLAS's time for the layer's products alone: once streaming (no
    // observer: no map kept) and once keeping every head's [T, T] map, as the programs do.
    hs::AttentionConfig c;
    c.d_model = kD;
    c.n_heads = kHeads;
    const hs::AttentionWeights w = hs::init_attention_weights(c, 7);
    hs::Map x(kT, kD);
    const std::vector<float> xv = random_floats(size_t(kT) * kD, 3);
    std::copy(xv.begin(), xv.end(), x.data());
    const double layer_flop = 8.0 * kT * kD * kD + 4.0 * kT * kT * kD;
    const double ceiling = layer_flop / blas_layer_s / 1e9, ceiling_median = layer_flop / blas_layer_median_s / 1e9;
    for (const bool keep : {false, true}) {
      std::vector<double> layer;
      for (int round = 0; round < rounds; ++round)
        layer.push_back(layer_flop / seconds_per_call([&] {
                          hs::MapRecorder recorder(1, kHeads);
                          (void)hs::attention_layer_forward(x, w, c, 0, keep ? &recorder : nullptr, threads);
                        }, 3) / 1e9);
      const double best = *std::max_element(layer.begin(), layer.end()), mid = median(layer);
      std::printf("%-37s %8.1f / %6.1f %8.1f / %6.1f %6.2f / %4.2f  (target >= %s)\n",
                  keep ? "layer T=512, every map kept" : "layer T=512, streaming (no map kept)", best, mid, ceiling,
                  ceiling_median, best / ceiling, mid / ceiling_median, keep ? "1.00" : "0.90");
      char field[200];
      const char* tag = keep ? "layer_kept" : "layer";
      std::snprintf(field, sizeof field, " %s_%dt_gflops=%.1f/%.1f openblas_%dt_gflops=%.1f/%.1f %s_%dt_vs_openblas=%.2f/%.2f",
                    tag, threads, best, mid, threads, ceiling, ceiling_median, tag, threads, best / ceiling,
                    mid / ceiling_median);
      summary += field;
    }
  }
  std::printf("\nratio b / m: engine / OpenBLAS of the best rounds and of the median rounds (on a busy machine the\n"
              "median is the steadier); the layer's OpenBLAS rate is the layer's FLOPs over OpenBLAS's time for the\n"
              "layer's own products (QKV, 12 x QK^T, 12 x AV, output; no softmax), so the layer's ratio counts\n"
              "everything else the engine does (softmax, copies) against it.\n");
  std::printf("\n%s\n", summary.c_str());
  return 0;
}
