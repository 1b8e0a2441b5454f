#pragma once
// Numbers read from files must be finite: one NaN or infinity in a weight spreads through every
// product it enters and turns whole attention maps into NaN (or rows that no longer sum to 1).
// Every loader (llama2.c checkpoints, safetensors tensors for --weights and Hugging Face
// folders, --input arrays) checks what it read with first_non_finite and names the place.
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

// Index of the first NaN or infinity among n floats, or -1. One pass on the exponent bits,
// which the compiler vectorises (a 1 GB checkpoint takes a fraction of a second).
int64_t first_non_finite(const float* data, int64_t n);

// "NaN", "inf" or "-inf".
std::string non_finite_name(float v);

// Element `index` of a tensor of `shape`, row-major, as "[i, j, k]".
std::string element_text(int64_t index, const std::vector<int64_t>& shape);

}  // namespace hs
