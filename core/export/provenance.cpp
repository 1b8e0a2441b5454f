#include "core/export/provenance.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/analysis/run_analysis.h"
#include "core/export/export.h"
#include "core/model/pretrained.h"
#include "core/model/shipped_models.h"
#include "core/util/errors.h"
#include "core/util/sha256.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// A .safetensors file starts with its header's length (uint64, little-endian) and the JSON header,
// the tensor table; 0 when the file is not one or the length is implausible.
uint64_t provenance_safetensors_header_end(const std::string& path, uint64_t size) {
  if (fs::path(path).extension() != ".safetensors" || size < 8) return 0;
  std::ifstream in(path, std::ios::binary);
  unsigned char b[8] = {};
  if (!in.read(reinterpret_cast<char*>(b), 8)) return 0;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | b[i];
  return n > 0 && n <= size - 8 ? 8 + n : 0;
}

// The file a model path names: itself, or in a Hugging Face folder its weights (model.safetensors,
// the shard index, or the first .safetensors / .gguf / .bin in name order).
std::string provenance_model_file_of(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  for (const char* name : {"model.safetensors", "model.safetensors.index.json"})
    if (fs::exists(fs::path(path) / name, ec)) return (fs::path(path) / name).string();
  std::string first;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    const std::string ext = e.path().extension().string();
    if ((ext == ".safetensors" || ext == ".gguf" || ext == ".bin") && (first.empty() || e.path().string() < first))
      first = e.path().string();
  }
  return first;
}

// A Hugging Face folder's tokenizer file ("" when none).
std::string provenance_folder_tokenizer_of(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return "";
  for (const char* name : {"tokenizer.json", "vocab.json", "tokenizer.model", "vocab.txt"})
    if (fs::exists(fs::path(path) / name, ec)) return (fs::path(path) / name).string();
  return "";
}

// A file that is not a regular file (a FIFO, a device) or cannot be read again is named, not hashed:
// the export it describes still writes.
nlohmann::json provenance_file_entry(const std::string& role, const std::string& path) {
  nlohmann::json entry = {{"role", role}, {"name", utf8_repair(fs::path(path).filename().string())}};
  std::error_code ec;
  const bool regular = fs::is_regular_file(path, ec);
  const uint64_t size = regular ? fs::file_size(path, ec) : 0;
  if (ec || !regular) {
    entry["sha256_of"] = "not hashed: " + (ec ? ec.message() : std::string("not a regular file"));
    return entry;
  }
  uint64_t hashed = size;
  std::string of = "the whole file";
  if (size > kProvenanceWholeHashBytes) {
    const uint64_t header = provenance_safetensors_header_end(path, size);
    hashed = header > 0 ? header : kProvenancePrefixBytes;
    of = "the first " + std::to_string(hashed) + " bytes of " + std::to_string(size) +
         (header > 0 ? ": the length and JSON header (tensor table)" : ": the header and tensor table") +
         " (files over " + std::to_string(kProvenanceWholeHashBytes >> 20) + " MiB are not hashed whole)";
  }
  entry["bytes"] = size;
  try {
    entry["sha256"] = sha256_file_prefix(path, hashed);
    entry["sha256_of"] = of;
  } catch (const IoError& e) {
    entry["sha256_of"] = std::string("not hashed: ") + e.what();
  }
  return entry;
}

// The files the run read: a shipped model's name resolved to its checkpoint (the teaching model has
// none), a llama2.c checkpoint's tokenizer found beside it as the loader finds it.
nlohmann::json provenance_input_files(const ModelRequest& r, const ModelInfo& info) {
  nlohmann::json files = nlohmann::json::array();
  const auto add = [&](const char* role, const std::string& path) {
    if (!path.empty()) files.push_back(provenance_file_entry(role, path));
  };
  const std::string model = r.model_path.empty() || is_teaching_model(r.model_path) ? "" : resolve_shipped_model(r.model_path);
  if (!model.empty()) add("model", provenance_model_file_of(model));
  std::string tokenizer = r.tokenizer;
  if (tokenizer.empty() && info.kind == "llama2c") tokenizer = find_llama2c_tokenizer(model, info.vocab_size);
  if (tokenizer.empty()) tokenizer = provenance_folder_tokenizer_of(model);
  add("tokenizer", tokenizer);
  add("weights", r.weights);
  add("attention maps", r.attention_file);
  add("input array", r.input_npy);
  return files;
}

// The view by what it draws, so two names of one figure (heatmap and heads, overview and heads
// --all-layers, distance and difference) record the same: their files are the same bytes.
std::string provenance_drawn_view(const ExportSpec& spec) {
  if (spec.view == View::heatmap) return spec.head >= 0 ? "head" : spec.layers == LayerScope::every ? "overview" : "heads";
  if (spec.view == View::heads && spec.head < 0 && spec.layers == LayerScope::every) return "overview";
  if (spec.view == View::distance) return "difference";  // the same table
  return view_name(spec.view);
}

// What the export shows, as the figure depends on it (so the app's file and the CLI's of one view
// stay the same bytes): the layer unless the view covers the model, the head shown (none for a
// grid), the query tokens and the role where the view reads them.
nlohmann::json provenance_view_choices(const RunAnalysis& analysis, const ExportSpec& spec) {
  const std::string drawn = provenance_drawn_view(spec);
  const ViewDescriptor& d = *find_view(drawn);  // a view's own name
  nlohmann::json v = {{"view", drawn},
                      {"colormap", colormap_name(spec.colours.colormap)},
                      {"colour_scale", scale_mode_name(spec.colours.mode)},
                      {"ignore_first_key", spec.colours.ignore_first_key}};
  if (d.scope != ViewScope::model) v["layer"] = spec.layer;
  const int head = d.scope == ViewScope::head ? std::max(spec.head, 0) : d.scope == ViewScope::head_or_layer ? spec.head : -1;
  if (head >= 0) v["head"] = head;
  if (spec.view == View::query)  // the rows summed: the chosen ones, or the last token's
    v["queries"] = spec.queries.empty() ? std::vector<int>{analysis.run.n_tokens() - 1} : spec.queries;
  if (spec.view == View::roles && spec.role >= 0) v["role"] = head_role_name(HeadRole(spec.role));
  v["n_layers"] = analysis.run.n_layers();
  v["n_heads"] = analysis.run.n_heads();
  return v;
}

nlohmann::json provenance_object(const RunAnalysis& analysis) {
  const ModelRequest& r = analysis.request;
  const ModelInfo& info = analysis.run.info;
  nlohmann::json model = {{"kind", info.kind}, {"name", utf8_repair(info.name)}, {"weight_types", info.weight_types}};
  if (info.kind == "synthetic") model["seed"] = r.seed;
  nlohmann::json input = {{"sentence", utf8_repair(r.sentence)}, {"tokens", analysis.run.n_tokens()}};
  if (!r.sentence_b.empty()) input["sentence_b"] = utf8_repair(r.sentence_b);
  if (!r.input_ids.empty()) input["input_ids"] = r.input_ids;
  return {{"headscope", HEADSCOPE_VERSION}, {"model", model}, {"files", provenance_input_files(r, info)}, {"input", input}};
}

std::string provenance_dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void provenance_put_u32_be(std::string& s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s += char((v >> shift) & 0xff);
}

}  // namespace

std::string provenance_json(const RunAnalysis& analysis, const ExportSpec& spec) {
  nlohmann::json j = provenance_object(analysis);
  j["view"] = provenance_view_choices(analysis, spec);
  return provenance_dump(j);
}

std::string run_provenance_json(const RunAnalysis& analysis) { return provenance_dump(provenance_object(analysis)); }

std::string file_provenance_json(const std::string& role, const std::string& path) {
  return provenance_file_entry(role, path).dump();
}

// A PNG chunk: length, type, data, CRC-32 of type and data. iTXt: keyword, 0, compression flag 0,
// method 0, empty language tag, 0, empty translated keyword, 0, UTF-8 text.
std::string png_with_provenance(const std::string& png, const std::string& provenance) {
  constexpr size_t kIhdrEnd = 8 + 4 + 4 + 13 + 4;  // signature, IHDR length, type, data, CRC
  if (png.size() < kIhdrEnd || png.compare(12, 4, "IHDR") != 0) return png;
  std::string body = "iTXt";
  body += std::string("headscope-provenance") + '\0' + '\0' + '\0' + '\0' + '\0';
  body += provenance;
  std::string chunk;
  provenance_put_u32_be(chunk, uint32_t(body.size() - 4));
  chunk += body;
  provenance_put_u32_be(chunk, uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
  return png.substr(0, kIhdrEnd) + chunk + png.substr(kIhdrEnd);
}

std::string svg_with_provenance(const std::string& svg, const std::string& provenance) {
  const size_t open = svg.find("<svg");
  const size_t end = open == std::string::npos ? open : svg.find('>', open);
  if (end == std::string::npos) return svg;
  std::string text;  // XML-escaped
  for (char c : provenance) {
    if (c == '&') text += "&amp;";
    else if (c == '<') text += "&lt;";
    else if (c == '>') text += "&gt;";
    else text += c;
  }
  return svg.substr(0, end + 1) + "\n<metadata id=\"headscope-provenance\">" + text + "</metadata>" + svg.substr(end + 1);
}

}  // namespace hs
