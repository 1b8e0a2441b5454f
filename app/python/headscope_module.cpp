// headscope._core: core's engine for Python (docs/python.md). Another front end beside the CLI and
// the app: it takes the same ModelRequest, runs the same analyse() / answer_ablation() /
// contrast_runs(), and hands out what `headscope-cli maps / heads / ablate / compare --json`
// write: maps as NumPy arrays, the other answers as the CLI's JSON text (core/export writes both),
// which the package's Python side parses. Long calls run without the GIL and stop on Ctrl+C
// (interruptible.h); headscope's errors become the package's exception types.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/python/interruptible.h"
#include "core/analysis/ablation_question.h"
#include "core/analysis/contrast.h"
#include "core/analysis/head_list.h"
#include "core/analysis/pair_target.h"
#include "core/analysis/run_analysis.h"
#include "core/export/ablation_json.h"
#include "core/export/contrast_json.h"
#include "core/export/maps_json.h"
#include "core/model/checkpoint_cache.h"
#include "core/model/model_request.h"
#include "core/model/shipped_models.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/runtime_config.h"

namespace py = pybind11;

namespace hs::python {
namespace {

// The package's exception types (set from Python by _set_error_types; until then Python's own).
struct PythonErrorTypes {
  py::object input, format, io;
};
PythonErrorTypes& python_error_types() {
  static PythonErrorTypes* types = new PythonErrorTypes();  // never destroyed: outlives the interpreter's objects
  return *types;
}

void raise_python_error(const py::object& type, PyObject* fallback, const char* message) {
  PyErr_SetString(type ? type.ptr() : fallback, message);
}

void translate_headscope_errors(std::exception_ptr error) {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const InputError& e) {
    raise_python_error(python_error_types().input, PyExc_ValueError, e.what());
  } catch (const FormatError& e) {
    raise_python_error(python_error_types().format, PyExc_ValueError, e.what());
  } catch (const IoError& e) {
    raise_python_error(python_error_types().io, PyExc_OSError, e.what());
  } catch (const Error& e) {
    raise_python_error(python_error_types().input, PyExc_ValueError, e.what());
  }
}

constexpr int kMaxPythonThreads = 4096;  // as headscope-cli --threads

// None: every core; else 1 .. 4096, as --threads.
int checked_threads(const std::optional<int>& threads) {
  if (!threads) return 0;
  if (*threads < 1 || *threads > kMaxPythonThreads) {
    throw InputError("threads (" + std::to_string(*threads) + ") must be a whole number from 1 to " +
                     std::to_string(kMaxPythonThreads) + ", or None for every core");
  }
  return *threads;
}

// A loaded checkpoint: the request naming it and the cache that keeps it open between calls.
struct PyModelState {
  ModelRequest base;  // model_path and tokenizer; no input
  std::shared_ptr<CheckpointCache> cache = std::make_shared<CheckpointCache>();
  int threads = 0;  // the default for every call (0: every core)
};

// The request for one input: text (the model's tokenizer) or token ids.
ModelRequest input_request(const PyModelState& m, const std::optional<std::string>& text, const std::optional<std::vector<int>>& ids) {
  if (text && ids) throw InputError("give either a text or ids=[...], not both");
  if (!text && !ids) throw InputError("no input: give a text, e.g. run(\"Lily saw a dog.\"), or ids=[1, 365, 1217]");
  ModelRequest r = m.base;
  if (text) {
    if (text->empty()) throw InputError("the text is empty: give at least one word");
    r.sentence = *text;
  } else {
    if (ids->empty()) throw InputError("ids is empty: give at least one token id");
    for (const int id : *ids)
      if (id < 0) throw InputError("ids: " + std::to_string(id) + " is not a token id; give whole numbers 0 or more");
    r.input_ids = *ids;
  }
  return r;
}

// The options of `headscope-cli maps --json`, without the numbers only its JSON holds (roles and
// rollout: Result.roles() computes the roles as `heads` does); whole maps, as the array needs them.
AnalysisOptions maps_options(const PyModelState& m, int threads) {
  AnalysisOptions o;
  o.threads = threads ? threads : m.threads;
  o.checkpoints = m.cache.get();
  o.maps = MapMode::whole;
  o.spectrum = false;
  o.reach = false;
  o.roles = false;
  o.rollout = false;
  return o;
}

// analyse() off the GIL. The work holds `model` (whose cache the options point to): after Ctrl+C it
// may outlive the Python objects.
std::shared_ptr<const RunAnalysis> analyse_interruptible(const ModelRequest& request, const AnalysisOptions& options,
                                                        const std::shared_ptr<PyModelState>& model) {
  auto out = std::make_shared<std::shared_ptr<const RunAnalysis>>();
  run_interruptible([request, options, model, out](const std::atomic<bool>&) {
    (void)model;  // kept alive
    *out = analyse(request, options);
  });
  return *out;
}

class PyModel {
 public:
  PyModel(const std::string& model, const std::string& tokenizer, const std::optional<int>& threads) {
    state_ = std::make_shared<PyModelState>();
    state_->threads = checked_threads(threads);
    if (model.empty()) throw InputError("the model is empty: give a shipped model's name (stories260K, teaching) or a path");
    state_->base.model_path = model;
    state_->base.tokenizer = tokenizer;
    load_now();
  }

  const std::string& name() const { return name_; }
  py::dict config() const { return config_; }
  std::shared_ptr<PyModelState> state() const { return state_; }

  std::string ablate_json(const std::optional<std::string>& text, const std::optional<std::vector<int>>& ids,
                          const py::object& knock_out, const std::optional<std::string>& target,
                          const std::optional<int>& target_position, const std::string& mode,
                          const std::optional<std::string>& reference, const std::optional<int>& threads) const;

 private:
  // Reads the checkpoint once, now, so a wrong path or a broken file fails here: a run on one word
  // through the model's cache (the cache keeps the checkpoint for the calls to come).
  void load_now();

  std::shared_ptr<PyModelState> state_;
  std::string name_;
  py::dict config_;
};

py::dict config_dict(const ModelInfo& info) {
  py::dict d;
  d["name"] = info.name;
  d["kind"] = info.kind;
  d["family"] = info.family;
  d["d_model"] = info.d_model;
  d["n_heads"] = info.n_heads;
  d["n_kv_heads"] = info.n_kv_heads;
  d["d_head"] = info.d_head;
  d["n_layers"] = info.n_layers;
  d["causal"] = info.causal;
  d["vocab_size"] = info.vocab_size;
  d["param_count"] = info.param_count;
  d["total_params"] = info.total_params;
  return d;
}

void PyModel::load_now() {
  ModelRequest r = state_->base;
  r.sentence = "a";
  const std::shared_ptr<const RunAnalysis> a = analyse_interruptible(r, maps_options(*state_, 0), state_);
  name_ = a->run.info.name;
  config_ = config_dict(a->run.info);
}

// One run: its tokens, maps (NumPy views or one [L, H, T, T] array) and the roles on request.
class PyResult {
 public:
  PyResult(std::shared_ptr<PyModelState> model, std::shared_ptr<const RunAnalysis> analysis)
      : model_(std::move(model)), analysis_(std::move(analysis)) {}

  const std::vector<std::string>& tokens() const { return analysis_->run.tokens; }
  const std::vector<int>& token_ids() const { return analysis_->run.token_ids; }
  const std::vector<std::string>& next_tokens() const { return analysis_->run.next_tokens; }
  py::dict config() const { return config_dict(analysis_->run.info); }
  int n_layers() const { return int(analysis_->run.attention.size()); }
  int n_heads() const { return n_layers() ? int(analysis_->run.attention[0].size()) : 0; }
  int n_tokens() const { return analysis_->run.n_tokens(); }

  // [L, H, T, T] float32, read-only: the engine keeps each head's map in its own buffer, so this
  // is one copy into one array, made on first use and kept.
  py::array attention() {
    if (attention_) return *attention_;
    const int64_t L = n_layers(), H = n_heads(), T = n_tokens();
    py::array_t<float> out({L, H, T, T});
    float* dst = out.mutable_data();
    for (int64_t l = 0; l < L; ++l)
      for (int64_t h = 0; h < H; ++h) {
        const Map& m = analysis_->run.attention[size_t(l)][size_t(h)];
        std::copy(m.data(), m.data() + T * T, dst + (l * H + h) * T * T);
      }
    py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    attention_ = out;
    return out;
  }

  // One head's map [T, T] without a copy: a read-only view of the engine's buffer, which the
  // array keeps alive.
  py::array head_map(int layer, int head) const {
    if (layer < 0 || layer >= n_layers()) {
      throw InputError("layer " + std::to_string(layer) + " does not exist: the model has layers 0 to " + std::to_string(n_layers() - 1));
    }
    if (head < 0 || head >= n_heads()) {
      throw InputError("head " + std::to_string(head) + " does not exist: the model has heads 0 to " + std::to_string(n_heads() - 1));
    }
    const Map& m = analysis_->run.attention[size_t(layer)][size_t(head)];
    auto* keep = new std::shared_ptr<const RunAnalysis>(analysis_);
    py::capsule owner(keep, [](void* p) { delete static_cast<std::shared_ptr<const RunAnalysis>*>(p); });
    const py::ssize_t T = m.rows();
    py::array view(py::dtype::of<float>(), {T, T}, {py::ssize_t(sizeof(float)) * T, py::ssize_t(sizeof(float))}, m.data(), owner);
    py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return view;
  }

  // [L, H, H]: mean over all T x T cells of |A_a - A_b| (maps --json "head_difference").
  py::array head_difference() const {
    const int64_t L = n_layers(), H = n_heads();
    py::array_t<float> out({L, H, H});
    float* dst = out.mutable_data();
    for (int64_t l = 0; l < L; ++l) {
      const Map& d = analysis_->difference[size_t(l)];
      std::copy(d.data(), d.data() + H * H, dst + l * H * H);
    }
    return out;
  }

  // `headscope-cli heads --json` on this run's input: the analysis again with heads' options.
  std::string roles_json(int local_window, float threshold, float chance_margin, int probe_seeds, uint64_t probe_seed,
                         const std::optional<int>& threads) const {
    if (local_window < 1 || local_window > 65536) {
      throw InputError("local_window (" + std::to_string(local_window) + ") must be from 1 to 65536 keys");
    }
    if (!(threshold >= 0 && threshold <= 1)) throw InputError("threshold (" + std::to_string(threshold) + ") must be from 0 to 1");
    if (!(chance_margin >= 0 && chance_margin <= 1)) {
      throw InputError("chance_margin (" + std::to_string(chance_margin) + ") must be from 0 to 1");
    }
    if (probe_seeds < 1 || probe_seeds > 100) throw InputError("probe_seeds (" + std::to_string(probe_seeds) + ") must be from 1 to 100");
    AnalysisOptions o;
    o.threads = checked_threads(threads);
    if (!o.threads) o.threads = model_->threads;
    o.checkpoints = model_->cache.get();
    o.spectrum = false;
    o.role_options.local_window = local_window;
    o.role_options.threshold = threshold;
    o.role_options.chance_margin = chance_margin;
    o.role_options.probe_seeds = probe_seeds;
    o.role_options.probe_seed = probe_seed;
    const std::shared_ptr<const RunAnalysis> a = analyse_interruptible(analysis_->request, o, model_);
    std::ostringstream out;
    write_head_roles_json(out, a->roles);
    return out.str();
  }

  std::shared_ptr<const RunAnalysis> analysis() const { return analysis_; }

 private:
  std::shared_ptr<PyModelState> model_;
  std::shared_ptr<const RunAnalysis> analysis_;
  std::optional<py::array> attention_;
};

PyResult run_model(const PyModel& model, const std::optional<std::string>& text, const std::optional<std::vector<int>>& ids,
                   const std::optional<int>& threads) {
  const std::shared_ptr<PyModelState> m = model.state();
  const ModelRequest request = input_request(*m, text, ids);
  return PyResult(m, analyse_interruptible(request, maps_options(*m, checked_threads(threads)), m));
}

// knock_out: None, "1.3,2.5", or [(1, 3), (2, 5)].
std::vector<HeadRef> knock_out_heads(const py::object& knock_out) {
  std::vector<HeadRef> heads;
  if (knock_out.is_none()) return heads;
  if (py::isinstance<py::str>(knock_out)) return parse_head_list(knock_out.cast<std::string>());
  for (const py::handle item : knock_out) {
    std::vector<int> pair;
    try {
      pair = item.cast<std::vector<int>>();
    } catch (const py::cast_error&) {
      pair.clear();
    }
    if (pair.size() != 2) {
      throw InputError("knock_out: " + std::string(py::str(item)) + " is not a (layer, head) pair; give e.g. [(1, 3), (2, 5)] or \"1.3,2.5\"");
    }
    heads.push_back({pair[0], pair[1]});
  }
  if (heads.empty()) throw InputError("knock_out is empty: give at least one (layer, head) pair, or None to knock out each head alone");
  return heads;
}

std::string PyModel::ablate_json(const std::optional<std::string>& text, const std::optional<std::vector<int>>& ids,
                                 const py::object& knock_out, const std::optional<std::string>& target,
                                 const std::optional<int>& target_position, const std::string& mode,
                                 const std::optional<std::string>& reference, const std::optional<int>& threads) const {
  const ModelRequest request = input_request(*state_, text, ids);
  if (mode != "zero" && mode != "mean") throw InputError("mode '" + mode + "' is not an ablation: give \"zero\" or \"mean\"");
  AblationQuestion q;
  q.group = knock_out_heads(knock_out);
  if (target) q.target = *target;
  if (target_position) {
    if (*target_position < 0) throw InputError("target_position (" + std::to_string(*target_position) + ") must be 0 or more");
    q.target_position = *target_position;
  }
  if (reference) q.reference = *reference;
  AblationOptions options;
  options.mode = mode == "mean" ? AblationMode::mean : AblationMode::zero;
  const int t = checked_threads(threads);
  options.threads = t ? t : state_->threads;
  const std::shared_ptr<PyModelState> m = state_;
  auto out = std::make_shared<std::string>();
  run_interruptible([m, request, q, options, out](const std::atomic<bool>& stop) {
    AblationOptions o = options;
    o.progress = [&stop](int, int) { return !stop.load(); };
    o.cancelled = [&stop] { return stop.load(); };  // between layers of a pass of many heads
    const AblationAnswer a = answer_ablation(request, q, o, m->cache.get());
    std::ostringstream json;
    write_ablation_json(json, a);
    *out = json.str();
  });
  return *out;
}

// `headscope-cli compare --json`: sentence a against b, with target/versus (and patch) as the CLI.
std::string compare_json(const PyModel& model, const std::string& a, const std::string& b, const std::optional<std::string>& target,
                         const std::optional<std::string>& versus, bool patch, const std::optional<int>& threads) {
  if (a.empty()) throw InputError("sentence a is empty");
  if (b.empty()) throw InputError("the contrast sentence (b) is empty");
  if (target.has_value() != versus.has_value()) {
    throw InputError("give target and versus together (the two continuations compared, e.g. \" are\" and \" is\")");
  }
  if (patch && !target) throw InputError("patch measures how much of the logit difference each head carries: give target and versus");
  const std::shared_ptr<PyModelState> m = model.state();
  ModelRequest ra = m->base, rb = m->base;
  ra.sentence = a;
  rb.sentence = b;
  AnalysisOptions options;
  options.spectrum = false;
  options.roles = false;
  options.maps = MapMode::automatic;
  const int t = checked_threads(threads);
  options.threads = t ? t : m->threads;
  options.checkpoints = m->cache.get();
  std::optional<PairQuestion> question;
  if (target) question = PairQuestion{*target, *versus, patch};
  auto out = std::make_shared<std::string>();
  run_interruptible([m, ra, rb, options, question, out](const std::atomic<bool>& stop) {
    const std::shared_ptr<const RunAnalysis> ea = analyse(ra, options);
    const std::shared_ptr<const RunAnalysis> eb = analyse(rb, options);
    const ContrastResult contrast = contrast_runs(ea->run, eb->run);
    std::optional<PairAnswer> answer;
    if (question) {
      PatchingOptions patching;
      patching.threads = options.threads;
      patching.progress = [&stop](int, int) { return !stop.load(); };
      answer = answer_pair(*ea, *eb, contrast, *question, patching, m->cache.get());
    }
    std::ostringstream json;
    write_contrast_json(json, *ea, *eb, contrast, answer ? &*answer : nullptr);
    *out = json.str();
  });
  return *out;
}

// The folders searched for the shipped models (core/util/runtime_config.h), replaced whole.
void set_model_dirs(const std::vector<std::string>& dirs) {
  RuntimeConfig c = runtime_config();
  c.model_dirs = dirs;
  set_runtime_config(std::move(c));
}

// A long call for the interruption test: sleeps `seconds` in steps of 10 ms, ending early on stop.
void test_sleep(double seconds) {
  run_interruptible([seconds](const std::atomic<bool>& stop) {
    for (double t = 0; t < seconds && !stop.load(); t += 0.01) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
}

}  // namespace

void define_module(py::module_& m) {
  py::register_exception_translator(translate_headscope_errors);
  m.def("_set_error_types", [](py::object input, py::object format, py::object io) {
    python_error_types() = PythonErrorTypes{std::move(input), std::move(format), std::move(io)};
  });
  m.def("_set_model_dirs", &set_model_dirs);
  m.def("_model_dirs", [] { return runtime_config().model_dirs; });
  m.def("_abandoned_work", &abandoned_work);
  m.def("_wait_for_abandoned_work", &wait_for_abandoned_work);
  m.def("_test_sleep", &test_sleep, py::arg("seconds"));
  m.def("_write_file_atomic", [](const std::string& path, const py::bytes& data) { write_file_atomic(path, std::string(data)); },
        py::arg("path"), py::arg("data"));
  m.attr("version") = HEADSCOPE_VERSION;

  py::class_<PyModel>(m, "Model")
      .def(py::init<const std::string&, const std::string&, const std::optional<int>&>(), py::arg("model"),
           py::arg("tokenizer") = "", py::arg("threads") = py::none())
      .def_property_readonly("name", &PyModel::name)
      .def_property_readonly("config", &PyModel::config)
      .def("run", &run_model, py::arg("text") = py::none(), py::kw_only(), py::arg("ids") = py::none(),
           py::arg("threads") = py::none())
      .def("_ablate_json", &PyModel::ablate_json, py::arg("text"), py::arg("ids"), py::arg("knock_out"), py::arg("target"),
           py::arg("target_position"), py::arg("mode"), py::arg("reference"), py::arg("threads"));

  py::class_<PyResult>(m, "Result")
      .def_property_readonly("tokens", &PyResult::tokens)
      .def_property_readonly("token_ids", &PyResult::token_ids)
      .def_property_readonly("next_tokens", &PyResult::next_tokens)
      .def_property_readonly("config", &PyResult::config)
      .def_property_readonly("attention", &PyResult::attention)
      .def_property_readonly("head_difference", &PyResult::head_difference)
      .def("map", &PyResult::head_map, py::arg("layer"), py::arg("head"))
      .def("_roles_json", &PyResult::roles_json, py::arg("local_window"), py::arg("threshold"), py::arg("chance_margin"),
           py::arg("probe_seeds"), py::arg("probe_seed"), py::arg("threads"));

  m.def("_compare_json", &compare_json, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("target"), py::arg("versus"),
        py::arg("patch"), py::arg("threads"));
}

}  // namespace hs::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "headscope's engine (the package headscope wraps it; docs/python.md)";
  hs::python::define_module(m);
}
