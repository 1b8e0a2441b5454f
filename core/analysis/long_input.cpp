#include "core/analysis/long_input.h"

#include <cstdio>

namespace hs {

double whole_map_bytes(int64_t tokens, int64_t maps) {
  return double(tokens) * double(tokens) * double(maps) * sizeof(float) * 2;  // maps + scores
}

int display_size_for(int64_t tokens, int64_t maps) {
  if (tokens <= kLongInputTokens && whole_map_bytes(tokens, maps) <= kWholeMapBudgetBytes) return 0;
  return maps <= 16 ? 1024 : 512;
}

std::string long_input_reason(int64_t tokens, int64_t maps) {
  if (display_size_for(tokens, maps) == 0) return "";
  if (tokens > kLongInputTokens) {
    return std::to_string(tokens) + " tokens, more than " + std::to_string(kLongInputTokens);
  }
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f", whole_map_bytes(tokens, maps) / (1024.0 * 1024.0 * 1024.0));
  return "whole maps of " + std::to_string(maps) + " heads at " + std::to_string(tokens) + " tokens would take " + gib +
         " GiB, more than 1 GiB";
}

bool spectrum_fits(int64_t tokens, int64_t maps) {
  return tokens <= kSpectrumMaxTokens && double(maps) * double(tokens) * double(tokens) * double(tokens) <= kSpectrumBudget;
}

}  // namespace hs
