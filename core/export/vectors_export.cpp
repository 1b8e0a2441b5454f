#include "core/export/vectors_export.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "core/formats/npy.h"
#include "core/util/errors.h"

namespace hs {
namespace {

struct KindName {
  VectorKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{VectorKind::scores, "scores"}, {VectorKind::queries, "q"}, {VectorKind::keys, "k"}, {VectorKind::values, "v"}};

TensorKind tensor_kind(VectorKind kind) {
  switch (kind) {
    case VectorKind::scores: return TensorKind::scores;
    case VectorKind::queries: return TensorKind::queries;
    case VectorKind::keys: return TensorKind::keys;
    case VectorKind::values: return TensorKind::values;
  }
  return TensorKind::scores;
}

// Keeps one kind of tensor of every layer as the engine announces it: scores per (layer, head)
// ([T, T]), q, k and v per (layer, -1) ([T, n * d_head]). Heads announce concurrently: a lock.
class VectorRecorder : public Observer {
 public:
  explicit VectorRecorder(TensorKind kind) : kind_(kind) {}
  bool wants(TensorKind kind, int layer, int head) const override {
    (void)layer, (void)head;
    return kind == kind_;
  }
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override { take_tensor(kind, layer, head, Map(tensor)); }
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override {
    (void)kind;
    std::lock_guard<std::mutex> lock(mutex_);
    tensors_[{layer, head}] = std::move(tensor);
  }
  // The tensor of (layer, head); InputError when the run announced none.
  const Map& at(int layer, int head) const {
    const auto it = tensors_.find({layer, head});
    if (it == tensors_.end()) throw InputError("this model's run gave no " + std::string(tensor_kind_name(kind_)) + " to export");
    return it->second;
  }

 private:
  TensorKind kind_;
  std::mutex mutex_;
  std::map<std::pair<int, int>, Map> tensors_;
};

// [n, T, d_head] from one layer's [T, n * d_head] (head-major, as the heads split their columns).
void append_heads(std::vector<float>& out, const Map& m, int n, int d_head) {
  for (int h = 0; h < n; ++h)
    for (Eigen::Index t = 0; t < m.rows(); ++t) {
      const float* row = m.data() + t * m.cols() + int64_t(h) * d_head;
      out.insert(out.end(), row, row + d_head);
    }
}

}  // namespace

VectorKind parse_vector_kind(const std::string& name) {
  for (const KindName& k : kKinds)
    if (name == k.name) return k.kind;
  throw InputError("--what '" + name + "' is not a kind of vector; expected scores, q, k or v");
}

const char* vector_kind_name(VectorKind kind) {
  for (const KindName& k : kKinds)
    if (k.kind == kind) return k.name;
  return "scores";
}

std::string vectors_npy(const ModelRequest& request, VectorKind kind, int layer, int threads, CheckpointCache* cache) {
  if (!request.attention_file.empty()) {
    throw InputError(std::string("--what ") + vector_kind_name(kind) +
                     ": maps read from a file (--attention) have no queries, keys, values or scores behind them");
  }
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  RunOptions options;
  options.threads = threads;
  VectorRecorder recorder(tensor_kind(kind));
  options.observer = &recorder;
  const AttentionRun run = prepared->run(options);
  const int L = run.n_layers(), H = run.n_heads(), T = run.n_tokens();
  if (layer >= L) throw InputError("layer " + std::to_string(layer) + " does not exist (0 to " + std::to_string(L - 1) + ")");
  const int first = layer >= 0 ? layer : 0, count = layer >= 0 ? 1 : L;
  std::vector<float> data;
  std::vector<int64_t> shape;
  if (kind == VectorKind::scores) {
    shape = {count, H, T, T};
    for (int l = first; l < first + count; ++l)
      for (int h = 0; h < H; ++h) data.insert(data.end(), recorder.at(l, h).data(), recorder.at(l, h).data() + int64_t(T) * T);
  } else {
    const int kv = run.info.n_kv_heads > 0 ? run.info.n_kv_heads : H;
    const int n = kind == VectorKind::queries ? H : kv, d_head = int(recorder.at(first, -1).cols()) / n;
    shape = {count, n, T, d_head};
    for (int l = first; l < first + count; ++l) append_heads(data, recorder.at(l, -1), n, d_head);
  }
  return npy_bytes(data.data(), shape);
}

}  // namespace hs
