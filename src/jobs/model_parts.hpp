#pragma once
// What the registry's entries share (docs/design_models.md): a short way to declare parameters, the parameter
// blocks several models have (graph and weights, the pairwise-loss options, output and execution), their
// conversions, and the graph sizes the estimates start from.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netdp/core/device.hpp"
#include "netdp/core/graph.hpp"
#include "netdp/jobs/model.hpp"

namespace netdp::jobs {

namespace declare {

/// A parameter under construction: `real("alpha", "Renyi order").fallback("2").range(above(1))`.
class Declare {
 public:
  Declare(std::string name, ParameterType type, std::string help);
  Declare& fallback(std::string value);  // the default, as text
  Declare& required();
  Declare& choices(std::vector<std::string> values);
  Declare& range(Range range);
  Declare& unit(std::string unit);
  Declare& items(std::size_t count);
  Declare& excludes(std::string other);
  /// Given, it needs `other` on (a flag) or at one of `values` (a choice); else refused as ignored.
  Declare& needs(std::string other, std::vector<std::string> values = {}, std::string why = "");
  Declare& wide();  // an integer that lands in a std::int64_t field (else an int: at most 2^31 - 1)
  Declare& role(ParameterRole role);
  Declare& forms(std::vector<std::string> words);  // a text parameter's words and patterns: {a|b|file:PATH}
  Declare& alias(std::string old_name);            // an older spelling, still accepted
  Declare& replaced_by(std::string what);          // deprecated and hidden: what to give instead
  operator Parameter() const { return p_; }        // NOLINT: implicit, for lists of parameters

 private:
  Parameter p_;
};

Declare flag(std::string name, std::string help);
Declare integer(std::string name, std::string help);
Declare natural(std::string name, std::string help);
Declare real(std::string name, std::string help);
Declare text(std::string name, std::string help);
Declare choice(std::string name, std::string help, std::vector<std::string> choices);
Declare count_or_auto(std::string name, std::string help);
Declare reals(std::string name, std::string help);

}  // namespace declare

/// The units of the noise parameters: one parameter name keeps one unit in every command
/// (docs/design_models.md "One name, one unit"; ModelRegistry.OneNameHasOneUnit). `sigma` is always the
/// absolute noise std, a noise multiplier is `noise-multiplier` (docs/math.md §0.2).
namespace units {
inline const std::string absolute_std = "absolute std";  // in the units of the noised values
inline const std::string noise_multiplier = "std / sensitivity";
inline const std::string gradient_std = "gradient std";  // per gradient coordinate, before the step size
}  // namespace units

namespace declare {
/// noise-multiplier: a noise std over the sensitivity (units::noise_multiplier), default 1, within `range`;
/// `sigma` is its older spelling (issue 29).
Declare noise_multiplier(std::string help, Range range);
}  // namespace declare

/// A model of this name, one-line help and example (the arguments of a typical run); the caller declares
/// the rest.
Model named_model(std::string name, std::string help, std::string example);

/// Appends `more` to `list` (parameter blocks).
void append(std::vector<Parameter>& list, const std::vector<Parameter>& more);

/// graph (required) and weights (a gossip matrix W, metropolis by default).
std::vector<Parameter> graph_parameters();
/// out (required; the run's context), quiet, device (help per model) and threads.
Parameter out_parameter();
Parameter quiet_parameter();
Parameter device_parameter(const std::string& help);
Parameter threads_parameter();
Parameter memory_limit_parameter();
Parameter gap_parameter(const std::string& help);
/// observer-knows: input | input-and-noise (default), what observer v knows besides its view in the exact
/// accounting of Gaussian gossip views (docs/math.md §6.9).
declare::Declare observer_knows_parameter(const std::string& help);

/// The backend fields of every simulation's result (device, device_note, batch_runs, batches), for the
/// manifests.
template <class Result>
nlohmann::json backend_fields(const Result& r) {
  return {{"device", r.device},
          {"device_note", r.device_note},
          {"batch_runs", r.batch_runs},
          {"batches", r.batches}};
}

/// What every job takes from the run's context: the output directory, the invocation for manifest.json and,
/// for jobs that report progress, progress lines unless quiet.
template <class Job>
void set_run_context(Job& job, const RunContext& context) {
  job.out_dir = context.out_dir.string();
  if constexpr (requires { job.progress; }) job.progress = !context.quiet;
  job.invocation = context.invocation;
}

/// x, or null when not finite (JSON has no NaN).
nlohmann::json finite_or_null(double x);

/// The steps of an estimate: the number given (0: auto, a few mixing times).
double estimate_steps(double steps, double n);  // steps 0: auto

/// printf into a string (the models' report lines).
std::string format_line(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// n and m of a graph spec, generated once per spec (the implicit complete graph is never built).
struct GraphSize {
  double n = 0, m = 0;
};
GraphSize graph_size(const std::string& spec);

}  // namespace netdp::jobs
