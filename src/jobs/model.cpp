// The model registry (docs/design_models.md): typed values, the checks every model shares (ranges,
// exclusions), and the list of models, each described in its own src/jobs/<stem>_job.cpp.
#include "netdp/jobs/model.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "core/memory_info.hpp"
#include "jobs/model_list.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::jobs {

using json = nlohmann::json;

Range at_least(double min) {
  return {min, std::nullopt, false, false};
}
Range above(double min) {
  return {min, std::nullopt, true, false};
}
Range between(double min, double max) {
  return {min, max, false, false};
}

namespace {

/// "a, b or c".
std::string alternatives(const std::vector<std::string>& choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i)
    text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return text;
}

/// A 64-bit value checked against the parameter's field: `steps 4294967297` ran with steps = 1 when an int
/// took it (docs/reliability.md §1). Overflow of 64 bits and trailing characters fail in parse_int.
std::int64_t fits_field(const Parameter& p, std::int64_t x, const std::string& text) {
  if (!p.wide && (x > INT_MAX || x < INT_MIN))
    throw InvalidParameter(p.name, p.name + ": expected an integer in [" + std::to_string(INT_MIN) + ", " +
                                       std::to_string(INT_MAX) + "], got '" + excerpt(text) + "'");
  return x;
}

bool parse_int(const std::string& text, std::int64_t& value) {
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  return first != last && ec == std::errc() && end == last;
}

bool parse_natural(const std::string& text, std::uint64_t& value) {
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  return first != last && ec == std::errc() && end == last;
}

bool parse_real(const std::string& text, double& value) {
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  return first != last && ec == std::errc() && end == last;
}

/// A comma-separated item splits into several (a list given as one command-line word).
std::vector<std::string> split_items(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t at = 0;
    while (true) {
      const std::size_t comma = item.find(',', at);
      out.push_back(item.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text.append(text.empty() ? "" : ",").append(item);
  return text;
}

/// The text a JSON value stands for (the same rule as a study's argument text).
std::string json_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return format_double(value.get<double>());
  return value.dump();
}

json convert_text(const Parameter& p, const std::vector<std::string>& items) {
  const std::string& name = p.name;
  if (p.type == ParameterType::flag) {
    // "--flag" alone is on; "--flag=VALUE" takes true/false/1/0 like a study file's boolean, and the last
    // of several occurrences wins (docs/reliability.md "Flags").
    bool on = true;
    for (const auto& text : items) {
      if (text == "true" || text == "1")
        on = true;
      else if (text == "false" || text == "0")
        on = false;
      else
        throw InvalidParameter(
            name, name + " is a flag: expected true, false, 1 or 0, got '" + excerpt(text) + "'");
    }
    return on;
  }
  if (p.type == ParameterType::reals) {
    json list = json::array();
    const auto parts = split_items(items);
    for (const auto& item : parts) {
      double x = 0;
      if (!parse_real(item, x) || !std::isfinite(x))
        throw InvalidParameter(name, name + ": expected finite numbers separated by commas, got '" +
                                         excerpt(joined(items)) + "'");
      list.push_back(x);
    }
    if (parts.empty() || (parts.size() == 1 && parts[0].empty()))
      throw InvalidParameter(name, name + ": expected numbers separated by commas, got nothing");
    if (p.items && list.size() != p.items)
      throw InvalidParameter(name, name + ": expected " + std::to_string(p.items) +
                                       " numbers separated by commas, got '" + excerpt(joined(items)) + "'");
    return list;
  }
  const std::string text = joined(items);
  switch (p.type) {
    case ParameterType::integer: {
      std::int64_t x = 0;
      if (!parse_int(text, x))
        throw InvalidParameter(name, name + ": expected an integer, got '" + excerpt(text) + "'");
      return fits_field(p, x, text);
    }
    case ParameterType::natural: {
      std::uint64_t x = 0;
      if (!parse_natural(text, x))
        throw InvalidParameter(name, name + ": expected an integer >= 0, got '" + excerpt(text) + "'");
      return x;
    }
    case ParameterType::count_or_auto: {
      std::int64_t x = 0;
      if (text == "auto") return "auto";
      if (!parse_int(text, x))
        throw InvalidParameter(name,
                               name + ": expected a positive integer or auto, got '" + excerpt(text) + "'");
      return fits_field(p, x, text);
    }
    case ParameterType::real: {
      double x = 0;
      if (!parse_real(text, x))
        throw InvalidParameter(name, name + ": expected a number, got '" + excerpt(text) + "'");
      if (!std::isfinite(x))  // inf passed every range check and overflowed later (docs/reliability.md §1)
        throw InvalidParameter(name, name + ": expected a finite number, got '" + excerpt(text) + "'");
      if (!p.choices.empty() && std::none_of(p.choices.begin(), p.choices.end(), [&](const std::string& c) {
            double y = 0;
            return parse_real(c, y) && y == x;
          }))
        throw InvalidParameter(
            name, name + ": expected " + alternatives(p.choices) + ", got '" + excerpt(text) + "'");
      return x;
    }
    case ParameterType::choice:
      if (std::find(p.choices.begin(), p.choices.end(), text) == p.choices.end())
        throw InvalidParameter(
            name, name + ": expected " + alternatives(p.choices) + ", got '" + excerpt(text) + "'");
      return text;
    default:
      return text;
  }
}

std::string range_text(const Range& r) {
  if (r.min && r.max)
    return std::string("in ") + (r.min_exclusive ? "(" : "[") + format_double(*r.min) + ", " +
           format_double(*r.max) + (r.max_exclusive ? ")" : "]");
  if (r.min) return std::string(r.min_exclusive ? "> " : ">= ") + format_double(*r.min);
  return std::string(r.max_exclusive ? "< " : "<= ") + format_double(*r.max);
}

bool in_range(const Range& r, double x) {
  if (std::isnan(x)) return false;
  if (r.min && (r.min_exclusive ? !(x > *r.min) : !(x >= *r.min))) return false;
  if (r.max && (r.max_exclusive ? !(x < *r.max) : !(x <= *r.max))) return false;
  return true;
}

}  // namespace

// --- Values ------------------------------------------------------------------------------------------------

json Values::convert(const Parameter& p, const json& value) {
  if (p.type == ParameterType::flag) {
    if (!value.is_boolean()) throw InvalidParameter(p.name, p.name + " is a flag: write true or false");
    return value;
  }
  if (value.is_boolean()) throw InvalidParameter(p.name, p.name + " takes a value, not true/false");
  if (value.is_array() && value.empty()) throw InvalidParameter(p.name, p.name + " is an empty list");
  if (value.is_object() || value.is_null())
    throw InvalidParameter(p.name, p.name + " must be a string, a number or a list");
  std::vector<std::string> items;
  if (value.is_array()) {
    for (const auto& item : value) {
      if (item.is_array() || item.is_object() || item.is_null())
        throw InvalidParameter(p.name, p.name + ": a list holds strings or numbers");
      items.push_back(json_text(item));
    }
  } else {
    items.push_back(json_text(value));
  }
  return convert_text(p, items);
}

namespace {

/// Flags absent are false, other parameters take their defaults; a required one without a value throws (the
/// output directory comes from the run's context).
void apply_defaults(const Model& model, json& values) {
  for (const Parameter& p : model.parameters) {
    if (values.contains(p.name)) continue;
    if (p.type == ParameterType::flag)
      values[p.name] = false;
    else if (p.default_value)
      values[p.name] = convert_text(p, {*p.default_value});
    else if (p.required && p.role != ParameterRole::out_dir)
      throw InvalidParameter(p.name, p.name + " is required");
  }
}

const Parameter& known_parameter(const Model& model, const std::string& name) {
  const Parameter* p = model.find(name);
  if (!p) throw InvalidParameter(name, name + ": " + model.name + " has no such parameter");
  return *p;
}

/// The parameter a given name (its own or an older spelling) stands for; given twice is an error.
const Parameter& given_parameter(const Model& model, const std::string& name, const json& values) {
  const Parameter& p = known_parameter(model, name);
  if (values.contains(p.name))
    throw InvalidParameter(
        p.name, p.name + " is given twice" + (name == p.name ? "" : " (" + name + " is its older spelling)"));
  return p;
}

/// from_text and from_json alike: every given value, text items or JSON, converted by `convert` and marked
/// given; then the defaults.
template <class Items, class Convert>
void take_given(const Model& model, const Items& given, Convert convert, json& values,
                std::map<std::string, bool>& given_names) {
  for (const auto& [name, value] : given) {
    const Parameter& p = given_parameter(model, name, values);
    values[p.name] = convert(p, value);
    given_names[p.name] = true;
  }
  apply_defaults(model, values);
}

}  // namespace

Values Values::from_text(const Model& model, const TextItems& given) {
  Values v;
  take_given(model, given, convert_text, v.values_, v.given_);
  return v;
}

Values Values::from_json(const Model& model, const JsonItems& given) {
  Values v;
  take_given(model, given, convert, v.values_, v.given_);
  return v;
}

Values Values::from_json_object(const Model& model, const json& object) {
  if (!object.is_object()) throw InvalidInput(model.name + ": parameters must be a JSON object");
  JsonItems items;
  for (const auto& [name, value] : object.items()) items.emplace_back(name, value);
  return from_json(model, items);
}

const json& Values::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("parameter '" + name + "' has no value");
  return *it;
}

bool Values::given(const std::string& name) const {
  auto it = given_.find(name);
  return it != given_.end() && it->second;
}

bool Values::has(const std::string& name) const {
  return values_.contains(name);
}

bool Values::flag(const std::string& name) const {
  return has(name) && at(name).get<bool>();
}

std::int64_t Values::integer(const std::string& name) const {
  const json& v = at(name);
  if (!v.is_number_integer()) throw std::logic_error("parameter '" + name + "' is not an integer");
  return v.get<std::int64_t>();
}

std::uint64_t Values::natural(const std::string& name) const {
  return at(name).get<std::uint64_t>();
}

double Values::real(const std::string& name) const {
  return at(name).get<double>();
}

const std::string& Values::text(const std::string& name) const {
  return at(name).get_ref<const std::string&>();
}

bool Values::is_auto(const std::string& name) const {
  return at(name).is_string();
}

std::vector<double> Values::reals(const std::string& name) const {
  return has(name) ? at(name).get<std::vector<double>>() : std::vector<double>{};
}

void Values::set_default(const Parameter& parameter, const std::string& text) {
  if (given(parameter.name)) return;
  values_[parameter.name] = convert_text(parameter, {text});
}

// --- Model -------------------------------------------------------------------------------------------------

namespace {

/// docs/design.md principle 5 for the outputs no model tiles: what the estimate says must be held at once is
/// refused, before anything is allocated or written, beyond memory-limit (when the model has one and it is
/// given) or 4/5 of the memory available.
/// "576 bytes", "12.5 MiB", "37.3 GiB": whole bytes below a MiB, one decimal above.
std::string readable_bytes(double bytes) {
  constexpr double kMiB = double(1 << 20), kGiB = double(1 << 30);
  if (bytes < kMiB) return format_double(std::floor(bytes)) + " bytes";
  const bool gib = bytes >= kGiB;
  return format_double(std::round(bytes / (gib ? kGiB : kMiB) * 10) / 10) + (gib ? " GiB" : " MiB");
}

void require_run_memory(const Model& model, const Values& values) {
  const double required = model.estimate(values).required_bytes;
  if (required <= 0) return;
  const bool limited = model.find("memory-limit") && values.real("memory-limit") > 0;
  const double gib = double(1LL << 30);
  const double budget =
      limited ? values.real("memory-limit") * gib : double(available_memory_bytes()) * 4.0 / 5.0;
  if (required > budget)
    throw InsufficientMemory(model.name + " needs about " + readable_bytes(required) +
                             " held at once, more than the " + readable_bytes(budget) + " " +
                             (limited ? "of memory-limit" : "available") +
                             " (docs/reliability.md); use a smaller graph or fewer sources");
}

}  // namespace

const Parameter* Model::find(const std::string& name) const {
  for (const auto& p : parameters)
    if (p.name == name) return &p;
  for (const auto& p : parameters)
    if (std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end()) return &p;
  return nullptr;
}

const Parameter& Model::parameter(const std::string& name) const {
  if (const Parameter* p = find(name)) return *p;
  throw std::out_of_range(this->name + " has no parameter '" + name + "'");
}

const Parameter* Model::with_role(ParameterRole role) const {
  for (const auto& p : parameters)
    if (p.role == role) return &p;
  return nullptr;
}

namespace {

/// The most threads a run may ask for: what OpenMP allows (OMP_THREAD_LIMIT) and at most 4 per processor
/// (at least 64, at most 1024). libgomp dies of SIGSEGV when it cannot create the threads asked for (100000),
/// after the run began writing; refused here, before anything exists (docs/reliability.md §1).
std::int64_t max_threads() {
  return std::min<std::int64_t>({omp_get_thread_limit(), 1024, std::max(64, 4 * omp_get_num_procs())});
}

/// An option the run would ignore is refused rather than dropped in silence (docs/reliability.md §1).
void require_needs(const Model& model, const Parameter& p, const Values& values) {
  for (const Need& need : p.needs) {
    const Parameter& other = model.parameter(need.parameter);
    const bool met = need.values.empty()
                         ? values.flag(other.name)
                         : values.has(other.name) && std::find(need.values.begin(), need.values.end(),
                                                               values.text(other.name)) != need.values.end();
    if (met) continue;
    std::string by = "--" + other.name;  // the CLI spells this one's name so too (src/cli/main.cpp)
    if (!need.values.empty()) {
      std::vector<std::string> quoted = need.values;
      by += " " + alternatives(quoted);
    }
    throw InvalidParameter(p.name, p.name + " is only used by " + by +
                                       (need.why.empty() ? "" : " (" + need.why + ")") +
                                       "; this run would ignore it");
  }
}

}  // namespace

void Model::check(const Values& values) const {
  if (const Parameter* threads = with_role(ParameterRole::threads); threads && values.has(threads->name))
    if (const std::int64_t t = values.integer(threads->name); t > max_threads())
      throw InvalidParameter(threads->name,
                             threads->name + " must be at most " + std::to_string(max_threads()) +
                                 " (the threads OpenMP allows here), got " + std::to_string(t));
  for (const Parameter& p : parameters) {
    if (!values.has(p.name)) continue;
    for (const auto& other : p.excludes)
      if (values.given(p.name) && values.given(other))
        throw InvalidParameter(p.name, p.name + " and " + other + " exclude each other: give one of them");
    if (values.given(p.name)) require_needs(*this, p, values);
    if (p.range.empty()) continue;
    const json& value = values.as_json()[p.name];
    const auto check_one = [&](const json& x) {
      if (!x.is_number()) return;  // "auto"
      const double d = x.get<double>();
      if (!in_range(p.range, d))
        throw InvalidParameter(p.name, p.name + " must be " + range_text(p.range) +
                                           (p.unit.empty() ? "" : " " + p.unit) + ", got " +
                                           (x.is_number_float() ? format_double(d) : x.dump()));
    };
    if (value.is_array())
      for (const auto& x : value) check_one(x);
    else
      check_one(value);
  }
  if (validate) validate(values);
  // Here rather than in run only, so that a dry run and a study's check refuse what the run would.
  require_run_memory(*this, values);
}

json Model::run(Values values, const RunContext& context) const {
  if (const Parameter* device = with_role(ParameterRole::device); device && !context.device.empty())
    values.set_default(*device, context.device);
  const Parameter* threads = with_role(ParameterRole::threads);
  if (threads && context.threads > 0) values.set_default(*threads, std::to_string(context.threads));
  check(values);
  if (threads && values.integer(threads->name) > 0)
    omp_set_num_threads(static_cast<int>(values.integer(threads->name)));
  if (with_role(ParameterRole::out_dir) && context.out_dir.empty())
    throw InvalidParameter(with_role(ParameterRole::out_dir)->name,
                           with_role(ParameterRole::out_dir)->name + ": an output directory is required");
  return execute(values, context);
}

std::string Model::report(const json& summary, const RunContext& context) const {
  return describe ? describe(summary, context) : name + ": done -> " + context.out_dir.string() + "\n";
}

Estimate Model::estimate(const Values& values) const {
  return resources ? resources(values) : Estimate{};
}

// --- the registry ------------------------------------------------------------------------------------------

const std::vector<Model>& models() {
  static const std::vector<Model> list = [] {
    std::vector<Model> m{graph_model(),
                         gossip_loss_model(),
                         gossip_er_bound_model(),
                         walk_loss_model(),
                         complete_sum_bound_model(),
                         complete_histogram_bound_model(),
                         ring_sum_bound_model(),
                         ring_histogram_bound_model(),
                         sgd_rdp_bound_model(),
                         sgd_closed_form_bound_model(),
                         sgd_sigma_bound_model(),
                         gossip_sim_model(),
                         muffliato_gd_model(),
                         walk_sim_model(),
                         walk_sgd_model(),
                         muffliato_sgd_model(),
                         mf_loss_model(),
                         mf_factorize_model(),
                         mf_sgd_model(),
                         admm_model(),
                         attack_gossip_model(),
                         attack_dgd_model()};
    return m;
  }();
  return list;
}

const std::vector<ModelGroup>& model_groups() {
  static const std::vector<ModelGroup> groups{{"bound",
                                               "closed-form and numerical privacy bounds of token walks on "
                                               "the complete graph and the ring (docs/math.md "
                                               "3-4), over a grid of n (docs/bounds.md)"},
                                              {"attack",
                                               "reconstruction attacks on gossip averaging and "
                                               "decentralized GD (docs/attack.md)"}};
  return groups;
}

const Model* find_model(const std::string& name) {
  for (const auto& m : models())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace netdp::jobs
