#pragma once
// Every map the pretrained path hands out must hold probability rows: finite, summing to 1.
// Finite weights and in-range config values can still overflow float32 somewhere in a forward
// pass (scores of inf give NaN rows); such a map is refused here rather than drawn under "each
// row sums to 1". One pass over the rows, after the run (whole maps) or as blocks of rows stream by
// (long-input mode).
#include <mutex>
#include <string>

#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// |sum - 1| allowed for a row (sums are taken in double; float32 softmax rows of 65536 keys
// stay within 1e-5 of 1).
constexpr double kRowSumTolerance = 1e-3;

// The first of n_rows rows (`cols` floats each, `ld` apart) that has a NaN or infinity or does not
// sum to 1 within kRowSumTolerance, with its sum; -1 when every row is sound.
int first_bad_row(const float* rows, int n_rows, int cols, int64_t ld, double* sum);

// FormatError: "<model>: layer 2, head 5 is not a probability distribution (query 3's weights
// sum to nan, expected 1): the checkpoint's numbers overflow float32 in the forward pass".
[[noreturn]] void throw_bad_attention(const std::string& model, int layer, int head, int row, double sum);

// Checks maps [layer][head] (rows = queries) from row `first_row` on (a prefix run: the rows
// before it were checked in the run that made them); throws as above, naming the map's row.
void check_attention_maps(const ModelMaps& maps, const std::string& model, int first_row = 0);

// Forwards every call to `inner` and checks each streamed block of rows on the way.
class AttentionRowCheck : public Observer {
 public:
  explicit AttentionRowCheck(Observer* inner) : inner_(inner) {}
  bool wants(TensorKind kind, int layer, int head) const override { return inner_->wants(kind, layer, head); }
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override {
    inner_->on_tensor(kind, layer, head, tensor);
  }
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override {
    inner_->take_tensor(kind, layer, head, std::move(tensor));
  }
  bool wants_rows(int layer, int head) const override { return inner_->wants_rows(layer, head); }
  int stream_rows() const override { return inner_->stream_rows(); }
  void on_rows(int layer, int head, int row0, int n_rows, const float* rows, int cols, int64_t ld,
               const float* entropy) override;
  // Throws for the first bad row seen, if any.
  void throw_if_bad(const std::string& model) const;

 private:
  Observer* inner_;
  mutable std::mutex mutex_;
  bool bad_ = false;
  int layer_ = 0, head_ = 0, row_ = 0;
  double sum_ = 0;
};

}  // namespace hs
