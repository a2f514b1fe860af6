// The Python binding's native part, netdp._netdp (docs/python.md): a generic layer over the model registry
// (docs/design_models.md), like the CLI and the study runner. It describes every model of jobs::models() and
// runs any of them by name with JSON values (Values::from_json_object), so a model added to the registry is
// reachable from Python without touching this file. The Python package (python/netdp/) turns Python objects
// into those values and the results directory into NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/memory_graphs.hpp"
#include "netdp/core/version.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/study/model_catalog.hpp"
#include "netdp/study/study_file.hpp"
#include "netdp/study/study_runner.hpp"

namespace py = pybind11;
using json = nlohmann::json;

namespace netdp::python {

void bind_accountant(py::module_& m);  // src/python/accountant.cpp

namespace {

const char* type_name(jobs::ParameterType type) {
  switch (type) {
    case jobs::ParameterType::flag:
      return "flag";
    case jobs::ParameterType::integer:
      return "integer";
    case jobs::ParameterType::natural:
      return "natural";
    case jobs::ParameterType::real:
      return "real";
    case jobs::ParameterType::text:
      return "text";
    case jobs::ParameterType::choice:
      return "choice";
    case jobs::ParameterType::count_or_auto:
      return "count_or_auto";
    case jobs::ParameterType::reals:
      return "reals";
  }
  return "text";
}

const char* role_name(jobs::ParameterRole role) {
  switch (role) {
    case jobs::ParameterRole::value:
      return "value";
    case jobs::ParameterRole::out_dir:
      return "out_dir";
    case jobs::ParameterRole::quiet:
      return "quiet";
    case jobs::ParameterRole::device:
      return "device";
    case jobs::ParameterRole::threads:
      return "threads";
  }
  return "value";
}

json range_json(const jobs::Range& r) {
  if (r.empty()) return nullptr;
  json out = json::object();
  if (r.min) out["min"] = *r.min;
  if (r.max) out["max"] = *r.max;
  out["min_exclusive"] = r.min_exclusive;
  out["max_exclusive"] = r.max_exclusive;
  return out;
}

/// Every model's description as JSON text (the Python package builds one function per model from it).
std::string describe_models() {
  json list = json::array();
  for (const jobs::Model& m : jobs::models()) {
    json parameters = json::array();
    for (const jobs::Parameter& p : m.parameters)
      parameters.push_back({{"name", p.name},
                            {"type", type_name(p.type)},
                            {"help", p.help},
                            {"default", p.default_value ? json(*p.default_value) : json(nullptr)},
                            {"required", p.required},
                            {"choices", p.choices},
                            {"range", range_json(p.range)},
                            {"unit", p.unit},
                            {"items", p.items},
                            {"excludes", p.excludes},
                            {"role", role_name(p.role)}});
    list.push_back({{"name", m.name},
                    {"help", m.help},
                    {"footer", m.footer},
                    {"study_model", m.study_model},
                    {"parameters", parameters}});
  }
  return list.dump();
}

const jobs::Model& model_named(const std::string& name) {
  const jobs::Model* model = jobs::find_model(name);
  if (!model) throw InvalidInput("unknown model '" + name + "'");
  return *model;
}

/// Checks a model's values without running it (Model::check).
void check_model(const std::string& name, const std::string& values) {
  const jobs::Model& model = model_named(name);
  model.check(jobs::Values::from_json_object(model, json::parse(values)));
}

/// The progress of one run as its loops report it (core/progress.hpp): the furthest fraction of each stage,
/// in the order the stages began. Written by the run's threads, read by the waiting Python thread.
class StageProgress : public ProgressSink {
 public:
  void report(const std::string& stage, double fraction) override {
    std::lock_guard lock(mutex_);
    for (auto& [name, done] : stages_)
      if (name == stage) {
        done = std::max(done, fraction);  // updates from several threads may arrive out of order
        return;
      }
    stages_.emplace_back(stage, fraction);
  }
  std::vector<std::pair<std::string, double>> snapshot() {
    std::lock_guard lock(mutex_);
    return stages_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::string, double>> stages_;
};

/// Counts the watched runs going on in this process: the first to start, and the last to end, clears the stop
/// request (one left by an interrupted run or study must not stop the next run; one set while other runs go
/// on must reach them all).
class WatchedRun {
 public:
  WatchedRun() {
    std::lock_guard lock(mutex_);
    if (count_++ == 0) clear_stop();
  }
  ~WatchedRun() {
    std::lock_guard lock(mutex_);
    if (--count_ == 0) clear_stop();
  }
  WatchedRun(const WatchedRun&) = delete;
  WatchedRun& operator=(const WatchedRun&) = delete;

 private:
  static inline std::mutex mutex_;
  static inline int count_ = 0;
};

/// Runs `work` on a worker thread while this thread, the caller's, waits with the GIL released, waking every
/// 50 ms to pass new progress to `progress` (None, or a callable(stage, fraction)) and to check for signals
/// (PyErr_CheckSignals: SIGINT raises KeyboardInterrupt on the main thread, whatever Python handler is
/// installed). A Python error there, KeyboardInterrupt included, sets core's stop request (the one `netdp
/// run` sets on SIGINT); with `stoppable`, the run's loops see it and end with RunStopped within about a
/// second. Once the worker has ended, the Python error is raised, else the worker's C++ error, else `work`
/// returned.
template <class Work>
void run_watched(Work&& work, const py::object& progress, bool stoppable) {
  const WatchedRun watched;
  StageProgress stages;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::thread worker([&] {
    try {
      if (stoppable) {
        const ProgressSinkScope scope(stages);
        work();
      } else {
        work();
      }
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    ended.notify_all();
  });
  std::vector<std::pair<std::string, double>> shown;
  std::optional<py::error_already_set> python_error;
  for (bool finished = false; !finished;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished = ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
    }
    try {
      if (!python_error && !progress.is_none()) {
        const auto now = stages.snapshot();
        for (std::size_t i = 0; i < now.size(); ++i)
          if (i >= shown.size() || now[i].second != shown[i].second) progress(now[i].first, now[i].second);
        shown = now;
      }
      if (!python_error && PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (py::error_already_set& e) {
      python_error.emplace(std::move(e));
      request_stop(SIGINT);
    }
  }
  worker.join();
  if (python_error) throw std::move(*python_error);
  if (failure) std::rethrow_exception(failure);
}

/// Runs a model into out_dir (the same Model::run as the CLI's) and returns its summary as JSON text. The run
/// goes on with the GIL released (other Python threads, including other runs, go on meanwhile); see
/// run_watched for progress and Ctrl-C.
std::string run_model(const std::string& name, const std::string& values, const std::string& out_dir,
                      bool quiet, const std::string& invocation, const py::object& progress) {
  const jobs::Model& model = model_named(name);
  jobs::Values parsed = jobs::Values::from_json_object(model, json::parse(values));
  jobs::RunContext context;
  context.out_dir = out_dir;
  context.quiet = quiet;
  context.invocation = json::parse(invocation);
  json summary;
  run_watched([&] { summary = model.run(std::move(parsed), context); }, progress, true);
  return summary.dump();  // as summary.json holds it: non-finite numbers become null
}

std::string report_model(const std::string& name, const std::string& summary, const std::string& out_dir) {
  jobs::RunContext context;
  context.out_dir = out_dir;
  return model_named(name).report(json::parse(summary), context);
}

std::pair<double, double> estimate_model(const std::string& name, const std::string& values) {
  const jobs::Model& model = model_named(name);
  const jobs::Estimate e = model.estimate(jobs::Values::from_json_object(model, json::parse(values)));
  return {e.bytes, e.seconds};
}

/// `netdp run` in-process: the study text (TOML) as the study library reads it; returns run_study's exit
/// code.
int run_study(const std::string& text, const std::string& source, const std::string& out, int workers,
              const std::string& devices, bool quiet, bool update, bool dry_run,
              const std::string& invocation) {
  const study::ModelCatalog& catalog = study::registry_catalog();
  const study::StudySpec spec = study::parse_study(text, source, catalog);
  study::RunOptions options;
  options.out = out;
  options.workers = workers;
  options.devices = devices;
  options.quiet = quiet;
  options.update = update;
  options.dry_run = dry_run;
  options.invocation = json::parse(invocation);
  // Not stoppable mid-unit: a stop request (Ctrl-C) ends the study between units, as `netdp run`'s does.
  int code = 0;
  run_watched([&] { code = study::run_study(spec, catalog, options); }, py::none(), false);
  if (code == 128 + SIGINT) throw RunStopped(SIGINT);  // the study's own SIGINT handler caught it
  return code;
}

// Graphs and W handed over in memory (docs/python.md "Graphs and weights"): NumPy arrays through the buffer
// protocol (no copy when they are already contiguous of this type), one copy into netdp's CSR, the GIL
// released meanwhile; registered until unregister_object (python/netdp/_graphs.py calls it in a finally).
template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

template <class T>
std::span<const T> span_of(const Array<T>& a, const char* name) {
  if (a.ndim() != 1) throw InvalidInput(std::string(name) + ": expected a 1-D array");
  return {a.data(), static_cast<std::size_t>(a.size())};
}

std::int64_t register_graph(std::int64_t n, const Array<std::int64_t>& rows,
                            const Array<std::int64_t>& cols) {
  const auto r = span_of(rows, "rows"), c = span_of(cols, "cols");
  py::gil_scoped_release release;
  return register_memory_graph(graph_from_index_arrays(n, r, c));
}

std::int64_t register_weights(std::int64_t n, const Array<std::int64_t>& rows,
                              const Array<std::int64_t>& cols, const Array<double>& values) {
  const auto r = span_of(rows, "rows"), c = span_of(cols, "cols");
  const auto v = span_of(values, "values");
  py::gil_scoped_release release;
  return register_memory_weights(matrix_from_index_arrays(n, r, c, v));
}

/// A message with every quoted value ('...') longer than 200 characters cut to its first 200 and "...": a
/// graph spec, a path or a list may be any length, and Python shows a message whole (docs/python.md
/// "Errors").
std::string cut_quoted(const std::string& message) {
  constexpr std::size_t limit = 200;
  std::string out;
  std::size_t at = 0;
  for (std::size_t open = message.find('\''); open != std::string::npos; open = message.find('\'', at)) {
    const std::size_t close = message.find('\'', open + 1);
    if (close == std::string::npos) break;
    const std::size_t length = close - open - 1;
    out.append(message, at, open + 1 - at);
    out.append(message, open + 1, std::min(length, limit));
    if (length > limit) out += "...";
    out += '\'';
    at = close + 1;
  }
  return out.append(message, at, std::string::npos);
}

/// netdp's errors as Python exceptions (docs/python.md "Errors"): InvalidParameter (a ValueError with the
/// parameter's name), DeviceUnavailable (an InvalidParameter of device), other bad input ValueError; anything
/// else keeps pybind11's mapping (RuntimeError, MemoryError for std::bad_alloc).
void register_errors(py::module_& m) {
  static py::exception<InvalidParameter> invalid_parameter(m, "InvalidParameter", PyExc_ValueError);
  static py::exception<DeviceUnavailable> device_unavailable(m, "DeviceUnavailable", invalid_parameter.ptr());
  py::register_exception_translator([](std::exception_ptr error) {
    const auto raise = [](py::handle type, const InvalidParameter& e) {
      py::object instance = py::reinterpret_borrow<py::object>(type)(cut_quoted(e.what()));
      instance.attr("parameter") = e.parameter();
      PyErr_SetObject(type.ptr(), instance.ptr());
    };
    try {
      if (error) std::rethrow_exception(error);
    } catch (const DeviceUnavailable& e) {
      raise(device_unavailable, e);
    } catch (const InvalidParameter& e) {
      raise(invalid_parameter, e);
    } catch (const InvalidInput& e) {
      PyErr_SetString(PyExc_ValueError, cut_quoted(e.what()).c_str());
    } catch (const json::parse_error& e) {
      PyErr_SetString(PyExc_ValueError, cut_quoted(e.what()).c_str());
    } catch (const RunStopped&) {  // another run's Ctrl-C stopped this one too (the request is process-wide)
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
}

}  // namespace

}  // namespace netdp::python

PYBIND11_MODULE(_netdp, m) {
  using namespace netdp::python;
  m.doc() = "netdp's native part: the model registry and the study runner (use the netdp package)";
  register_errors(m);
  m.def("version", [] { return std::string(netdp::version()) + " (" + netdp::git_commit() + ")"; });
  m.def("describe_models", &describe_models, "every model of the registry, as JSON text");
  m.def("check_model", &check_model, py::arg("name"), py::arg("values"));
  m.def("run_model", &run_model, py::arg("name"), py::arg("values"), py::arg("out_dir"), py::arg("quiet"),
        py::arg("invocation"), py::arg("progress") = py::none());
  m.def("report_model", &report_model, py::arg("name"), py::arg("summary"), py::arg("out_dir"));
  m.def("estimate_model", &estimate_model, py::arg("name"), py::arg("values"));
  m.def("register_graph", &register_graph, py::arg("n"), py::arg("rows"), py::arg("cols"),
        "registers the graph of the entries (rows[k], cols[k]); returns K of memory:id=K");
  m.def("register_weights", &register_weights, py::arg("n"), py::arg("rows"), py::arg("cols"),
        py::arg("values"), "registers the n x n matrix of these entries; returns K of memory:id=K");
  m.def("unregister_object", &netdp::unregister_memory_object, py::arg("id"));
  m.def("memory_object_count", &netdp::memory_object_count);
  m.def("run_study", &run_study, py::arg("text"), py::arg("source"), py::arg("out"), py::arg("workers"),
        py::arg("devices"), py::arg("quiet"), py::arg("update"), py::arg("dry_run"), py::arg("invocation"));
  bind_accountant(m);
}
