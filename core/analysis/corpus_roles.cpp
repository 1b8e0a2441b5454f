// Sections, in order: RunningStat and shard specs, CorpusRoleStats (add, means, merge),
// corpus_role_stats (reading the corpus line by line and scoring each sentence), the JSON
// statistics file (write_corpus_stats, read_corpus_stats).
#include "core/analysis/corpus_roles.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/analysis/induction_probe.h"
#include "core/analysis/long_input.h"
#include "core/analysis/run_analysis.h"
#include "core/formats/json_strict.h"
#include "core/model/checkpoint_cache.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/utf8.h"

namespace hs {

void RunningStat::add(double x) {
  ++n;
  const double delta = x - mean;
  mean += delta / double(n);
  m2 += delta * (x - mean);
  min = n == 1 ? x : std::min(min, x);
  max = n == 1 ? x : std::max(max, x);
}

void RunningStat::merge(const RunningStat& o) {
  if (o.n == 0) return;
  if (n == 0) {
    *this = o;
    return;
  }
  const int64_t total = n + o.n;
  const double delta = o.mean - mean;
  mean += delta * double(o.n) / double(total);
  m2 += o.m2 + delta * delta * double(n) * double(o.n) / double(total);
  min = std::min(min, o.min);
  max = std::max(max, o.max);
  n = total;
}

double RunningStat::std_dev() const {
  return n < 2 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(std::max(0.0, m2) / double(n - 1));
}

ShardSpec parse_shard(const std::string& text) {
  const std::string expected = "; expected I/N with whole numbers 0 <= I < N, e.g. 0/4 (the lines i with i % N == I)";
  const size_t slash = text.find('/');
  const auto number = [&](const std::string& part) -> long long {
    if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw InputError("--shard '" + text + "' is not a shard" + expected);
    return std::stoll(part);
  };
  if (slash == std::string::npos) throw InputError("--shard '" + text + "' has no '/'" + expected);
  const long long i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n < 1) throw InputError("--shard '" + text + "': the shard count (" + std::to_string(n) + ") must be 1 or more" + expected);
  if (i >= n) {
    throw InputError("--shard '" + text + "': the index (" + std::to_string(i) + ") must be below the count (" +
                     std::to_string(n) + ")" + expected);
  }
  return {int(i), int(n)};
}

void CorpusRoleStats::add(const HeadRoles& roles) {
  if (stats.empty()) {
    n_layers = roles.n_layers();
    n_heads = roles.n_heads();
    stats.assign(size_t(n_layers), std::vector<std::array<RunningStat, kHeadRoleCount>>(size_t(n_heads)));
  }
  if (roles.n_layers() != n_layers || roles.n_heads() != n_heads) {
    throw InputError("a sentence gave " + std::to_string(roles.n_layers()) + " x " + std::to_string(roles.n_heads()) +
                     " heads; the corpus so far had " + std::to_string(n_layers) + " x " + std::to_string(n_heads));
  }
  for (int l = 0; l < n_layers; ++l)
    for (int h = 0; h < n_heads; ++h)
      for (int r = 0; r < kHeadRoleCount; ++r) {
        const float v = roles.scores[size_t(l)][size_t(h)].score[r];
        if (HeadRole(r) != HeadRole::induction && !std::isnan(v)) stats[size_t(l)][size_t(h)][size_t(r)].add(double(v));
      }
  if (roles.chance.size() != size_t(n_layers)) return;
  chance.resize(size_t(n_layers));
  for (int l = 0; l < n_layers; ++l)
    for (int r = 0; r < kHeadRoleCount; ++r)
      if (const float c = roles.chance[size_t(l)].score[r]; !std::isnan(c)) chance[size_t(l)][size_t(r)].add(double(c));
}

HeadRoleScores CorpusRoleStats::chance_means(int layer) const {
  HeadRoleScores s;
  if (size_t(layer) >= chance.size()) return s;
  for (int r = 0; r < kHeadRoleCount; ++r)
    if (chance[size_t(layer)][size_t(r)].n > 0) s.score[r] = float(chance[size_t(layer)][size_t(r)].mean);
  return s;
}

std::string CorpusRoleStats::label(int layer, int head) const {
  if (chance.empty()) return strongest_role(means(layer, head), options.threshold);
  const HeadRoleScores c = chance_means(layer);
  return strongest_role(means(layer, head), options.threshold, &c, options.chance_margin);
}

HeadRoleScores CorpusRoleStats::means(int layer, int head) const {
  HeadRoleScores s;
  for (int r = 0; r < kHeadRoleCount; ++r) {
    const RunningStat& st = stats[size_t(layer)][size_t(head)][size_t(r)];
    if (st.n > 0) s.score[r] = float(st.mean);
  }
  if (!induction.empty()) s[HeadRole::induction] = induction[size_t(layer)][size_t(head)];
  return s;
}

void CorpusRoleStats::merge(const CorpusRoleStats& o, const std::string& name) {
  const auto refuse = [&](const std::string& what) { throw InputError(name + " cannot be merged: " + what); };
  if (o.corpus_lines != corpus_lines) {
    refuse("it covers a corpus of " + std::to_string(o.corpus_lines) + " lines, the others " + std::to_string(corpus_lines));
  }
  if (o.shard_count != shard_count) {
    refuse("it is a shard of " + std::to_string(o.shard_count) + ", the others of " + std::to_string(shard_count));
  }
  for (int i : o.shard_indices)
    if (std::find(shard_indices.begin(), shard_indices.end(), i) != shard_indices.end())
      refuse("shard " + std::to_string(i) + "/" + std::to_string(shard_count) + " is given twice");
  if (o.options.local_window != options.local_window || o.options.threshold != options.threshold ||
      o.options.probe_length != options.probe_length || o.options.probe_seed != options.probe_seed ||
      o.options.chance_margin != options.chance_margin) {
    refuse("its settings (local_window, threshold, chance margin, probe) differ");
  }
  // Each shard's counts were read within kMaxCorpusCount and its lines; their sums must stay so.
  if (o.lines.in_shard > corpus_lines - lines.in_shard) {
    refuse("with it the shards hold " + std::to_string(lines.in_shard) + " + " + std::to_string(o.lines.in_shard) +
           " lines, more than the corpus's " + std::to_string(corpus_lines));
  }
  if (o.lines.tokens > kMaxCorpusCount - lines.tokens) {
    refuse("with it the shards count more than " + std::to_string(kMaxCorpusCount) + " tokens");
  }
  const bool both_scored = n_layers > 0 && o.n_layers > 0;
  if (both_scored) {
    if (o.model_name != model_name || o.model_kind != model_kind || o.n_layers != n_layers || o.n_heads != n_heads) {
      refuse("it was made by " + o.model_name + " (" + std::to_string(o.n_layers) + " x " + std::to_string(o.n_heads) +
             " heads), the others by " + model_name + " (" + std::to_string(n_layers) + " x " + std::to_string(n_heads) + ")");
    }
    if (o.probe_ids != probe_ids) refuse("its induction probe differs");
    for (int l = 0; l < n_layers && !induction.empty() && !o.induction.empty(); ++l)
      for (int h = 0; h < n_heads; ++h) {
        const float a = induction[size_t(l)][size_t(h)], b = o.induction[size_t(l)][size_t(h)];
        if (std::isnan(a) != std::isnan(b) || std::fabs(a - b) > 1e-5f) {
          refuse("its induction score of layer " + std::to_string(l) + " head " + std::to_string(h) + " (" +
                 std::to_string(b) + ") differs from the others' (" + std::to_string(a) + ")");
        }
      }
  } else if (o.n_layers > 0) {
    model_name = o.model_name;
    model_kind = o.model_kind;
    n_layers = o.n_layers;
    n_heads = o.n_heads;
    probe_ids = o.probe_ids;
    induction = o.induction;
    stats.assign(size_t(n_layers), std::vector<std::array<RunningStat, kHeadRoleCount>>(size_t(n_heads)));
  }
  if (o.n_layers > 0)
    for (int l = 0; l < n_layers; ++l)
      for (int h = 0; h < n_heads; ++h)
        for (int r = 0; r < kHeadRoleCount; ++r) stats[size_t(l)][size_t(h)][size_t(r)].merge(o.stats[size_t(l)][size_t(h)][size_t(r)]);
  if (o.chance.size() == size_t(n_layers)) {
    chance.resize(size_t(n_layers));
    for (int l = 0; l < n_layers; ++l)
      for (int r = 0; r < kHeadRoleCount; ++r) chance[size_t(l)][size_t(r)].merge(o.chance[size_t(l)][size_t(r)]);
  }
  shard_indices.insert(shard_indices.end(), o.shard_indices.begin(), o.shard_indices.end());
  std::sort(shard_indices.begin(), shard_indices.end());
  lines.in_shard += o.lines.in_shard;
  lines.scored += o.lines.scored;
  lines.blank += o.lines.blank;
  lines.invalid_utf8 += o.lines.invalid_utf8;
  lines.rejected += o.lines.rejected;
  lines.cut += o.lines.cut;
  lines.tokens += o.lines.tokens;
}

namespace {

// Reads one line (without '\n', and without a '\r' before it) into `line`, keeping at most `cap`
// bytes and skipping the rest; `cut` says whether bytes were skipped. False at the end of input.
bool read_line(std::streambuf& in, std::string& line, int64_t cap, bool& cut) {
  line.clear();
  cut = false;
  int c = in.sbumpc();
  if (c == std::char_traits<char>::eof()) return false;
  for (; c != std::char_traits<char>::eof() && c != '\n'; c = in.sbumpc()) {
    if (int64_t(line.size()) < cap) line.push_back(char(c));
    else cut = true;
  }
  if (!line.empty() && line.back() == '\r' && !cut) line.pop_back();
  return true;
}

// Whole lines of the file (a last line without '\n' counts).
int64_t count_lines(const std::string& path) {
  if (const std::string why = not_a_file_reason(path); !why.empty()) {
    if (!path_exists(path)) throw IoError("cannot open the corpus " + path + ": it " + why);
    throw InputError("--corpus " + path + " " + why + " (the corpus must be a regular file: it is read twice, once to count "
                     "its lines)");
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError("cannot open the corpus " + path);
  int64_t lines = 0;
  char last = '\n';
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    const std::streamsize got = f.gcount();
    lines += std::count(buf, buf + got, '\n');
    last = buf[got - 1];
  }
  if (f.bad()) throw IoError("cannot read the corpus " + path);
  return lines + (last != '\n' ? 1 : 0);
}

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; });
}

// A line cut at a byte count may end inside a character: drop that character's first bytes.
void drop_partial_character(std::string& s) {
  size_t i = s.size(), continuation = 0;
  while (i > 0 && continuation < 4 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i, ++continuation;
  if (i == 0) return;
  const unsigned char lead = static_cast<unsigned char>(s[i - 1]);
  const size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (continuation + 1 < need) s.resize(i - 1);
}

}  // namespace

CorpusRoleStats corpus_role_stats(const ModelRequest& base, const std::string& path, const CorpusOptions& options) {
  const ShardSpec shard = options.shard;
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    throw InputError("shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) + " is not a shard");
  }
  CorpusRoleStats out;
  out.corpus = path;
  out.options = options.role_options;
  out.shard_count = shard.count;
  out.shard_indices = {shard.index};
  out.corpus_lines = count_lines(path);
  out.lines.in_shard = out.corpus_lines > shard.index ? (out.corpus_lines - shard.index + shard.count - 1) / shard.count : 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw IoError("cannot open the corpus " + path);

  CheckpointCache cache;  // the checkpoint is read once
  ModelRequest request = base;
  request.fit_context = true;
  bool probed = false;
  std::string line;
  int64_t done = 0;
  bool cut = false;
  for (int64_t index = 0; read_line(*file.rdbuf(), line, kCorpusMaxLineBytes, cut); ++index) {
    if (index % shard.count != shard.index) continue;
    const int64_t number = index + 1;
    const auto note = [&](const std::string& what) {
      if (options.note) options.note(number, what);
    };
    const auto finish = [&] {
      ++done;
      if (options.progress) options.progress(done, out.lines.in_shard);
    };
    if (cut) drop_partial_character(line);
    if (blank(line)) {
      ++out.lines.blank;
      finish();
      continue;
    }
    if (!utf8_is_valid(line)) {
      ++out.lines.invalid_utf8;
      note("not valid UTF-8; skipped");
      finish();
      continue;
    }
    if (cut) note("longer than " + std::to_string(kCorpusMaxLineBytes) + " bytes; cut to its first " + std::to_string(line.size()));
    request.sentence = line;
    AttentionRun run;
    std::unique_ptr<Prepared> prepared;
    try {
      prepared = prepare(request, &cache);
      RunOptions ro;
      ro.threads = options.threads;
      ro.display_size = display_size_for(prepared->tokens(), prepared->maps());
      run = prepared->run(ro);
    } catch (const InputError& e) {
      ++out.lines.rejected;
      note(std::string("skipped: ") + e.what());
      finish();
      continue;
    }
    for (const std::string& n : run.notes) note(n);
    if (cut || !run.notes.empty()) ++out.lines.cut;
    const Prepared::Vocabulary v = prepared->vocabulary();
    ProbeRun probe;
    if (!probed) {
      // The induction probe, once (as run_analysis does for one sentence).
      probed = true;
      out.options.probe_length = fitted_probe_length(v, out.options.probe_length);
      probe = run_induction_probe(*prepared, out.options, options.threads);
    }
    const HeadRoles roles = compute_head_roles(run, v.bos_id, probe.ids.empty() ? nullptr : &probe.run, probe.ids,
                                               out.options, kDistanceSampleRows, options.threads);
    if (out.stats.empty()) {
      out.model_name = run.info.name;
      out.model_kind = run.info.kind;
      out.probe_ids = roles.probe_ids;
      out.induction.assign(size_t(roles.n_layers()), std::vector<float>(size_t(roles.n_heads()), std::nanf("")));
      for (int l = 0; l < roles.n_layers(); ++l)
        for (int h = 0; h < roles.n_heads(); ++h)
          out.induction[size_t(l)][size_t(h)] = roles.scores[size_t(l)][size_t(h)][HeadRole::induction];
    }
    out.add(roles);
    ++out.lines.scored;
    out.lines.tokens += run.n_tokens();
    finish();
  }
  if (file.bad()) throw IoError("cannot read the corpus " + path);
  return out;
}

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;  // written in the documented key order

// The shortest decimal that reads back as the same float (0.4f -> 0.4, not 0.4000000059604645).
double shortest(float v) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
  return std::strtod(std::string(buf, r.ptr).c_str(), nullptr);
}

ojson number_or_null(double v) { return std::isnan(v) ? ojson(nullptr) : ojson(v); }

json role_names() {
  json r = json::array();
  for (int i = 0; i < kHeadRoleCount; ++i) r.push_back(head_role_name(HeadRole(i)));
  return r;
}

}  // namespace

void write_corpus_stats(std::ostream& out, const CorpusRoleStats& s) {
  ojson header;
  header["format"] = "headscope head roles corpus";
  header["version"] = 1;
  header["model"] = {{"name", s.model_name}, {"kind", s.model_kind}, {"n_layers", s.n_layers}, {"n_heads", s.n_heads}};
  header["roles"] = ojson::array();
  for (int r = 0; r < kHeadRoleCount; ++r) header["roles"].push_back(head_role_name(HeadRole(r)));
  header["settings"] = {{"local_window", s.options.local_window},
                        {"threshold", shortest(s.options.threshold)},
                        {"chance_margin", shortest(s.options.chance_margin)},
                        {"probe_length", s.options.probe_length},
                        {"probe_seed", s.options.probe_seed}};
  header["probe"] = s.probe_ids.empty() ? ojson(nullptr) : ojson(s.probe_ids);
  header["corpus"] = {{"path", utf8_repair(s.corpus)}, {"lines", s.corpus_lines}};
  header["shard"] = {{"count", s.shard_count}, {"indices", s.shard_indices}, {"rule", "line index % count == index"}};
  header["lines"] = {{"in_shard", s.lines.in_shard}, {"scored", s.lines.scored},   {"blank", s.lines.blank},
                     {"invalid_utf8", s.lines.invalid_utf8}, {"rejected", s.lines.rejected}, {"cut", s.lines.cut}};
  header["tokens"] = s.lines.tokens;
  // Each role's chance level per layer, averaged over the scored sentences (n: how many measured it).
  if (!s.chance.empty()) {
    ojson n = ojson::object(), mean = ojson::object();
    for (int r = 0; r < kHeadRoleCount; ++r) {
      const std::string name = head_role_name(HeadRole(r));
      n[name] = ojson::array(), mean[name] = ojson::array();
      for (const auto& layer : s.chance) {
        n[name].push_back(layer[size_t(r)].n);
        mean[name].push_back(layer[size_t(r)].n > 0 ? ojson(layer[size_t(r)].mean) : ojson(nullptr));
      }
    }
    header["chance"] = {{"n", n}, {"mean", mean}};
  }
  out << header.dump() << '\n';
  for (int l = 0; l < s.n_layers; ++l) {
    for (int h = 0; h < s.n_heads; ++h) {
      ojson n = ojson::object(), mean = ojson::object(), sd = ojson::object(), mn = ojson::object(), mx = ojson::object(),
           m2 = ojson::object();
      for (int r = 0; r < kHeadRoleCount; ++r) {
        const std::string name = head_role_name(HeadRole(r));
        if (HeadRole(r) == HeadRole::induction) {
          const float v = s.induction.empty() ? std::nanf("") : s.induction[size_t(l)][size_t(h)];
          const bool have = !std::isnan(v);
          n[name] = have ? 1 : 0;
          mean[name] = number_or_null(v);
          sd[name] = nullptr;
          mn[name] = number_or_null(v);
          mx[name] = number_or_null(v);
          m2[name] = have ? ojson(0.0) : ojson(nullptr);
          continue;
        }
        const RunningStat& st = s.stats[size_t(l)][size_t(h)][size_t(r)];
        n[name] = st.n;
        mean[name] = st.n > 0 ? ojson(st.mean) : ojson(nullptr);
        sd[name] = number_or_null(st.std_dev());
        mn[name] = st.n > 0 ? ojson(st.min) : ojson(nullptr);
        mx[name] = st.n > 0 ? ojson(st.max) : ojson(nullptr);
        m2[name] = st.n > 0 ? ojson(st.m2) : ojson(nullptr);
      }
      const std::string label = s.label(l, h);
      ojson line = {{"layer", l}, {"head", h}, {"label", label.empty() ? ojson(nullptr) : ojson(label)},
                   {"n", n},     {"mean", mean}, {"std", sd}, {"min", mn}, {"max", mx}, {"m2", m2}};
      out << line.dump() << '\n';
    }
  }
}

// The header's "chance": {"n": {role: [layer]}, "mean": {role: [layer]}} into s.chance.
template <typename Count, typename Real, typename Fail>
void read_corpus_chance(const json& c, CorpusRoleStats& s, const Count& count, const Real& real, const Fail& fail) {
  s.chance.assign(size_t(s.n_layers), {});
  for (int r = 0; r < kHeadRoleCount; ++r) {
    const std::string name = head_role_name(HeadRole(r));
    const json& n = c.at("n").at(name);
    const json& mean = c.at("mean").at(name);
    if (!n.is_array() || !mean.is_array() || int(n.size()) != s.n_layers || int(mean.size()) != s.n_layers)
      fail("chance." + name + " does not hold one entry per layer");
    for (int l = 0; l < s.n_layers; ++l) {
      RunningStat& st = s.chance[size_t(l)][size_t(r)];
      st.n = count(n[size_t(l)], "chance.n (at most lines.scored)", s.lines.scored);
      st.mean = st.n > 0 ? real(mean[size_t(l)], "chance.mean") : 0.0;
      if (std::isnan(st.mean)) fail("chance.mean is null where chance.n > 0");
    }
  }
}

// Far above any model (GPT-3: 96 x 96 heads), far below what would exhaust memory (48 doubles a head).
constexpr int64_t kMaxHeadLines = 1 << 17;

CorpusRoleStats read_corpus_stats(std::istream& in, const std::string& where) {
  CorpusRoleStats s;
  std::string text;
  int64_t number = 0;
  const auto fail = [&](const std::string& what) -> void {
    throw FormatError(where + ": line " + std::to_string(number) + ": " + what +
                      " (expected the JSON lines of headscope-cli heads --corpus; docs/head-roles-corpus.md)");
  };
  const auto integer = [&](const json& v, const char* what) -> int64_t {
    if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(std::string(what) + " is not a whole number");
    return v.get<int64_t>();
  };
  // A count: 0 to kMaxCorpusCount, and at most `most` (what it counts a part of).
  const auto count = [&](const json& v, const char* what, int64_t most = kMaxCorpusCount) -> int64_t {
    const int64_t x = integer(v, what);
    if (x > most) fail(std::string(what) + " is " + std::to_string(x) + "; expected 0 to " + std::to_string(most));
    return x;
  };
  const auto bounded = [&](const json& v, int64_t lo, int64_t hi, const char* what) -> int64_t {
    const int64_t x = integer(v, what);
    if (x < lo || x > hi) fail(std::string(what) + " is " + std::to_string(x) + "; expected " + std::to_string(lo) + " to " + std::to_string(hi));
    return x;
  };
  const auto real = [&](const json& v, const char* what) -> double {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(std::string(what) + " is not a number");
    return v.get<double>();
  };
  bool header_seen = false;
  int64_t heads_read = 0;
  try {
    while (std::getline(in, text)) {
      ++number;
      if (text.empty()) continue;
      const json j = parse_json_strict(text, where + ": line " + std::to_string(number));
      if (!j.is_object()) fail("not a JSON object");
      if (!header_seen) {
        header_seen = true;
        if (j.value("format", std::string()) != "headscope head roles corpus") fail("no \"format\": \"headscope head roles corpus\" header");
        if (j.value("version", 0) != 1) fail("version " + json_excerpt(j.value("version", json())) + " is not 1");
        if (j.at("roles") != role_names()) fail("the roles are not " + role_names().dump());
        const json& m = j.at("model");
        s.model_name = m.at("name").get<std::string>();
        s.model_kind = m.at("kind").get<std::string>();
        s.n_layers = int(bounded(m.at("n_layers"), 0, 100000, "model.n_layers"));
        s.n_heads = int(bounded(m.at("n_heads"), 0, 100000, "model.n_heads"));
        if (int64_t(s.n_layers) * s.n_heads > kMaxHeadLines) fail("more than " + std::to_string(kMaxHeadLines) + " heads");
        const json& st = j.at("settings");
        s.options.local_window = int(bounded(st.at("local_window"), 1, 65536, "settings.local_window"));
        s.options.threshold = float(real(st.at("threshold"), "settings.threshold"));
        if (st.contains("chance_margin")) s.options.chance_margin = float(real(st.at("chance_margin"), "settings.chance_margin"));
        s.options.probe_length = int(bounded(st.at("probe_length"), 0, 1 << 20, "settings.probe_length"));
        if (!st.at("probe_seed").is_number_unsigned()) fail("settings.probe_seed is not a whole number");
        s.options.probe_seed = st.at("probe_seed").get<uint64_t>();
        if (!j.at("probe").is_null()) s.probe_ids = j.at("probe").get<std::vector<int>>();
        s.corpus = j.at("corpus").at("path").get<std::string>();
        s.corpus_lines = count(j.at("corpus").at("lines"), "corpus.lines");
        s.shard_count = int(bounded(j.at("shard").at("count"), 1, 1000000000, "shard.count"));
        s.shard_indices.clear();
        for (const json& i : j.at("shard").at("indices"))
          s.shard_indices.push_back(int(bounded(i, 0, s.shard_count - 1, "shard.indices")));
        const json& c = j.at("lines");
        // Every line of the shard is scored, blank, invalid or rejected; cut lines were scored.
        CorpusLineCounts& n = s.lines;
        n.in_shard = count(c.at("in_shard"), "lines.in_shard (at most corpus.lines)", s.corpus_lines);
        n.scored = count(c.at("scored"), "lines.scored (at most lines.in_shard)", n.in_shard);
        n.blank = count(c.at("blank"), "lines.blank (with the scored, at most lines.in_shard)", n.in_shard - n.scored);
        n.invalid_utf8 = count(c.at("invalid_utf8"), "lines.invalid_utf8 (with the scored and blank, at most lines.in_shard)",
                               n.in_shard - n.scored - n.blank);
        n.rejected = count(c.at("rejected"), "lines.rejected (with the other skipped, at most lines.in_shard)",
                           n.in_shard - n.scored - n.blank - n.invalid_utf8);
        n.cut = count(c.at("cut"), "lines.cut (at most lines.scored)", n.scored);
        n.tokens = count(j.at("tokens"), "tokens");
        s.stats.assign(size_t(s.n_layers), std::vector<std::array<RunningStat, kHeadRoleCount>>(size_t(s.n_heads)));
        s.induction.assign(size_t(s.n_layers), std::vector<float>(size_t(s.n_heads), std::nanf("")));
        if (j.contains("chance")) read_corpus_chance(j.at("chance"), s, count, real, fail);
        continue;
      }
      const int64_t expected_layer = heads_read / std::max(1, s.n_heads), expected_head = heads_read % std::max(1, s.n_heads);
      if (heads_read >= int64_t(s.n_layers) * s.n_heads) fail("more head lines than the header's " + std::to_string(s.n_layers) + " x " + std::to_string(s.n_heads));
      if (integer(j.at("layer"), "layer") != expected_layer || integer(j.at("head"), "head") != expected_head) {
        fail("expected layer " + std::to_string(expected_layer) + " head " + std::to_string(expected_head) + " here");
      }
      for (int r = 0; r < kHeadRoleCount; ++r) {
        const std::string name = head_role_name(HeadRole(r));
        if (HeadRole(r) == HeadRole::induction) {
          s.induction[size_t(expected_layer)][size_t(expected_head)] = float(real(j.at("mean").at(name), "mean"));
          continue;
        }
        RunningStat& st = s.stats[size_t(expected_layer)][size_t(expected_head)][size_t(r)];
        st.n = count(j.at("n").at(name), "n (at most lines.scored)", s.lines.scored);
        if (st.n > 0) {
          st.mean = real(j.at("mean").at(name), "mean");
          st.m2 = real(j.at("m2").at(name), "m2");
          st.min = real(j.at("min").at(name), "min");
          st.max = real(j.at("max").at(name), "max");
          if (std::isnan(st.mean) || std::isnan(st.m2) || std::isnan(st.min) || std::isnan(st.max))
            fail("a head with n > 0 has a null mean, m2, min or max");
        }
      }
      ++heads_read;
    }
  } catch (const json::exception& e) {
    fail(std::string("a field is missing or of the wrong type (") + e.what() + ")");
  }
  if (in.bad()) throw IoError("cannot read " + where);
  if (!header_seen) {
    number = 0;
    fail("empty");
  }
  if (heads_read != int64_t(s.n_layers) * s.n_heads) {
    fail(std::to_string(heads_read) + " head lines; the header says " + std::to_string(s.n_layers) + " x " +
         std::to_string(s.n_heads));
  }
  if (s.n_layers == 0) s.stats.clear(), s.induction.clear();
  return s;
}

}  // namespace hs
