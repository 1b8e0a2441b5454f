#include "core/model/rope.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace hs {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The unscaled frequencies: inv_freq[i] = theta^(-2i / dim), i = 0 .. dim/2 - 1.
std::vector<double> base_frequencies(double theta, int dim) {
  std::vector<double> f(size_t(dim / 2));
  for (int i = 0; i < dim / 2; ++i) f[size_t(i)] = 1.0 / std::pow(theta, double(2 * i) / double(dim));
  return f;
}

// YaRN's attention factor for a scale s: 0.1 m ln(s) + 1 (1 when s <= 1).
double yarn_mscale(double s, double m) { return s <= 1.0 ? 1.0 : 0.1 * m * std::log(s) + 1.0; }

// YaRN: the dimension (fractional) whose frequency turns `rotations` times over `positions`.
double yarn_correction_dim(double rotations, int dim, double theta, double positions) {
  return double(dim) * std::log(positions / (rotations * 2.0 * kPi)) / (2.0 * std::log(theta));
}

std::vector<float> to_float(const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); }

}  // namespace

const char* rope_type_name(RopeType t) {
  switch (t) {
    case RopeType::plain: return "default";
    case RopeType::linear: return "linear";
    case RopeType::dynamic: return "dynamic";
    case RopeType::yarn: return "yarn";
    case RopeType::llama3: return "llama3";
    case RopeType::longrope: return "longrope";
  }
  return "?";
}

RopeFrequencies rope_frequencies(const RopeSpec& s, int seq_len) {
  assert(s.theta > 0.0 && s.rotary_dim >= 2 && s.rotary_dim % 2 == 0 && "rope_frequencies: theta and an even rotary_dim");
  assert((s.type != RopeType::dynamic || s.max_positions > 0) && "dynamic RoPE needs max_positions");
  assert((s.type != RopeType::yarn || s.original_max_positions > 0 || s.max_positions > 0) && "yarn needs a context length");
  assert((s.type != RopeType::llama3 || s.original_max_positions > 0) && "llama3 RoPE needs original_max_positions");
  assert((s.type != RopeType::longrope || s.original_max_positions > 0) && "longrope needs original_max_positions");
  const int dim = s.rotary_dim, half = dim / 2;
  RopeFrequencies out;
  switch (s.type) {
    case RopeType::plain: {
      out.inv_freq = to_float(base_frequencies(s.theta, dim));
      break;
    }
    case RopeType::linear: {
      // Position interpolation: every angle shrinks by the factor.
      std::vector<double> f = base_frequencies(s.theta, dim);
      for (double& x : f) x /= s.factor;
      out.inv_freq = to_float(f);
      break;
    }
    case RopeType::dynamic: {
      // NTK-aware: for L = max(seq_len, max_positions) the base becomes
      //   theta * (factor * L / max_positions - (factor - 1))^(dim / (dim - 2))
      // (theta itself while the sequence fits in max_positions).
      const double L = std::max<double>(seq_len, s.max_positions);
      const double base =
          s.theta * std::pow(s.factor * L / double(s.max_positions) - (s.factor - 1.0), double(dim) / double(dim - 2));
      out.inv_freq = to_float(base_frequencies(base, dim));
      break;
    }
    case RopeType::yarn: {
      // inv_freq = interp (1 - e) + extrap e, interp = extrap / factor, where the extrapolation
      // weight e[i] = 1 - clamp((i - low) / (high - low), 0, 1) keeps the fast (high-frequency)
      // dimensions as they were and interpolates the slow ones; low and high are the dimensions
      // that turn beta_fast and beta_slow times over the original context.
      const double original = s.original_max_positions > 0 ? s.original_max_positions : s.max_positions;
      double low = yarn_correction_dim(s.beta_fast, dim, s.theta, original);
      double high = yarn_correction_dim(s.beta_slow, dim, s.theta, original);
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, double(dim - 1));
      if (low == high) high += 0.001;  // no division by zero
      const std::vector<double> extrap = base_frequencies(s.theta, dim);
      out.inv_freq.resize(size_t(half));
      for (int i = 0; i < half; ++i) {
        const double ramp = std::clamp((double(i) - low) / (high - low), 0.0, 1.0);
        const double e = 1.0 - ramp;
        const double interp = extrap[size_t(i)] / s.factor;
        out.inv_freq[size_t(i)] = float(interp * (1.0 - e) + extrap[size_t(i)] * e);
      }
      double af = s.attention_factor;
      if (af <= 0.0) {
        af = (s.mscale > 0.0 && s.mscale_all_dim > 0.0) ? yarn_mscale(s.factor, s.mscale) / yarn_mscale(s.factor, s.mscale_all_dim)
                                                        : yarn_mscale(s.factor, 1.0);
      }
      out.attention_factor = float(af);
      break;
    }
    case RopeType::llama3: {
      // Wavelength w = 2 pi / f. Against the original context C: w < C / high_freq_factor keeps f,
      // w > C / low_freq_factor takes f / factor, and in between
      //   f' = (1 - t) f / factor + t f,   t = (C / w - low_freq_factor) / (high_freq_factor - low_freq_factor).
      const double C = s.original_max_positions;
      const double low_wavelen = C / s.low_freq_factor, high_wavelen = C / s.high_freq_factor;
      std::vector<double> f = base_frequencies(s.theta, dim);
      for (double& x : f) {
        const double wavelen = 2.0 * kPi / x;
        if (wavelen > low_wavelen) {
          x /= s.factor;
        } else if (wavelen >= high_wavelen) {
          const double t = (C / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
          x = (1.0 - t) * x / s.factor + t * x;
        }
      }
      out.inv_freq = to_float(f);
      break;
    }
    case RopeType::longrope: {
      // inv_freq[i] = 1 / (ext[i] theta^(2i/dim)), ext = long_factor once the sequence exceeds the
      // original context, short_factor before; cos and sin scale by
      // sqrt(1 + ln(factor) / ln(original)) unless an attention factor is configured.
      const bool is_long = seq_len > s.original_max_positions;
      const std::vector<double>& ext = is_long ? s.long_factor : s.short_factor;
      assert(int(ext.size()) == half && "longrope factors: rotary_dim / 2 of each");
      std::vector<double> f = base_frequencies(s.theta, dim);
      for (int i = 0; i < half; ++i) f[size_t(i)] /= ext[size_t(i)];
      out.inv_freq = to_float(f);
      double af = s.attention_factor;
      if (af <= 0.0) af = s.factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(s.factor) / std::log(double(s.original_max_positions)));
      out.attention_factor = float(af);
      break;
    }
  }
  if (!s.freq_factors.empty()) {
    assert(int(s.freq_factors.size()) == half && "freq_factors: rotary_dim / 2 of them");
    for (int i = 0; i < half; ++i) out.inv_freq[size_t(i)] = float(double(out.inv_freq[size_t(i)]) / s.freq_factors[size_t(i)]);
  }
  return out;
}

void apply_rope(Map& m, int n_heads, int dh, const RopeFrequencies& f, int first_pos, RopePairs pairs) {
  const int r = static_cast<int>(f.inv_freq.size());
  assert(m.cols() == Eigen::Index(n_heads) * dh && 2 * r <= dh && "apply_rope: [T, heads * dh], rotary_dim <= dh");
  for (Eigen::Index t = 0; t < m.rows(); ++t) {
    const float pos = static_cast<float>(first_pos + t);
    float* row = m.row(t).data();
    for (int i = 0; i < r; ++i) {
      // As transformers: the angle in float32, cos and sin then times the attention factor.
      const float angle = pos * f.inv_freq[size_t(i)];
      const float c = std::cos(angle) * f.attention_factor, s = std::sin(angle) * f.attention_factor;
      const int ia = pairs == RopePairs::adjacent ? 2 * i : i;
      const int ib = pairs == RopePairs::adjacent ? 2 * i + 1 : i + r;
      for (int h = 0; h < n_heads; ++h) {
        float& a = row[h * dh + ia];
        float& b = row[h * dh + ib];
        const float a0 = a, b0 = b;
        a = a0 * c - b0 * s;
        b = b0 * c + a0 * s;
      }
    }
  }
}

}  // namespace hs
