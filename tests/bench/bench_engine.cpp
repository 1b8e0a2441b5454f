// In-process timings with Google Benchmark (issue 7):
//   BM_EigenSgemm       the machine's SGEMM rate through Eigen at the layer's shapes: the ceiling
//   BM_AttentionLayer   one attention layer (d_model 768, 12 heads) with every head's map recorded,
//                       args: T, threads (0 = all cores)
//   BM_KernelSgemm      headscope's own packed SGEMM (core/util/kernels.h) at the layer's shapes,
//                       args: M, N, K, B transposed
//   BM_FewRows          the few-rows product (live typing's new token) against Eigen, args: M, N,
//                       K, B transposed, Eigen
//   BM_SoftmaxRows      the row softmax of one [T, T] map
// tests/bench/run.sh runs these next to PyTorch; run this binary alone for a quick look.
#include <benchmark/benchmark.h>

#include "app/common/environment.h"
#include "core/model/attention_layer.h"
#include "core/model/model_run.h"
#include "core/model/rng.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace {

constexpr int kDModel = 768;
constexpr int kHeads = 12;

hs::Map random_map(int rows, int cols, uint64_t seed) {
  hs::Map m(rows, cols);
  hs::Rng rng(seed);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform() * 2.0 - 1.0);
  return m;
}

// c = a b: a [M, K], b [K, N], c [M, N]; 2 M N K flops.
void BM_EigenSgemm(benchmark::State& state) {
  const int M = int(state.range(0)), N = int(state.range(1)), K = int(state.range(2));
  const hs::Map a = random_map(M, K, 1), b = random_map(K, N, 2);
  hs::Map c(M, N);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}
BENCHMARK(BM_EigenSgemm)->Args({512, 3 * kDModel, kDModel})->Args({512, kDModel, kDModel})->Unit(benchmark::kMillisecond);

// The same products through headscope's kernels; B transposed as in x W^T and q k^T.
void BM_KernelSgemm(benchmark::State& state) {
  const int M = int(state.range(0)), N = int(state.range(1)), K = int(state.range(2));
  const bool bt = state.range(3) != 0;
  const hs::Map a = random_map(M, K, 1), b = bt ? random_map(N, K, 2) : random_map(K, N, 2);
  hs::Map c(M, N);
  for (auto _ : state) {
    hs::sgemm(M, N, K, 1.0f, a.data(), K, b.data(), b.cols(), bt, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
  state.SetLabel(hs::kernel_isa());
}
BENCHMARK(BM_KernelSgemm)
    ->Args({512, 3 * kDModel, kDModel, 1})  // in-projection x W_in^T
    ->Args({512, kDModel, kDModel, 1})      // out-projection
    ->Args({512, 512, 64, 1})               // one head's q k^T
    ->Args({512, 64, 512, 0})               // one head's A v
    ->Unit(benchmark::kMillisecond);

// Live typing's products on a few rows (the new token) at GPT-2 small's shapes: the few-rows
// kernel (eigen = 0) against Eigen's a * b (eigen = 1), which matmul used before. Args: M, N, K,
// B transposed, eigen. One weight fits in L3 here; the 340 MB of all 48 stream from memory in the app.
void BM_FewRows(benchmark::State& state) {
  const int M = int(state.range(0)), N = int(state.range(1)), K = int(state.range(2));
  const bool bt = state.range(3) != 0, eigen = state.range(4) != 0;
  const hs::Map a = random_map(M, K, 1), b = bt ? random_map(N, K, 2) : random_map(K, N, 2);
  hs::Map c(M, N);
  for (auto _ : state) {
    if (eigen && bt) c.noalias() = a * b.transpose();
    else if (eigen) c.noalias() = a * b;
    else hs::sgemm_few_rows(M, N, K, a.data(), K, b.data(), b.cols(), bt, c.data(), N);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GB/s"] = benchmark::Counter(4.0 * N * K, benchmark::Counter::kIsIterationInvariantRate,
                                              benchmark::Counter::kIs1000);
  state.SetLabel(eigen ? "eigen" : hs::kernel_isa());
}
BENCHMARK(BM_FewRows)
    ->ArgsProduct({{1, 2}, {3 * kDModel}, {kDModel}, {0}, {0, 1}})  // qkv: x W_attn
    ->ArgsProduct({{1, 2}, {kDModel}, {4 * kDModel}, {0}, {0, 1}})  // MLP out: h W_out
    ->ArgsProduct({{1, 2}, {50257}, {kDModel}, {1}, {0, 1}})        // logits: h W_te^T
    ->Unit(benchmark::kMicrosecond);

void BM_SoftmaxRows(benchmark::State& state) {
  const int T = int(state.range(0));
  const hs::Map s0 = random_map(T, T, 5) * 4.0f;
  hs::Map s = s0;
  for (auto _ : state) {
    state.PauseTiming();
    s = s0;
    state.ResumeTiming();
    hs::softmax_rows(s.data(), T, T, T);
    benchmark::DoNotOptimize(s.data());
  }
  state.SetItemsProcessed(state.iterations() * int64_t(T) * T);
  state.SetLabel(hs::kernel_isa());
}
BENCHMARK(BM_SoftmaxRows)->Arg(512)->Unit(benchmark::kMicrosecond);

// One layer as `headscope-cli maps --weights ... --input ...` runs it: MapRecorder keeps every map
// (args: T, threads with 0 = all cores, record: 1 = MapRecorder, 0 = no observer, to see what
// keeping the maps costs).
void BM_AttentionLayer(benchmark::State& state) {
  const int T = int(state.range(0)), threads = int(state.range(1));
  hs::AttentionConfig c;
  c.d_model = kDModel;
  c.n_heads = kHeads;
  const hs::AttentionWeights w = hs::init_attention_weights(c, 7);
  const hs::Map x = random_map(T, kDModel, 3);
  const bool record = state.range(2) != 0;
  for (auto _ : state) {
    hs::MapRecorder recorder(1, kHeads);
    hs::Map out = hs::attention_layer_forward(x, w, c, 0, record ? &recorder : nullptr, threads);
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 8.0 * T * kDModel * kDModel + 4.0 * T * T * kDModel;
  state.counters["GFLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
  state.counters["threads"] = hs::resolve_threads(threads);
}
BENCHMARK(BM_AttentionLayer)
    ->ArgsProduct({{128, 512, 2048}, {1, 0}, {1}})
    ->Args({512, 1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  hs::apply_environment();  // HEADSCOPE_KERNELS caps the kernels, as in the programs
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
