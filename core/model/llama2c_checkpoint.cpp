#include "core/model/llama2c_checkpoint.h"

#include <cmath>
#include <cstring>
#include <new>

#include "core/formats/mapped_file.h"
#include "core/model/attention_config.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/finite.h"
#include "core/util/memory.h"

namespace hs {
namespace {

constexpr size_t kHeaderBytes = 7 * sizeof(int32_t);
constexpr uint32_t kVersionedMagic = 0x616b3432;  // "ak42": llama2.c export versions 1 and 2

void check_range(const std::string& path, const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    throw FormatError(path + ": llama2.c header field " + field + " is " + std::to_string(value) + "; expected " +
                      std::to_string(lo) + ".." + std::to_string(hi) + " (is this a llama2.c version-0 checkpoint?)");
  }
}

struct Llama2cHeader {
  int dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
  bool shared_classifier = true;  // vocab_size was positive in the file
};

Llama2cHeader parse_header(const MappedFile& f) {
  const std::string& path = f.path();
  if (f.size() < kHeaderBytes) {
    throw FormatError(path + ": " + std::to_string(f.size()) + " bytes is too short for a llama2.c header (28 bytes)");
  }
  int32_t v[7];
  std::memcpy(v, f.data(), kHeaderBytes);
  if (static_cast<uint32_t>(v[0]) == kVersionedMagic) {
    throw FormatError(path + ": llama2.c export version " + std::to_string(v[1]) +
                      " (magic \"ak42\") is not supported; export with --version 0 (the legacy layout)");
  }
  Llama2cHeader h;
  h.dim = v[0];
  h.hidden_dim = v[1];
  h.n_layers = v[2];
  h.n_heads = v[3];
  h.n_kv_heads = v[4];
  h.shared_classifier = v[5] > 0;
  h.vocab_size = v[5] == INT32_MIN ? 0 : std::abs(v[5]);
  h.seq_len = v[6];
  check_range(path, "dim", h.dim, 2, kMaxDModel);
  check_range(path, "hidden_dim", h.hidden_dim, 1, 1 << 18);
  check_range(path, "n_layers", h.n_layers, 1, 1024);
  check_range(path, "n_heads", h.n_heads, 1, kMaxHeads);
  check_range(path, "n_kv_heads", h.n_kv_heads, 1, h.n_heads);
  check_range(path, "vocab_size", h.vocab_size, 1, 1 << 22);
  check_range(path, "seq_len", h.seq_len, 1, 1 << 20);
  if (h.dim % h.n_heads != 0) {
    throw FormatError(path + ": n_heads (" + std::to_string(h.n_heads) + ") must divide dim (" + std::to_string(h.dim) + ")");
  }
  if (h.n_heads % h.n_kv_heads != 0) {
    throw FormatError(path + ": n_kv_heads (" + std::to_string(h.n_kv_heads) + ") must divide n_heads (" +
                      std::to_string(h.n_heads) + ")");
  }
  if ((h.dim / h.n_heads) % 2 != 0) {
    throw FormatError(path + ": head size " + std::to_string(h.dim / h.n_heads) + " must be even for RoPE");
  }
  return h;
}

// Floats the header implies, in file order.
int64_t expected_floats(const Llama2cHeader& h) {
  const int64_t d = h.dim, L = h.n_layers, V = h.vocab_size, hid = h.hidden_dim;
  const int64_t kv = int64_t(h.n_kv_heads) * (d / h.n_heads), half = (d / h.n_heads) / 2;
  int64_t n = V * d + L * d + L * d * d + 2 * L * kv * d + L * d * d + L * d + 3 * L * hid * d + d + 2 * h.seq_len * half;
  if (!h.shared_classifier) n += V * d;
  return n;
}

// Sequential reader of float32 arrays from the mapped file (bounds were checked up front).
class FloatCursor {
 public:
  explicit FloatCursor(const MappedFile& f) : f_(f), pos_(kHeaderBytes) {}
  void read(float* dst, int64_t n) {
    std::memcpy(dst, f_.data() + pos_, size_t(n) * sizeof(float));
    if (const int64_t i = first_non_finite(dst, n); i >= 0) {
      throw FormatError(f_.path() + ": float at byte offset " + std::to_string(pos_ + size_t(i) * 4) + " is not finite (" +
                        non_finite_name(dst[i]) + ")");
    }
    pos_ += size_t(n) * sizeof(float);
  }
  Map matrix(int64_t rows, int64_t cols) {
    Map m(rows, cols);
    read(m.data(), rows * cols);
    return m;
  }
  Vec vector(int64_t n) {
    Vec v(n);
    read(v.data(), n);
    return v;
  }
  void skip(int64_t n) { pos_ += size_t(n) * sizeof(float); }
  size_t pos() const { return pos_; }

 private:
  const MappedFile& f_;
  size_t pos_;
};

}  // namespace

std::unique_ptr<LlamaModel> load_llama2c(const std::string& path) {
  const MappedFile f(path);
  const Llama2cHeader h = parse_header(f);
  const int64_t floats = expected_floats(h);
  const uint64_t want = kHeaderBytes + uint64_t(floats) * sizeof(float);
  if (f.size() != want) {
    throw FormatError(path + ": file has " + std::to_string(f.size()) + " bytes; the header (dim " + std::to_string(h.dim) +
                      ", hidden_dim " + std::to_string(h.hidden_dim) + ", n_layers " + std::to_string(h.n_layers) +
                      ", n_heads " + std::to_string(h.n_heads) + ", n_kv_heads " + std::to_string(h.n_kv_heads) +
                      ", vocab_size " + std::to_string(h.shared_classifier ? h.vocab_size : -h.vocab_size) + ", seq_len " +
                      std::to_string(h.seq_len) + ") implies exactly " + std::to_string(want) +
                      (f.size() < want ? " (truncated?)" : ""));
  }

  LlamaConfig c;
  c.d_model = h.dim;
  c.hidden = h.hidden_dim;
  c.n_layers = h.n_layers;
  c.n_heads = h.n_heads;
  c.n_kv_heads = h.n_kv_heads;
  c.d_head = h.dim / h.n_heads;
  c.vocab = h.vocab_size;
  c.max_positions = h.seq_len;
  c.norm_eps = 1e-5f;
  c.rope_theta = 10000.0f;
  c.rope = RopePairs::adjacent;
  const int64_t d = c.d_model, kv = int64_t(c.n_kv_heads) * c.d_head, L = c.n_layers;

  check_weights_fit(path, floats);  // more than the machine has: say so before reading any of it
  LlamaWeights w;
  FloatCursor in(f);
  try {
    w.embedding = in.matrix(c.vocab, d);
    w.layers.resize(size_t(L));
    // The file stores each kind of array for all layers before the next kind.
    for (auto& l : w.layers) l.attn_norm = in.vector(d);
    for (auto& l : w.layers) l.wq = in.matrix(d, d);
    for (auto& l : w.layers) l.wk = in.matrix(kv, d);
    for (auto& l : w.layers) l.wv = in.matrix(kv, d);
    for (auto& l : w.layers) l.wo = in.matrix(d, d);
    for (auto& l : w.layers) l.ffn_norm = in.vector(d);
    for (auto& l : w.layers) l.w1 = in.matrix(c.hidden, d);
    for (auto& l : w.layers) l.w2 = in.matrix(d, c.hidden);
    for (auto& l : w.layers) l.w3 = in.matrix(c.hidden, d);
    w.final_norm = in.vector(d);
    in.skip(int64_t(2) * h.seq_len * (c.d_head / 2));  // freq_cis_real, freq_cis_imag
    if (!h.shared_classifier) w.classifier = in.matrix(c.vocab, d);
  } catch (const std::bad_alloc&) {
    throw_weights_out_of_memory(path, floats);
  }

  ModelInfo info;
  info.kind = "llama2c";
  info.name = file_stem(path);
  return std::make_unique<LlamaModel>(c, std::move(w), info);
}

}  // namespace hs
