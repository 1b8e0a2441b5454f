#include "core/model/attention_file.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/formats/json_strict.h"
#include "core/formats/npz.h"
#include "core/formats/safetensors.h"
#include "core/model/attention_check.h"
#include "core/model/attention_layer.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/format.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using nlohmann::json;

// Token strings for kMaxTokens tokens and the optional keys fit many times over.
constexpr size_t kMaxTokensJsonBytes = size_t(64) << 20;

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The arrays of either container, by name: shapes without reading data (safetensors), values as floats.
class Arrays {
 public:
  explicit Arrays(const std::string& path) {
    if (ends_with(path, ".npz")) npz_ = std::make_unique<NpzFile>(path);
    else st_ = std::make_unique<SafetensorsFile>(path);
  }
  std::vector<std::string> names() const { return st_ ? st_->names() : npz_->names(); }
  bool has(const std::string& n) const { return st_ ? st_->has(n) : npz_->has(n); }
  // From the header: safetensors' JSON, or the .npy header of the .npz entry (nothing else
  // inflated, so the maps' size is checked before their bytes are).
  std::vector<int64_t> shape(const std::string& n) {
    if (st_) return st_->info(n).shape;
    return npz_->layout(n).shape;
  }
  std::vector<float> values(const std::string& n) {
    if (st_) return st_->floats(n);
    return npz_->array(n).data;  // moved: a member of a temporary
  }
  const std::map<std::string, std::string>* metadata() const { return st_ ? &st_->metadata() : nullptr; }

 private:
  std::unique_ptr<SafetensorsFile> st_;
  std::unique_ptr<NpzFile> npz_;
};

// Which arrays hold which layers: one stacked array, or one per layer.
struct Layout {
  std::string stacked;              // "attention" / "attentions", or ""
  std::vector<std::string> layers;  // per-layer names in layer order
};

// "layer.7" / "attentions.7" -> 7, else -1.
int layer_index(const std::string& name) {
  for (const std::string prefix : {"layer.", "attentions."}) {
    if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 6) continue;
    int v = 0;
    for (size_t i = prefix.size(); i < name.size(); ++i) {
      if (name[i] < '0' || name[i] > '9') return -1;
      v = v * 10 + (name[i] - '0');
    }
    return v;
  }
  return -1;
}

Layout find_layout(const std::string& path, const Arrays& a) {
  Layout out;
  std::map<int, std::string> per_layer;
  for (const std::string& n : a.names()) {
    const int l = layer_index(n);
    if (l < 0) continue;
    if (per_layer.count(l)) throw FormatError(path + ": layer " + std::to_string(l) + " is stored twice ('" + per_layer[l] + "' and '" + n + "')");
    per_layer[l] = n;
  }
  for (const char* stacked : {"attention", "attentions"})
    if (a.has(stacked)) out.stacked = stacked;
  if (!out.stacked.empty() && !per_layer.empty()) {
    throw FormatError(path + ": holds both '" + out.stacked + "' and per-layer arrays ('" + per_layer.begin()->second +
                      "', ...); keep one of the two layouts");
  }
  if (out.stacked.empty() && per_layer.empty()) {
    std::string have;
    const std::vector<std::string> names = a.names();
    for (size_t i = 0; i < names.size() && i < 8; ++i) have += (i ? ", " : "") + names[i];
    if (names.size() > 8) have += ", ...";
    throw FormatError(path + ": no attention maps: expected an array 'attention' [layers, heads, T, T] or one per layer, "
                      "'layer.0', 'layer.1', ... (or 'attentions.{i}') [heads, T, T]; the file has: " +
                      (have.empty() ? "nothing" : have));
  }
  int expect = 0;
  for (const auto& [l, n] : per_layer) {
    if (l != expect) throw FormatError(path + ": layer " + std::to_string(expect) + " is missing (the next stored is '" + n + "')");
    out.layers.push_back(n);
    ++expect;
  }
  return out;
}

// What the metadata (safetensors' __metadata__ strings) or the JSON beside the file says.
struct Extras {
  json object = json::object();
  std::string where;  // names the source in messages
};

Extras read_extras(const std::string& path, const Arrays& a) {
  Extras e;
  const std::map<std::string, std::string>* meta = a.metadata();
  if (meta && meta->count("tokens")) {
    e.where = path + ": metadata";
    for (const auto& [key, value] : *meta) {
      if (key == "name" || key == "format" || key == "source") {
        e.object[key] = value;
        continue;
      }
      // Text that is not JSON is left as text, checked where it is used.
      std::optional<json> parsed = parse_json_if_json(value, e.where + " \"" + excerpt(key) + "\"");
      e.object[key] = parsed ? std::move(*parsed) : json(value);
    }
    return e;
  }
  const std::string side = path + ".tokens.json";
  if (path_exists(side)) {  // a FIFO or a device there is refused with what it is
    e.where = side;
    const json j = parse_json_strict(read_file_limited(side, kMaxTokensJsonBytes, "a .tokens.json file"), side);
    if (j.is_array()) e.object["tokens"] = j;
    else if (j.is_object()) e.object = j;
    else throw FormatError(side + ": expected a list of token strings or an object with \"tokens\"");
    return e;
  }
  if (meta)
    for (const auto& [key, value] : *meta)
      if (key == "name") e.object["name"] = value;
  return e;
}

std::vector<std::string> tokens_of(const Extras& e, int64_t T, std::vector<std::string>& notes, const std::string& path) {
  std::vector<std::string> tokens;
  if (!e.object.contains("tokens")) {
    for (int64_t i = 0; i < T; ++i) tokens.push_back(std::to_string(i));
    notes.push_back("No token strings were found (no \"tokens\" in the file's metadata, no " + base_name(path) +
                    ".tokens.json beside it): the tokens are numbered.");
    return tokens;
  }
  const json& t = e.object["tokens"];
  if (!t.is_array()) throw FormatError(e.where + ": \"tokens\" is not a JSON list of strings");
  for (const json& s : t) {
    if (!s.is_string()) throw FormatError(e.where + ": \"tokens\" holds " + json_excerpt(s) + "; expected strings");
    tokens.push_back(utf8_repair(s.get<std::string>()));
  }
  if (int64_t(tokens.size()) != T) {
    throw InputError(e.where + " names " + std::to_string(tokens.size()) + " tokens but the maps are " + std::to_string(T) +
                     " x " + std::to_string(T) + "; the token list must have one string per row");
  }
  return tokens;
}

// Optional extras: token ids, special tokens, sentence B, causal.
void read_optional(const Extras& e, AttentionRun& run, int T) {
  const json& o = e.object;
  if (o.contains("token_ids")) {
    const json& ids = o["token_ids"];
    if (!ids.is_array() || int(ids.size()) != T) throw FormatError(e.where + ": \"token_ids\" must list " + std::to_string(T) + " integers");
    for (const json& v : ids) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 30)) {
        throw FormatError(e.where + ": \"token_ids\" holds " + json_excerpt(v) + "; expected token ids");
      }
      run.token_ids.push_back(v.get<int>());
    }
  }
  if (o.contains("special_tokens")) {
    const json& s = o["special_tokens"];
    if (!s.is_array()) throw FormatError(e.where + ": \"special_tokens\" must be a list of token indices");
    run.special_tokens.assign(size_t(T), false);
    for (const json& v : s) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= T) {
        throw FormatError(e.where + ": \"special_tokens\" holds " + json_excerpt(v) + "; expected token indices 0.." + std::to_string(T - 1));
      }
      run.special_tokens[size_t(v.get<int64_t>())] = true;
    }
  }
  if (o.contains("segment_b_start") && !o["segment_b_start"].is_null()) {
    const json& s = o["segment_b_start"];
    if (!s.is_number_integer() || s.get<int64_t>() < -1 || s.get<int64_t>() >= T) {
      throw FormatError(e.where + ": \"segment_b_start\" is " + json_excerpt(s) + "; expected -1 or a token index 0.." + std::to_string(T - 1));
    }
    run.segment_b_start = s.get<int>();
  }
  if (o.contains("name") && o["name"].is_string() && !o["name"].get<std::string>().empty()) {
    run.info.name = utf8_repair(o["name"].get<std::string>());
  }
}

// One head's map [T, T] from `src` (T*T floats), checked: finite, not negative. Counts rows whose
// sum is off by more than the tolerance (the first one kept for the note).
struct RowCheck {
  int64_t bad_rows = 0, rows = 0;
  std::string first;
};
Map checked_map(const float* src, int T, int layer, int head, const std::string& path, RowCheck& rc) {
  Map m(T, T);  // [T, T], row = query, column = key
  for (int i = 0; i < T; ++i) {
    double sum = 0.0;
    for (int j = 0; j < T; ++j) {
      const float v = src[int64_t(i) * T + j];
      if (!(v >= 0.0f) || !std::isfinite(v)) {
        const std::string cell = path + ": layer " + std::to_string(layer) + " head " + std::to_string(head) +
                                 " [query " + std::to_string(i) + ", key " + std::to_string(j) + "]";
        if (!std::isfinite(v)) throw FormatError(cell + " is not a finite number");
        throw FormatError(cell + " is " + std::to_string(v) +
                          "; attention weights are never negative (scores before the softmax? save the softmax)");
      }
      m(i, j) = v;
      sum += v;
    }
    ++rc.rows;
    if (std::abs(sum - 1.0) > kRowSumTolerance) {
      if (rc.bad_rows++ == 0) {
        std::ostringstream s;
        s << "layer " << layer << " head " << head << " query " << i << " sums to " << sum;
        rc.first = s.str();
      }
    }
  }
  return m;
}

class PreparedFile : public Prepared {
 public:
  explicit PreparedFile(AttentionRun run) : run_(std::move(run)) {}
  AttentionRun run(const RunOptions& options) const override {
    if (options.display_size > 0) {
      throw InputError(run_.info.name + ": maps from a file are whole " + std::to_string(run_.n_tokens()) + " x " +
                       std::to_string(run_.n_tokens()) + " maps; long-input mode needs the model's queries and keys " +
                       "(ask for whole maps: --whole-maps)");
    }
    if (options.observer)
      for (int l = 0; l < run_.n_layers(); ++l)
        for (int h = 0; h < run_.n_heads(); ++h)
          if (options.observer->wants(TensorKind::attention, l, h))
            options.observer->on_tensor(TensorKind::attention, l, h, run_.attention[size_t(l)][size_t(h)]);
    return run_;
  }
  int64_t tokens() const override { return run_.n_tokens(); }
  bool whole_maps_only() const override { return true; }
  int64_t maps() const override { return int64_t(run_.n_layers()) * run_.n_heads(); }

 private:
  AttentionRun run_;
};

}  // namespace

AttentionRun read_attention_file(const std::string& path) {
  if (!ends_with(path, ".safetensors") && !ends_with(path, ".npz")) {
    throw InputError("--attention " + path + ": expected a .safetensors or .npz file (see docs/attention-file.md)");
  }
  if (const std::string why = not_a_file_reason(path); !why.empty()) throw IoError("--attention " + path + " " + why);
  Arrays arrays(path);
  const Layout layout = find_layout(path, arrays);

  // Shapes first: [L, H, T, T] stacked, or L x [H, T, T]; a leading batch dimension of 1 is dropped.
  std::vector<std::string> sources = layout.stacked.empty() ? layout.layers : std::vector<std::string>{layout.stacked};
  const size_t rank = layout.stacked.empty() ? 3 : 4;
  int64_t L = layout.stacked.empty() ? int64_t(layout.layers.size()) : 0, H = 0, T = 0;
  std::vector<std::vector<int64_t>> shapes;
  for (const std::string& n : sources) {
    std::vector<int64_t> s = arrays.shape(n);
    const std::vector<int64_t> given = s;
    if (s.size() == rank + 1 && s[layout.stacked.empty() ? 0 : 1] == 1) s.erase(s.begin() + (layout.stacked.empty() ? 0 : 1));
    const std::string expected = layout.stacked.empty() ? "[heads, T, T] (or [1, heads, T, T])" : "[layers, heads, T, T] (or [layers, 1, heads, T, T])";
    if (s.size() != rank || s[rank - 1] != s[rank - 2]) {
      throw FormatError(path + ": array '" + n + "' has shape " + shape_text(given) + "; expected " + expected);
    }
    const int64_t h = s[rank - 3], t = s[rank - 1];
    if (layout.stacked.size()) L = s[0];
    if (h < 1 || t < 1 || L < 1) throw FormatError(path + ": array '" + n + "' has shape " + shape_text(given) + "; every dimension must be at least 1");
    if (H == 0) {
      H = h;
      T = t;
    } else if (h != H || t != T) {
      throw FormatError(path + ": array '" + n + "' has shape " + shape_text(given) + " but '" + sources[0] + "' has " +
                        std::to_string(H) + " heads of " + std::to_string(T) + " x " + std::to_string(T) +
                        "; every layer must have the same heads and tokens");
    }
  }
  if (T > kMaxTokens) throw InputError(path + ": the maps cover " + std::to_string(T) + " tokens; the limit is " + std::to_string(kMaxTokens));
  if (L > 4096 || H > kMaxHeads) throw InputError(path + ": " + std::to_string(L) + " layers x " + std::to_string(H) + " heads is more than headscope shows");
  try {
    check_map_memory(T, L * H);  // before any map is read or inflated
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }

  AttentionRun run;
  run.info.kind = "attention-file";
  run.info.name = base_name(path);
  run.info.n_layers = int(L);
  run.info.n_heads = int(H);
  run.info.n_kv_heads = int(H);
  run.attention.assign(size_t(L), LayerMaps());
  RowCheck rc;
  const int64_t per_map = T * T;
  for (size_t s = 0; s < sources.size(); ++s) {
    const std::vector<float> v = arrays.values(sources[s]);
    const int64_t layers_here = layout.stacked.empty() ? 1 : L;
    if (int64_t(v.size()) != layers_here * H * per_map) throw FormatError(path + ": array '" + sources[s] + "' holds fewer values than its shape");
    for (int64_t l = 0; l < layers_here; ++l) {
      const int layer = layout.stacked.empty() ? int(s) : int(l);
      for (int64_t h = 0; h < H; ++h)
        run.attention[size_t(layer)].push_back(checked_map(v.data() + (l * H + h) * per_map, int(T), layer, int(h), path, rc));
    }
  }

  const Extras extras = read_extras(path, arrays);
  run.tokens = tokens_of(extras, T, run.notes, path);
  read_optional(extras, run, int(T));
  run.prompt_tokens = int(T);
  // Causal: as the file says, else when no map has a weight above the diagonal.
  if (extras.object.contains("causal") && extras.object["causal"].is_boolean()) {
    run.info.causal = extras.object["causal"].get<bool>();
  } else {
    bool causal = T > 1;
    for (const LayerMaps& layer : run.attention)
      for (const Map& m : layer)
        for (int64_t i = 0; i < T && causal; ++i)
          for (int64_t j = i + 1; j < T; ++j)
            if (m(i, j) != 0.0f) {
              causal = false;
              break;
            }
    run.info.causal = causal;
  }
  if (rc.bad_rows > 0) {
    run.rows_sum_to_one = false;
    run.notes.push_back(std::to_string(rc.bad_rows) + " of " + std::to_string(rc.rows) + " rows do not sum to 1 (within " +
                        "0.001; first: " + rc.first + "): the maps are shown as given, and head differences and " +
                        "entropies compare them as they are.");
  }
  return run;
}

std::unique_ptr<Prepared> prepare_attention_file(const std::string& path) {
  return std::make_unique<PreparedFile>(read_attention_file(path));
}

}  // namespace hs
