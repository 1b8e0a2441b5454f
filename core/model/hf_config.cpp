#include "core/model/hf_config.h"

#include <cmath>
#include <sstream>

#include "core/formats/json_strict.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"

namespace hs {
namespace {

constexpr size_t kMaxConfigBytes = 16u << 20;  // config.json files are a few kilobytes

}  // namespace

HfConfig::HfConfig(const std::string& path) : path_(path) {
  if (const std::string why = not_a_file_reason(path); !why.empty()) {
    throw InputError(path + (path_exists(path) ? " " + why : std::string(" not found")) +
                     ": a Hugging Face model folder holds config.json, model.safetensors and tokenizer files");
  }
  const std::string text = read_file_limited(path, kMaxConfigBytes, "a config.json");
  j_ = parse_json_strict(text, path);
  if (!j_.is_object()) throw FormatError(path + ": expected a JSON object");
}

HfConfig::HfConfig(std::string path, nlohmann::json object) : path_(std::move(path)), j_(std::move(object)) {
  if (!j_.is_object()) throw FormatError(path_ + ": expected a JSON object");
}

bool HfConfig::is_null(const std::string& key) const { return j_.contains(key) && j_[key].is_null(); }

bool HfConfig::has(const std::string& key) const { return j_.contains(key) && !j_[key].is_null(); }

int HfConfig::integer(const std::string& key, int64_t lo, int64_t hi, std::optional<int> fallback) const {
  if (!has(key)) {
    if (fallback) return *fallback;
    throw FormatError(path_ + ": \"" + key + "\" is missing");
  }
  const nlohmann::json& v = j_[key];
  if (!v.is_number_integer()) throw FormatError(path_ + ": \"" + key + "\" is " + json_excerpt(v) + "; expected an integer");
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) {
    throw FormatError(path_ + ": \"" + key + "\" is " + std::to_string(x) + "; expected " + std::to_string(lo) + ".." +
                      std::to_string(hi));
  }
  return static_cast<int>(x);
}

double HfConfig::number(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = j_[key];
  if (!v.is_number()) throw FormatError(path_ + ": \"" + key + "\" is " + json_excerpt(v) + "; expected a number");
  return v.get<double>();
}

float HfConfig::positive_float(const std::string& key, double fallback, double max) const {
  const double v = number(key, fallback);
  const float f = static_cast<float>(v);
  if (!(f > 0.0f) || !std::isfinite(f) || double(f) > max) {
    std::ostringstream msg;
    msg << path_ << ": \"" << key << "\" is " << (has(key) ? json_excerpt(j_[key]) : std::to_string(v))
        << "; expected a number greater than 0 and at most " << max;
    throw FormatError(msg.str());
  }
  return f;
}

bool HfConfig::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = j_[key];
  if (!v.is_boolean()) throw FormatError(path_ + ": \"" + key + "\" is " + json_excerpt(v) + "; expected true or false");
  return v.get<bool>();
}

std::string HfConfig::string(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = j_[key];
  if (!v.is_string()) throw FormatError(path_ + ": \"" + key + "\" is " + json_excerpt(v) + "; expected a string");
  return v.get<std::string>();
}

}  // namespace hs
