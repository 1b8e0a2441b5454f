#pragma once
// config.json of a Hugging Face folder, read with checks: every number is range-checked
// before anything is allocated, and messages name the file and the key.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hs {

class HfConfig {
 public:
  // Throws InputError when the file is missing (not a model folder), FormatError when it is not JSON.
  explicit HfConfig(const std::string& path);
  // A nested object (Gemma 3's text_config), named `path` in messages ("config.json text_config").
  HfConfig(std::string path, nlohmann::json object);

  const std::string& path() const { return path_; }
  bool has(const std::string& key) const;  // present and not null
  bool is_null(const std::string& key) const;  // present as null (an option switched off)
  // Required (or defaulted) integer in [lo, hi]; FormatError otherwise.
  int integer(const std::string& key, int64_t lo, int64_t hi, std::optional<int> fallback = std::nullopt) const;
  double number(const std::string& key, double fallback) const;
  // A number that must be greater than 0 and at most `max` once stored as float32 (epsilons,
  // rope_theta): "config.json: \"rms_norm_eps\" is -10; expected a number greater than 0 and at
  // most 1". A negative epsilon made LayerNorm/RMSNorm take square roots of negative numbers.
  float positive_float(const std::string& key, double fallback, double max) const;
  bool boolean(const std::string& key, bool fallback) const;
  std::string string(const std::string& key, const std::string& fallback) const;
  const nlohmann::json& json() const { return j_; }

 private:
  std::string path_;
  nlohmann::json j_;
};

}  // namespace hs
