#include "jobs/model_parts.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <mutex>

#include "netdp/core/error.hpp"
#include "netdp/core/graph_spec.hpp"

namespace netdp::jobs {

namespace declare {

Declare::Declare(std::string name, ParameterType type, std::string help) {
  p_.name = std::move(name);
  p_.type = type;
  p_.help = std::move(help);
}
Declare& Declare::fallback(std::string value) {
  p_.default_value = std::move(value);
  return *this;
}
Declare& Declare::required() {
  p_.required = true;
  return *this;
}
Declare& Declare::choices(std::vector<std::string> values) {
  p_.choices = std::move(values);
  return *this;
}
Declare& Declare::range(Range range) {
  p_.range = range;
  return *this;
}
Declare& Declare::unit(std::string unit) {
  p_.unit = std::move(unit);
  return *this;
}
Declare& Declare::items(std::size_t count) {
  p_.items = count;
  return *this;
}
Declare& Declare::excludes(std::string other) {
  p_.excludes.push_back(std::move(other));
  return *this;
}
Declare& Declare::needs(std::string other, std::vector<std::string> values, std::string why) {
  p_.needs.push_back({std::move(other), std::move(values), std::move(why)});
  return *this;
}
Declare& Declare::wide() {
  p_.wide = true;
  return *this;
}
Declare& Declare::role(ParameterRole role) {
  p_.role = role;
  return *this;
}
Declare& Declare::forms(std::vector<std::string> words) {
  p_.forms = std::move(words);
  return *this;
}
Declare& Declare::alias(std::string old_name) {
  p_.aliases.push_back(std::move(old_name));
  return *this;
}
Declare& Declare::replaced_by(std::string what) {
  p_.replaced_by = std::move(what);
  return *this;
}

Declare flag(std::string name, std::string help) {
  return {std::move(name), ParameterType::flag, std::move(help)};
}
Declare integer(std::string name, std::string help) {
  return {std::move(name), ParameterType::integer, std::move(help)};
}
Declare natural(std::string name, std::string help) {
  return {std::move(name), ParameterType::natural, std::move(help)};
}
Declare real(std::string name, std::string help) {
  return {std::move(name), ParameterType::real, std::move(help)};
}
Declare text(std::string name, std::string help) {
  return {std::move(name), ParameterType::text, std::move(help)};
}
Declare choice(std::string name, std::string help, std::vector<std::string> choices) {
  Declare d{std::move(name), ParameterType::choice, std::move(help)};
  d.choices(std::move(choices));
  return d;
}
Declare count_or_auto(std::string name, std::string help) {
  return {std::move(name), ParameterType::count_or_auto, std::move(help)};
}
Declare reals(std::string name, std::string help) {
  return {std::move(name), ParameterType::reals, std::move(help)};
}

Declare noise_multiplier(std::string help, Range range) {
  return real("noise-multiplier", std::move(help))
      .fallback("1")
      .range(range)
      .unit(units::noise_multiplier)
      .alias("sigma");
}

}  // namespace declare

Model named_model(std::string name, std::string help, std::string example) {
  Model m;
  m.name = std::move(name);
  m.help = std::move(help);
  m.example = std::move(example);
  return m;
}

using namespace declare;

void append(std::vector<Parameter>& list, const std::vector<Parameter>& more) {
  list.insert(list.end(), more.begin(), more.end());
}

std::vector<Parameter> graph_parameters() {
  return {
      text("graph", "graph spec FAMILY:key=value,... (see docs/graphs.md), e.g. hypercube:dim=11").required(),
      text("weights", "gossip matrix W (docs/weights_and_spectra.md)")
          .forms({"metropolis", "hamilton-literal", "max-degree", "lazy-uniform", "file:PATH"})
          .fallback("metropolis")};
}

Parameter out_parameter() {
  return text("out", "output directory").required().role(ParameterRole::out_dir);
}

Parameter quiet_parameter() {
  return flag("quiet", "no progress lines on stderr").role(ParameterRole::quiet);
}

Parameter device_parameter(const std::string& help) {
  return text("device", help)
      .forms({"auto", "cpu", "cuda", "cuda:N"})
      .fallback("auto")
      .role(ParameterRole::device);
}

Parameter threads_parameter() {
  return integer("threads", "CPU threads (0 = OMP_NUM_THREADS or all cores)")
      .fallback("0")
      .range(at_least(0))
      .role(ParameterRole::threads);
}

Parameter memory_limit_parameter() {
  // Below 2^33 GiB = 2^63 bytes: 1e30 overflowed the conversion to bytes and read as negative
  // (docs/reliability.md §1).
  return real("memory-limit", "GiB the run may use (0 = what the machine has free)")
      .fallback("0")
      .range({0.0, 8589934592.0, false, true})
      .unit("GiB");
}

Parameter gap_parameter(const std::string& help) {
  return choice("gap", help, {"second", "abs"}).fallback("second");
}

declare::Declare observer_knows_parameter(const std::string& help) {
  return choice("observer-knows", help, {"input", "input-and-noise"}).fallback("input-and-noise");
}

nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

double estimate_steps(double steps, double n) {
  return steps > 0 ? steps : 4 * std::log2(std::max(2.0, n)) + 8;  // "auto": a few mixing times
}

std::string format_line(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int size = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string line(static_cast<std::size_t>(std::max(size, 0)), '\0');
  std::vsnprintf(line.data(), line.size() + 1, format, again);
  va_end(again);
  return line;
}

GraphSize graph_size(const std::string& text) {
  static std::mutex mutex;
  static std::map<std::string, GraphSize> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(text); it != cache.end()) return it->second;
  GraphSize size;
  const GraphSpec spec = parse_graph_spec(text);
  // A large generator is counted from its keys, never built here (complete:n=100000 walks in closed form,
  // er:n=1e7 is built once, by the run).
  if (const auto planned = planned_graph_size(spec); planned && planned->edges > 2e6) {
    size.n = planned->nodes;
    size.m = planned->edges;
  } else {
    const Graph g = make_graph(spec);
    size.n = g.n;
    size.m = double(g.num_edges());
  }
  return cache[text] = size;
}

}  // namespace netdp::jobs
