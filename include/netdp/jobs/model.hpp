#pragma once
// The model registry (docs/design_models.md): every model netdp runs is described once, here. A description
// holds the model's name and help, its typed parameters (type, default, choices, range, unit, help), and what
// the model does with their values: check, estimate, run (write the results directory, return the summary)
// and report. The CLI builds a subcommand from each description; the study runner calls them in-process.
// Nothing here knows command-line flags: messages name parameters ("steps", not "--steps").
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace netdp::jobs {

enum class ParameterType {
  flag,           // true when given (JSON: true or false)
  integer,        // signed 64-bit integer, range-checked against its field (Parameter::wide)
  natural,        // unsigned 64-bit integer (seeds)
  real,           // double
  text,           // any string: graph specs, paths, device specs
  choice,         // one of Parameter::choices
  count_or_auto,  // an integer or the word "auto" (steps)
  reals,          // a list of doubles (comma-separated as text)
};

/// A parameter that only means something with another's value: given without it, the run would ignore it,
/// so Model::check refuses it (docs/design_models.md "Bound parameters").
struct Need {
  std::string parameter;            // the other parameter
  std::vector<std::string> values;  // its values that use this one (a choice); empty: a flag that is on
  std::string why;                  // appended in parentheses, may be empty
};

/// What a parameter is for besides its value. The runner of a model (CLI or study) provides the output
/// directory and quietness through RunContext; device and threads take the context's defaults when not given.
enum class ParameterRole { value, out_dir, quiet, device, threads };

/// A numeric range, checked by Model::check (not at conversion: a study reports it for the grid point).
struct Range {
  std::optional<double> min, max;
  bool min_exclusive = false, max_exclusive = false;
  bool empty() const { return !min && !max; }
};
Range at_least(double min);
Range above(double min);
Range between(double min, double max);

struct Parameter {
  std::string name;  // the CLI adds "--"; a study file writes it as a key
  ParameterType type = ParameterType::text;
  std::string help;
  std::optional<std::string> default_value;  // as text ("2", "auto", "0.01,0.05"); none: required or optional
  bool required = false;                     // no default and must be given
  std::vector<std::string> choices;          // choice (and real) parameters: the accepted values
  Range range;                               // integer and real parameters (each item of a list)
  std::string unit;                          // "GiB", "absolute std": one per name (design_models.md)
  std::size_t items = 0;                     // reals: exact number of items (0 = any number)
  std::vector<std::string> excludes;         // parameters that may not be given together with this one
  std::vector<Need> needs;                   // given, it needs each of these
  // integer and count_or_auto parameters: the field the value lands in. A 32-bit int unless declared wide
  // (std::int64_t): a value beyond it is refused at conversion, never wrapped (docs/reliability.md §1).
  bool wide = false;
  ParameterRole role = ParameterRole::value;
  std::vector<std::string>
      forms;  // text parameters: the accepted words and patterns, shown as {a|b|file:PATH}
  // Renaming (docs/design_models.md "Renaming a parameter"): older spellings still accepted, as keys of a
  // study file too (the command line prints one line naming the new one); a deprecated parameter is hidden
  // from --help and names what replaces it ("cap none").
  std::vector<std::string> aliases;
  std::string replaced_by;
};

class Model;

/// A model's parameter values: converted to their types, defaults applied. Every error is an
/// InvalidParameter naming the parameter.
class Values {
 public:
  using TextItems = std::vector<std::pair<std::string, std::vector<std::string>>>;
  using JsonItems = std::vector<std::pair<std::string, nlohmann::json>>;

  /// Text as a command line gives it: name -> items (one for a scalar; a list takes several items or one
  /// comma-separated item; a flag none). Unknown names, bad values and missing required parameters throw.
  static Values from_text(const Model& model, const TextItems& given);
  /// JSON values (a study file, a script): booleans for flags, numbers, strings, lists. A value converts as
  /// its text would (numbers in shortest round-trip form), so a study accepts exactly what the CLI does.
  static Values from_json(const Model& model, const JsonItems& given);
  static Values from_json_object(const Model& model, const nlohmann::json& object);
  /// One value, converted and checked for its type and choices only; throws InvalidParameter.
  static nlohmann::json convert(const Parameter& parameter, const nlohmann::json& value);

  bool given(const std::string& name) const;  // given explicitly (not a default)
  bool has(const std::string& name) const;    // given or defaulted
  bool flag(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;  // integer, count_or_auto (not auto)
  std::uint64_t natural(const std::string& name) const;
  double real(const std::string& name) const;
  const std::string& text(const std::string& name) const;  // text, choice
  bool is_auto(const std::string& name) const;             // count_or_auto
  std::vector<double> reals(const std::string& name) const;
  /// Every value (given or defaulted) by name, e.g. for a manifest.
  const nlohmann::json& as_json() const { return values_; }

  /// Sets a value from text (e.g. the study worker's device) unless it was given.
  void set_default(const Parameter& parameter, const std::string& text);

 private:
  const nlohmann::json& at(const std::string& name) const;
  nlohmann::json values_ = nlohmann::json::object();
  std::map<std::string, bool> given_;
};

/// Where and how a run happens; none of it may change the model's results.
struct RunContext {
  std::filesystem::path out_dir;
  std::string device;         // the device parameter's value when not given ("" = its default)
  int threads = 0;            // the threads parameter's value when not given (0 = its default)
  bool quiet = false;         // no progress lines on stderr
  nlohmann::json invocation;  // how the run was asked for (command line, study unit), for manifest.json
};

/// Rough resources of one run, for `netdp run --dry-run` and the study budgets (0 = unknown).
struct Estimate {
  double bytes = 0;
  double seconds = 0;
  /// Bytes that must be held at once whatever the tiling (an n x n output kept whole): Model::check (so run
  /// and every dry run) refuses, before anything is allocated or written, a run whose required bytes exceed
  /// memory-limit or the memory available (docs/reliability.md). 0: the model plans its own memory.
  double required_bytes = 0;
};

/// A model: its description and what it does.
class Model {
 public:
  std::string name;                   // "gossip-loss", "bound complete-sum": words are nested subcommands
  std::string help;                   // one line
  std::string footer;                 // more help after the parameters (may be empty)
  std::string example;                // the arguments of a typical run, the last line of --help
  bool study_model = true;            // writes summary.json into the output directory: usable in a study
  std::vector<Parameter> parameters;  // in the order of the help

  /// The model's own checks of a set of values (combinations, library validation), without running.
  std::function<void(const Values&)> validate;
  /// Runs the model into context.out_dir and returns the summary (summary.json's content).
  std::function<nlohmann::json(const Values&, const RunContext&)> execute;
  /// The one-line report of a finished run (the CLI prints it).
  std::function<std::string(const nlohmann::json& summary, const RunContext&)> describe;
  /// Rough resources; absent: unknown.
  std::function<Estimate(const Values&)> resources;

  /// The parameter of this name or of this deprecated spelling (Parameter::aliases); nullptr when absent.
  const Parameter* find(const std::string& parameter) const;
  const Parameter& parameter(const std::string& parameter) const;  // std::out_of_range when absent
  const Parameter* with_role(ParameterRole role) const;

  /// Ranges and exclusions of the parameters, the model's own checks, then its required memory
  /// (Estimate::required_bytes); throws InvalidInput (InvalidParameter where one parameter is at fault).
  /// Runs nothing and writes nothing.
  void check(const Values& values) const;
  /// Applies the context's defaults (device, threads), checks, runs; returns the summary.
  nlohmann::json run(Values values, const RunContext& context) const;
  std::string report(const nlohmann::json& summary, const RunContext& context) const;
  Estimate estimate(const Values& values) const;
};

/// A group of models sharing the first word of their names ("bound"), with its one-line help.
struct ModelGroup {
  std::string name, help;
};

/// Every model, in the order of `netdp --help`.
const std::vector<Model>& models();
const std::vector<ModelGroup>& model_groups();
/// nullptr when there is no such model.
const Model* find_model(const std::string& name);

}  // namespace netdp::jobs
