// The Python binding's native part, netdp._netdp (docs/python.md): a generic layer over the model registry
// (docs/design_models.md), like the CLI and the study runner. It describes every model of jobs::models() and
// runs any of them by name with JSON values (Values::from_json_object), so a model added to the registry is
// reachable from Python without touching this file. The Python package (python/netdp/) turns Python objects
// into those values and the results directory into NumPy arrays.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <string>
#include <utility>

#include "netdp/core/error.hpp"
#include "netdp/core/version.hpp"
#include "netdp/jobs/model.hpp"
#include "netdp/study/model_catalog.hpp"
#include "netdp/study/study_file.hpp"
#include "netdp/study/study_runner.hpp"

namespace py = pybind11;
using json = nlohmann::json;

namespace netdp::python {

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

/// Runs a model into out_dir (the same Model::run as the CLI's) and returns its summary as JSON text. The GIL
/// is released for the run: other Python threads, including other runs, go on meanwhile.
std::string run_model(const std::string& name, const std::string& values, const std::string& out_dir,
                      bool quiet, const std::string& invocation) {
  const jobs::Model& model = model_named(name);
  jobs::Values parsed = jobs::Values::from_json_object(model, json::parse(values));
  jobs::RunContext context;
  context.out_dir = out_dir;
  context.quiet = quiet;
  context.invocation = json::parse(invocation);
  json summary;
  {
    py::gil_scoped_release release;
    summary = model.run(std::move(parsed), context);
  }
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
  py::gil_scoped_release release;
  return study::run_study(spec, catalog, options);
}

/// netdp's errors as Python exceptions (docs/python.md "Errors"): InvalidParameter (a ValueError with the
/// parameter's name), DeviceUnavailable (an InvalidParameter of device), other bad input ValueError; anything
/// else keeps pybind11's mapping (RuntimeError, MemoryError for std::bad_alloc).
void register_errors(py::module_& m) {
  static py::exception<InvalidParameter> invalid_parameter(m, "InvalidParameter", PyExc_ValueError);
  static py::exception<DeviceUnavailable> device_unavailable(m, "DeviceUnavailable", invalid_parameter.ptr());
  py::register_exception_translator([](std::exception_ptr error) {
    const auto raise = [](py::handle type, const InvalidParameter& e) {
      py::object instance = py::reinterpret_borrow<py::object>(type)(e.what());
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
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const json::parse_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
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
        py::arg("invocation"));
  m.def("report_model", &report_model, py::arg("name"), py::arg("summary"), py::arg("out_dir"));
  m.def("estimate_model", &estimate_model, py::arg("name"), py::arg("values"));
  m.def("run_study", &run_study, py::arg("text"), py::arg("source"), py::arg("out"), py::arg("workers"),
        py::arg("devices"), py::arg("quiet"), py::arg("update"), py::arg("dry_run"), py::arg("invocation"));
}
