#include "core/model/hf_tensors.h"

#include <nlohmann/json.hpp>

#include "core/formats/json_strict.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/format.h"

namespace hs {
namespace {

constexpr size_t kMaxIndexBytes = 64u << 20;  // a 70B model's index is about 60 KB

bool exists(const std::string& path) { return is_regular_file(path); }

std::string shape_text(int64_t rows, int64_t cols) {
  return cols < 0 ? "[" + std::to_string(rows) + "]" : "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

}  // namespace

HfTensors::HfTensors(const std::string& dir) {
  const std::string single = dir + "/model.safetensors", index = dir + "/model.safetensors.index.json";
  if (exists(single)) {
    files_.push_back(std::make_unique<SafetensorsFile>(single));
    description_ = single;
  } else if (exists(index)) {
    const std::string text = read_file_limited(index, kMaxIndexBytes, "a safetensors index");
    const nlohmann::json j = parse_json_strict(text, index);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
      throw FormatError(index + ": expected an object with a \"weight_map\" of tensor -> shard file");
    }
    std::map<std::string, const SafetensorsFile*> opened;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it.value().is_string()) throw FormatError(index + ": the shard of '" + excerpt(it.key()) + "' is not a file name");
      const std::string shard = it.value().get<std::string>();
      if (shard.find('/') != std::string::npos) throw FormatError(index + ": shard '" + excerpt(shard) + "' is not a file in the folder");
      if (!opened.count(shard)) {
        files_.push_back(std::make_unique<SafetensorsFile>(dir + "/" + shard));
        opened[shard] = files_.back().get();
      }
    }
    description_ = index;
  } else if (exists(dir + "/pytorch_model.bin") || exists(dir + "/model.bin")) {
    throw InputError(dir + ": only safetensors weights are supported (found pytorch_model.bin, a pickle); convert the " +
                     "folder with transformers' save_pretrained(..., safe_serialization=True)");
  } else {
    throw InputError(dir + ": no model.safetensors (or model.safetensors.index.json) in the folder");
  }
  for (const auto& f : files_)
    for (const std::string& name : f->names()) {
      const auto [it, added] = where_.emplace(name, f.get());
      if (!added) {
        throw FormatError(dir + ": tensor '" + excerpt(name) + "' is in both " + it->second->path() + " and " + f->path() +
                          " (a checkpoint holds each tensor once)");
      }
    }
}

int64_t HfTensors::total_elements() const {
  int64_t n = 0;
  for (const auto& [name, file] : where_) n += file->info(name).elements();
  return n;
}

bool HfTensors::has(const std::string& name) const { return where_.count(name) != 0; }

DType HfTensors::dtype(const std::string& name) const {
  const auto it = where_.find(name);
  return it == where_.end() ? DType::F32 : it->second->info(name).dtype;
}

std::string HfTensors::first_present(const std::vector<std::string>& names) const {
  for (const std::string& n : names)
    if (has(n)) return n;
  return "";
}

const SafetensorsFile& HfTensors::file_for(const std::string& name, int64_t rows, int64_t cols, const std::string& what) const {
  const auto it = where_.find(name);
  if (it == where_.end()) {
    throw FormatError(description_ + ": tensor '" + name + "' (" + what + ", expected shape " + shape_text(rows, cols) +
                      ") is missing");
  }
  return *it->second;
}

Map HfTensors::matrix(const std::string& name, int64_t rows, int64_t cols, const std::string& what) const {
  const SafetensorsFile& f = file_for(name, rows, cols, what);
  const TensorInfo& t = f.info(name);
  if (t.shape.size() != 2 || t.shape[0] != rows || t.shape[1] != cols) {
    throw FormatError(f.path() + ": tensor '" + name + "' (" + what + ") has shape " + t.shape_text() + "; expected " +
                      shape_text(rows, cols) + " from config.json");
  }
  return f.matrix(name, rows, cols);
}

Vec HfTensors::vector(const std::string& name, int64_t size, const std::string& what) const {
  const SafetensorsFile& f = file_for(name, size, -1, what);
  const TensorInfo& t = f.info(name);
  if (t.shape.size() != 1 || t.shape[0] != size) {
    throw FormatError(f.path() + ": tensor '" + name + "' (" + what + ") has shape " + t.shape_text() + "; expected " +
                      shape_text(size, -1) + " from config.json");
  }
  return f.vector(name, size);
}

}  // namespace hs
