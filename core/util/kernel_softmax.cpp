// Row-wise softmax (with each row's entropy) and its exp: Cephes' expf on AVX-512 and AVX2,
// std::exp in the portable build.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/util/kernel_isa.h"
#include "core/util/kernels.h"

namespace hs {
namespace {

using namespace kernel_detail;

// ---------------------------------------------------------------------------------------
// exp for the softmax (Cephes' expf): exp(x) = 2^n exp(r), n = round(x log2(e)),
// r = x - n ln2 (ln2 split in two so r is exact), exp(r) by a degree-6 polynomial on
// |r| <= ln2 / 2. Relative error ~2 ulp; x below -87.3 (results under float's normal range)
// gives 0, and -inf gives exactly 0.
constexpr float kExpHi = 88.3762626647949f, kExpLo = -87.3365447505531f;
constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

#if HS_X86_KERNELS
// GCC 12's plain AVX-512 intrinsics (max, min, roundscale, scalef, reduce) start from
// _mm512_undefined_ps and trip -Wmaybe-uninitialized; the zero-masked forms do not.
constexpr __mmask16 kAll16 = 0xFFFF;
__attribute__((target("avx512f"))) inline __m512 max512(__m512 a, __m512 b) { return _mm512_maskz_max_ps(kAll16, a, b); }
__attribute__((target("avx512f"))) inline __m512 min512(__m512 a, __m512 b) { return _mm512_maskz_min_ps(kAll16, a, b); }
__attribute__((target("avx512f"))) inline float reduce512(__m512 v, bool take_max) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float r = lanes[0];
  for (int i = 1; i < 16; ++i) r = take_max ? std::max(r, lanes[i]) : r + lanes[i];
  return r;
}

__attribute__((target("avx512f,avx2,fma"))) inline __m512 exp512(__m512 x) {
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);  // stays NaN (as exp256)
  const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpLo), _CMP_LT_OQ);
  x = min512(max512(x, _mm512_set1_ps(kExpLo)), _mm512_set1_ps(kExpHi));
  const __m512 n = _mm512_maskz_roundscale_ps(kAll16, _mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512 e = _mm512_maskz_scalef_ps(kAll16, p, n);  // p * 2^n
  return _mm512_mask_blend_ps(nan, _mm512_mask_blend_ps(tiny, e, _mm512_setzero_ps()),
                              _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN()));
}

__attribute__((target("avx2,fma"))) inline __m256 exp256(__m256 x) {
  // NaN stays NaN (max/min would turn it into the clamp bound, and an overflowed score row into a
  // uniform one that no check could tell from a real result): all ones in its lanes at the end.
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(kExpLo), _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpLo)), _mm256_set1_ps(kExpHi));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n through the exponent bits: n is in [-126, 128] after the clamp; 2^128 is split in two.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(ni, 1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, half), _mm256_set1_epi32(127)), 23));
  const __m256 e = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  return _mm256_or_ps(_mm256_andnot_ps(tiny, e), nan);
}

__attribute__((target("avx512f,avx2,fma"))) void softmax_avx512(float* s, int rows, int cols, int64_t ld, float* entropy) {
  const int vec_end = cols / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols - vec_end)) - 1u);
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    __m512 vmax = neg_inf;
    for (int j = 0; j < vec_end; j += 16) vmax = max512(vmax, _mm512_loadu_ps(row + j));
    if (tail) vmax = max512(vmax, _mm512_mask_loadu_ps(neg_inf, tail, row + vec_end));
    const __m512 m = _mm512_set1_ps(reduce512(vmax, true));
    __m512 vsum = _mm512_setzero_ps(), vxe = _mm512_setzero_ps();  // sum e, sum e (s - max)
    const __m512 zero = _mm512_setzero_ps();
    for (int j = 0; j < vec_end; j += 16) {
      const __m512 x = _mm512_sub_ps(_mm512_loadu_ps(row + j), m);
      const __m512 e = exp512(x);
      _mm512_storeu_ps(row + j, e);
      vsum = _mm512_add_ps(vsum, e);
      vxe = _mm512_mask3_fmadd_ps(e, x, vxe, _mm512_cmp_ps_mask(e, zero, _CMP_NEQ_OQ));  // -inf: e = 0, skipped
    }
    if (tail) {
      const __m512 x = _mm512_sub_ps(_mm512_mask_loadu_ps(neg_inf, tail, row + vec_end), m);
      const __m512 e = exp512(x);
      _mm512_mask_storeu_ps(row + vec_end, tail, e);
      vsum = _mm512_add_ps(vsum, e);
      vxe = _mm512_mask3_fmadd_ps(e, x, vxe, _mm512_cmp_ps_mask(e, zero, _CMP_NEQ_OQ));
    }
    const float sum = reduce512(vsum, false);
    if (entropy) entropy[i] = std::log(sum) - reduce512(vxe, false) / sum;
    const __m512 inv = _mm512_set1_ps(1.0f / sum);
    for (int j = 0; j < vec_end; j += 16) _mm512_storeu_ps(row + j, _mm512_mul_ps(_mm512_loadu_ps(row + j), inv));
    if (tail) _mm512_mask_storeu_ps(row + vec_end, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, row + vec_end), inv));
  }
}

__attribute__((target("avx2,fma"))) inline float hmax256(__m256 v) {
  __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_max_ps(x, _mm_movehl_ps(x, x));
  x = _mm_max_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

__attribute__((target("avx2,fma"))) void softmax_avx2(float* s, int rows, int cols, int64_t ld, float* entropy) {
  const int vec_end = cols / 8 * 8;
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    for (int j = 0; j < vec_end; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(row + j));
    float mx = hmax256(vmax);
    for (int j = vec_end; j < cols; ++j) mx = std::max(mx, row[j]);
    const __m256 m = _mm256_set1_ps(mx);
    __m256 vsum = _mm256_setzero_ps(), vxe = _mm256_setzero_ps();  // sum e, sum e (s - max)
    for (int j = 0; j < vec_end; j += 8) {
      const __m256 x = _mm256_sub_ps(_mm256_loadu_ps(row + j), m);
      const __m256 e = exp256(x);
      _mm256_storeu_ps(row + j, e);
      vsum = _mm256_add_ps(vsum, e);
      const __m256 live = _mm256_cmp_ps(e, _mm256_setzero_ps(), _CMP_NEQ_OQ);  // -inf: e = 0, skipped
      vxe = _mm256_add_ps(vxe, _mm256_and_ps(live, _mm256_mul_ps(e, x)));
    }
    float sum = hsum256(vsum), xe = hsum256(vxe);
    if (vec_end < cols) {
      alignas(32) float buf[8], arg[8];
      for (int j = 0; j < 8; ++j) arg[j] = buf[j] = vec_end + j < cols ? row[vec_end + j] - mx : -std::numeric_limits<float>::infinity();
      _mm256_store_ps(buf, exp256(_mm256_load_ps(buf)));
      for (int j = vec_end; j < cols; ++j) {
        row[j] = buf[j - vec_end];
        sum += row[j];
        if (row[j] != 0.0f) xe += row[j] * arg[j - vec_end];
      }
    }
    if (entropy) entropy[i] = std::log(sum) - xe / sum;
    const float inv = 1.0f / sum;
    const __m256 vinv = _mm256_set1_ps(inv);
    for (int j = 0; j < vec_end; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), vinv));
    for (int j = vec_end; j < cols; ++j) row[j] *= inv;
  }
}

__attribute__((target("avx512f,avx2,fma"))) void exp_avx512(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, exp512(_mm512_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = _mm512_cvtss_f32(exp512(_mm512_set1_ps(in[i])));
}

__attribute__((target("avx2,fma"))) void exp_avx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, exp256(_mm256_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = _mm256_cvtss_f32(exp256(_mm256_set1_ps(in[i])));
}
#endif
void softmax_portable(float* s, int rows, int cols, int64_t ld, float* entropy) {
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    const float m = *std::max_element(row, row + cols);
    float sum = 0.0f, xe = 0.0f;  // sum e, sum e (s - max)
    for (int j = 0; j < cols; ++j) {
      const float x = row[j] - m, e = std::exp(x);
      row[j] = e;
      sum += e;
      if (e != 0.0f) xe += e * x;
    }
    if (entropy) entropy[i] = std::log(sum) - xe / sum;
    const float inv = 1.0f / sum;
    for (int j = 0; j < cols; ++j) row[j] *= inv;
  }
}

}  // namespace

void softmax_rows(float* s, int rows, int cols, int64_t ld, float* entropy) {
#if HS_X86_KERNELS
  if (isa() == Isa::avx512) return softmax_avx512(s, rows, cols, ld, entropy);
  if (isa() == Isa::avx2) return softmax_avx2(s, rows, cols, ld, entropy);
#endif
  softmax_portable(s, rows, cols, ld, entropy);
}

void exp_floats(const float* in, float* out, int64_t n) {
#if HS_X86_KERNELS
  if (isa() == Isa::avx512) return exp_avx512(in, out, n);
  if (isa() == Isa::avx2) return exp_avx2(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}
}  // namespace hs
