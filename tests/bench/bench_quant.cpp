// Products on quantized weights alone (issue 34): QuantizedMatrix::multiply_wt, y = x W^T, for
// one matrix of every type headscope reads, at T = 256 (a prompt) and T = 1 (a typed token), on
// 1 and 2 threads. W is [4864, 896] (Qwen2.5-0.5B's ffn_up) for the 32-value-block and float
// types and [896, 4864] (its ffn_down) for the 256-value K types: 4.36 M weights each. The
// matrices are random blocks with fixed, moderate scales, written by this program into a GGUF
// file in the temporary folder, each in enough copies to fill 64 MiB (twice this machine's L3):
// T = 1 takes a different copy each call, so it reads the weights from memory as typing does.
// Prints, per type: GFLOP/s (best and median of the rounds, wall clock), GFLOP per CPU second
// (the best round's process CPU time: steadier on a busy machine) and the weights' bytes read
// per second (at T = 1 the memory bandwidth reached); the load average before and after
// (a shared machine: compare rounds taken at the same load). It measures; it asserts nothing.
//   bench_quant [--rounds N] [--types Q4_K,Q5_0] [--threads 1,2]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/formats/ggml_types.h"
#include "core/model/quantized_matrix.h"
#include "core/util/kernels.h"

namespace {

using Clock = std::chrono::steady_clock;

struct TypeCase {
  hs::GgmlType type;
  std::vector<int> half_at;  // offsets of the block's half-precision scales (set to sane values)
};

const std::vector<TypeCase>& cases() {
  using hs::GgmlType;
  static const std::vector<TypeCase> c = {
      {GgmlType::F32, {}},          {GgmlType::F16, {}},           {GgmlType::BF16, {}},
      {GgmlType::Q8_0, {0}},        {GgmlType::Q4_0, {0}},         {GgmlType::Q4_1, {0, 2}},
      {GgmlType::Q5_0, {0}},        {GgmlType::Q5_1, {0, 2}},      {GgmlType::Q2_K, {80, 82}},
      {GgmlType::Q3_K, {108}},      {GgmlType::Q4_K, {0, 2}},      {GgmlType::Q5_K, {0, 2}},
      {GgmlType::Q6_K, {208}},
  };
  return c;
}

void put(std::string& s, const void* p, size_t n) { s.append(static_cast<const char*>(p), n); }
template <class T> void put(std::string& s, T v) { put(s, &v, sizeof v); }
void put_string(std::string& s, const std::string& v) {
  put<uint64_t>(s, v.size());
  s += v;
}

// Random encoded bytes for a [rows, cols] matrix of `c.type`, scales set to about 1e-3.
std::string random_matrix(const TypeCase& c, int64_t rows, int64_t cols, std::mt19937& rng) {
  const hs::GgmlTypeInfo& info = hs::ggml_type_info(c.type);
  const int64_t blocks = rows * cols / info.block_size;
  std::string out(size_t(blocks * info.block_bytes), '\0');
  auto* b = reinterpret_cast<uint8_t*>(out.data());
  for (auto& byte : out) byte = char(rng() & 0xFF);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  const uint16_t scale = 0x1418;  // half 1.0e-3
  for (int64_t i = 0; i < blocks; ++i) {
    uint8_t* block = b + i * info.block_bytes;
    if (c.type == hs::GgmlType::F32) {
      const float v = normal(rng);
      std::memcpy(block, &v, 4);
    } else if (c.type == hs::GgmlType::F16) {
      const uint16_t h = uint16_t(0x2000 + (rng() & 0x0FFF) + ((rng() & 1) << 15));  // |x| ~ 0.008 .. 0.06
      std::memcpy(block, &h, 2);
    } else if (c.type == hs::GgmlType::BF16) {
      const float v = normal(rng);
      uint32_t u;
      std::memcpy(&u, &v, 4);
      const uint16_t h = uint16_t(u >> 16);
      std::memcpy(block, &h, 2);
    }
    for (const int at : c.half_at) std::memcpy(block + at, &scale, 2);
  }
  return out;
}

struct Shape {
  int64_t rows, cols;
};
Shape shape_of(hs::GgmlType type) {
  return hs::ggml_type_info(type).block_size == 256 ? Shape{896, 4864} : Shape{4864, 896};
}
int copies_of(hs::GgmlType type) {
  const hs::GgmlTypeInfo& info = hs::ggml_type_info(type);
  const int64_t bytes = 896 * 4864 / info.block_size * info.block_bytes;
  return int((int64_t(64) << 20) / bytes + 1);
}
std::string tensor_name(hs::GgmlType type, int copy) {
  return std::string("w.") + hs::ggml_type_name(type) + "." + std::to_string(copy);
}

// GGUF v3: no metadata, tensors "w.<TYPE>.<copy>", data aligned to 32 bytes.
std::string write_file(const std::vector<TypeCase>& types) {
  std::mt19937 rng(34);
  std::string head, data;
  put(head, "GGUF", 4);
  put<uint32_t>(head, 3);
  uint64_t tensors = 0;
  for (const TypeCase& c : types) tensors += uint64_t(copies_of(c.type));
  put<uint64_t>(head, tensors);
  put<uint64_t>(head, 0);
  for (const TypeCase& c : types)
    for (int copy = 0; copy < copies_of(c.type); ++copy) {
    const Shape s = shape_of(c.type);
    put_string(head, tensor_name(c.type, copy));
    put<uint32_t>(head, 2);
    put<uint64_t>(head, uint64_t(s.cols));
    put<uint64_t>(head, uint64_t(s.rows));
    put<uint32_t>(head, uint32_t(c.type));
    put<uint64_t>(head, data.size());
    data += random_matrix(c, s.rows, s.cols, rng);
    data.resize((data.size() + 31) / 32 * 32, '\0');
    }
  head.resize((head.size() + 31) / 32 * 32, '\0');
  const std::string path = (std::filesystem::temp_directory_path() / "headscope-bench-quant.gguf").string();
  std::ofstream(path, std::ios::binary) << head << data;
  return path;
}

// The CPU time of the whole process (every thread) in seconds: on a shared machine the wall clock
// also counts the time other programs hold the cores.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double load_average() {
  double l = -1;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 7;
  std::vector<std::string> only;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--types") only = split(argv[i + 1]);
    else if (a == "--threads") {
      thread_counts.clear();
      for (const std::string& t : split(argv[i + 1])) thread_counts.push_back(std::max(1, std::atoi(t.c_str())));
    }
  }
  if (const char* cap = std::getenv("HEADSCOPE_KERNELS")) hs::cap_kernels(cap);
  std::vector<TypeCase> types;
  for (const TypeCase& c : cases())
    if (only.empty() || std::find(only.begin(), only.end(), hs::ggml_type_name(c.type)) != only.end()) types.push_back(c);
  const std::string path = write_file(types);
  const auto file = std::make_shared<const hs::GgufFile>(path);
  std::printf("multiply_wt, y = x W^T (kernels: %s), %d rounds; load average %.2f at the start\n", hs::kernel_isa(),
              rounds, load_average());
  std::printf("%-5s %-12s %3s %4s %10s %10s %10s %10s\n", "type", "W [rows,cols]", "thr", "T", "GFLOP/s", "(median)",
              "GFLOP/cpu-s", "GB/s W");
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  {  // the float32 kernel on the same shape (a float W [4864, 896]): the rate to reach
    std::vector<float> wf(size_t(4864) * 896);
    for (float& v : wf) v = normal(rng);
    hs::Map x(256, 896), y(256, 4864);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
    for (const int threads : thread_counts) {
      double best = 1e9, best_cpu = 1e9;
      for (int r = 0; r < rounds; ++r) {
        const auto t0 = Clock::now();
        const double c0 = cpu_seconds();
        hs::sgemm(256, 4864, 896, 1.0f, x.data(), 896, wf.data(), 896, true, y.data(), 4864, false, threads);
        best_cpu = std::min(best_cpu, cpu_seconds() - c0);
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
      }
      const double flops = 2.0 * 256 * 4864 * 896;
      std::printf("%-5s %-12s %3d %4d %10.1f %10s %10.1f\n", "sgemm", "[4864,896]", threads, 256, flops / best * 1e-9, "",
                  flops / best_cpu * 1e-9);
    }
  }
  for (const TypeCase& c : types) {
    std::vector<hs::QuantizedMatrix> all;
    for (int copy = 0; copy < copies_of(c.type); ++copy) all.emplace_back(file, tensor_name(c.type, copy));
    const hs::QuantizedMatrix& w = all.front();
    for (const int T : {256, 1}) {
      hs::Map x(T, w.cols());
      for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
      for (const int threads : thread_counts) {
        // T = 1: one call per copy (from memory); T = 256: copy 0 again and again (from cache).
        const int reps = T == 1 ? int(all.size()) : 1;
        std::vector<double> seconds, cpu;
        for (const hs::QuantizedMatrix& m : all) (void)m.multiply_wt(x, threads);  // the mapped pages are in memory
        for (int r = 0; r < rounds; ++r) {
          const auto t0 = Clock::now();
          const double c0 = cpu_seconds();
          for (int k = 0; k < reps; ++k) (void)all[size_t(k)].multiply_wt(x, threads);
          cpu.push_back((cpu_seconds() - c0) / reps);
          seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / reps);
        }
        std::sort(seconds.begin(), seconds.end());
        std::sort(cpu.begin(), cpu.end());
        const double flops = 2.0 * double(T) * double(w.rows()) * double(w.cols());
        const double best = seconds.front(), median = seconds[seconds.size() / 2];
        char shape[32];
        std::snprintf(shape, sizeof shape, "[%lld,%lld]", (long long)w.rows(), (long long)w.cols());
        std::printf("%-5s %-12s %3d %4d %10.1f %10.1f %10.1f %10.2f\n", hs::ggml_type_name(c.type), shape, threads, T,
                    flops / best * 1e-9, flops / median * 1e-9, flops / cpu.front() * 1e-9, double(w.bytes()) / best * 1e-9);
        std::fflush(stdout);
      }
    }
  }
  std::printf("load average %.2f at the end\n", load_average());
  std::filesystem::remove(path);
  return 0;
}
