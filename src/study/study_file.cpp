// Study files (docs/study.md): TOML parsed by toml++, checked key by key against the model catalog so that
// every mistake is reported with its line before any unit runs.
#include "netdp/study/study_file.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <toml++/toml.h>

#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::study {

using json = nlohmann::json;

namespace {

int line_of(const toml::node& node) {
  return static_cast<int>(node.source().begin.line);
}
int line_of(const toml::key& key) {
  return static_cast<int>(key.source().begin.line);
}

class Context {
 public:
  explicit Context(std::string source) : source_(std::move(source)) {}
  [[noreturn]] void fail(int line, const std::string& message) const {
    throw InvalidInput(source_ + ":" + std::to_string(line) + ": " + message);
  }

 private:
  std::string source_;
};

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "a list";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

/// A scalar TOML value as JSON; tables and dates are refused.
json scalar_json(const Context& ctx, const toml::node& node, const std::string& key) {
  if (auto v = node.as_string()) return v->get();
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  ctx.fail(line_of(node), "'" + key + "' must be a string, number or boolean, not " + type_name(node));
}

/// A parameter value: a scalar or a list of scalars (list-valued options).
json value_json(const Context& ctx, const toml::node& node, const std::string& key) {
  if (auto array = node.as_array()) {
    json list = json::array();
    for (const auto& item : *array) list.push_back(scalar_json(ctx, item, key));
    return list;
  }
  return scalar_json(ctx, node, key);
}

double number(const Context& ctx, const toml::node& node, const std::string& key) {
  if (auto v = node.as_integer()) return double(v->get());
  if (auto v = node.as_floating_point()) return v->get();
  ctx.fail(line_of(node), "'" + key + "' must be a number, not " + type_name(node));
}

bool all_integers(std::initializer_list<const toml::node*> nodes) {
  return std::all_of(nodes.begin(), nodes.end(), [](const toml::node* n) { return !n || n->is_integer(); });
}

/// A range axis: {start, stop, step} (inclusive) or {start, stop, num[, spacing][, integer]}.
std::vector<json> expand_range(const Context& ctx, const toml::table& range, const std::string& key) {
  const std::set<std::string> known{"start", "stop", "step", "num", "spacing", "integer"};
  for (auto&& [k, v] : range)
    if (!known.count(std::string(k.str())))
      ctx.fail(line_of(k), "unknown key '" + std::string(k.str()) + "' in the range of '" + key +
                               "' (known: start, stop, step, num, spacing, integer)");
  const toml::node* start = range.get("start");
  const toml::node* stop = range.get("stop");
  const toml::node* step = range.get("step");
  const toml::node* num = range.get("num");
  const int line = line_of(range);
  if (!start || !stop) ctx.fail(line, "the range of '" + key + "' needs start and stop");
  if (bool(step) == bool(num)) ctx.fail(line, "the range of '" + key + "' needs exactly one of step and num");
  const double a = number(ctx, *start, key), b = number(ctx, *stop, key);
  if (!(a <= b)) ctx.fail(line, "the range of '" + key + "' needs start <= stop");
  std::vector<json> values;
  if (step) {
    if (range.get("spacing") || range.get("integer"))
      ctx.fail(line, "spacing and integer go with num, not step, in the range of '" + key + "'");
    const double h = number(ctx, *step, key);
    if (!(h > 0)) ctx.fail(line_of(*step), "step of '" + key + "' must be > 0");
    const bool integral = all_integers({start, stop, step});
    const double count = std::floor((b - a) / h * (1 + 1e-12) + 1e-9) + 1;
    if (count > 1e6) ctx.fail(line, "the range of '" + key + "' has more than a million values");
    for (long long i = 0; i < static_cast<long long>(count); ++i) {
      const double x = a + double(i) * h;
      values.push_back(integral ? json(static_cast<std::int64_t>(std::llround(x))) : json(x));
    }
    return values;
  }
  const auto* count_node = num->as_integer();
  if (!count_node || count_node->get() < 1 || count_node->get() > 1000000)
    ctx.fail(line_of(*num), "num of '" + key + "' must be an integer in [1, 1000000]");
  const std::int64_t count = count_node->get();
  std::string spacing = "linear";
  if (const toml::node* s = range.get("spacing")) {
    if (!s->is_string() || (s->as_string()->get() != "linear" && s->as_string()->get() != "log"))
      ctx.fail(line_of(*s), "spacing of '" + key + "' must be \"linear\" or \"log\"");
    spacing = s->as_string()->get();
  }
  bool integer = false;
  if (const toml::node* s = range.get("integer")) {
    if (!s->is_boolean()) ctx.fail(line_of(*s), "integer of '" + key + "' must be true or false");
    integer = s->as_boolean()->get();
  }
  if (spacing == "log" && !(a > 0)) ctx.fail(line, "a log range of '" + key + "' needs start > 0");
  for (std::int64_t i = 0; i < count; ++i) {
    const double f = count == 1 ? 0.0 : double(i) / double(count - 1);
    // numpy.linspace / numpy.logspace(log10 a, log10 b) values, endpoints exact
    double x = spacing == "linear" ? a + f * (b - a)
                                   : std::pow(10.0, std::log10(a) + f * (std::log10(b) - std::log10(a)));
    if (i == count - 1 && count > 1) x = b;
    if (i == 0) x = a;
    if (integer) {
      const json v = static_cast<std::int64_t>(std::llround(x));
      if (values.empty() || values.back() != v) values.push_back(v);
    } else {
      values.push_back(x);
    }
  }
  return values;
}

void check_value(const Context& ctx, const ModelCatalog& catalog, const ExperimentSpec& e,
                 const std::string& key, const json& value, int line) {
  try {
    catalog.check_parameter(e.model, key, value);
  } catch (const InvalidInput& error) {
    ctx.fail(line, "experiment '" + e.name + "': " + error.what());
  }
}

/// Every parameter an experiment sets so far: fixed ones, axes, and the keys of its cases.
bool sets(const ExperimentSpec& e, const std::string& key) {
  for (const auto& p : e.params)
    if (p.key == key) return true;
  for (const auto& a : e.axes) {
    if (a.key == key) return true;
    if (a.cases())
      for (const auto& c : a.values)
        for (const auto& kv : c)
          if (kv[0] == key) return true;
  }
  return false;
}

void check_key(const Context& ctx, const ModelCatalog& catalog, const ExperimentSpec& e,
               const std::string& key, int line) {
  if (key == "out" || key == "quiet")
    ctx.fail(line, "experiment '" + e.name + "': '" + key + "' is set by the runner (docs/study.md)");
  if (!catalog.accepts(e.model, key)) {
    const auto known = catalog.parameters(e.model);
    std::string list;
    for (const auto& k : known)
      if (k != "out" && k != "quiet") list += (list.empty() ? "" : ", ") + k;
    ctx.fail(line, "experiment '" + e.name + "': unknown parameter '" + key + "' of model '" + e.model +
                       "' (known: " + list + ")");
  }
  if (sets(e, key)) ctx.fail(line, "experiment '" + e.name + "': '" + key + "' is given twice");
}

/// `cases = [{graph = ..., steps = ...}, ...]`: parameters that vary together. Each case's keys are checked
/// like parameters; the keys must not be set elsewhere in the experiment.
AxisSpec parse_cases(const Context& ctx, const ModelCatalog& catalog, const ExperimentSpec& e,
                     const toml::node& node, int line) {
  const auto* list = node.as_array();
  if (!list || list->empty())
    ctx.fail(line,
             "experiment '" + e.name + "': cases must be a non-empty list of tables {key = value, ...}");
  AxisSpec axis{"cases", {}, line};
  for (const auto& item : *list) {
    const auto* table = item.as_table();
    if (!table || table->empty())
      ctx.fail(line_of(item), "experiment '" + e.name + "': every case is a table {key = value, ...}");
    std::vector<std::tuple<int, int, std::string, json>> entries;
    for (auto&& [k, v] : *table) {
      const std::string key(k.str());
      check_key(ctx, catalog, e, key, line_of(k));
      json value = value_json(ctx, v, key);
      check_value(ctx, catalog, e, key, value, line_of(k));
      entries.emplace_back(line_of(k), static_cast<int>(k.source().begin.column), key, std::move(value));
    }
    std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    json pairs = json::array();
    for (auto& [l, c, key, value] : entries) pairs.push_back(json::array({key, value}));
    axis.values.push_back(std::move(pairs));
  }
  return axis;
}

ExperimentSpec parse_experiment(const Context& ctx, const ModelCatalog& catalog, const toml::table& table,
                                const std::set<std::string>& taken) {
  ExperimentSpec e;
  e.line = line_of(table);
  for (auto&& [k, v] : table) {
    const std::string key(k.str());
    if (key != "name" && key != "model" && key != "replicates" && key != "params" && key != "grid")
      ctx.fail(line_of(k), "unknown key '" + key +
                               "' in [[experiment]] (known: name, model, replicates, "
                               "params, grid)");
  }
  const toml::node* name = table.get("name");
  if (!name || !name->is_string()) ctx.fail(e.line, "every [[experiment]] needs name = \"...\"");
  e.name = name->as_string()->get();
  e.line = line_of(*name);
  const bool name_ok =
      !e.name.empty() && e.name.size() <= 64 && std::all_of(e.name.begin(), e.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
      });
  if (!name_ok) ctx.fail(e.line, "experiment name '" + e.name + "' must be 1-64 letters, digits, '_' or '-'");
  if (taken.count(e.name)) ctx.fail(e.line, "experiment name '" + e.name + "' is used twice");
  const toml::node* model = table.get("model");
  if (!model || !model->is_string()) ctx.fail(e.line, "experiment '" + e.name + "' needs model = \"...\"");
  e.model = model->as_string()->get();
  if (!catalog.has_model(e.model)) {
    std::string list;
    for (const auto& m : catalog.models()) list += (list.empty() ? "" : ", ") + m;
    ctx.fail(line_of(*model),
             "experiment '" + e.name + "': unknown model '" + e.model + "' (known: " + list + ")");
  }
  if (const toml::node* r = table.get("replicates")) {
    if (!r->is_integer() || r->as_integer()->get() < 1 || r->as_integer()->get() > 1000000)
      ctx.fail(line_of(*r), "experiment '" + e.name + "': replicates must be an integer in [1, 1000000]");
    e.replicates = static_cast<int>(r->as_integer()->get());
  }
  if (const toml::node* p = table.get("params")) {
    if (!p->is_table()) ctx.fail(line_of(*p), "experiment '" + e.name + "': params must be a table");
    std::vector<ParameterSpec> params;
    for (auto&& [k, v] : *p->as_table()) {
      const std::string key(k.str());
      check_key(ctx, catalog, e, key, line_of(k));
      ParameterSpec spec{key, value_json(ctx, v, key), line_of(k)};
      check_value(ctx, catalog, e, key, spec.value, spec.line);
      e.params.push_back(std::move(spec));
    }
  }
  if (const toml::node* g = table.get("grid")) {
    if (!g->is_table()) ctx.fail(line_of(*g), "experiment '" + e.name + "': grid must be a table");
    for (auto&& [k, v] : *g->as_table()) {
      const std::string key(k.str());
      if (key == "cases") {
        e.axes.push_back(parse_cases(ctx, catalog, e, v, line_of(k)));
        continue;
      }
      check_key(ctx, catalog, e, key, line_of(k));
      AxisSpec axis{key, {}, line_of(k)};
      if (const auto* range = v.as_table()) {
        axis.values = expand_range(ctx, *range, key);
      } else if (const auto* list = v.as_array()) {
        for (const auto& item : *list) axis.values.push_back(value_json(ctx, item, key));
      } else {
        ctx.fail(axis.line, "experiment '" + e.name + "': grid axis '" + key +
                                "' must be a list of values or a range table");
      }
      if (axis.values.empty())
        ctx.fail(axis.line, "experiment '" + e.name + "': grid axis '" + key + "' is empty");
      for (const auto& value : axis.values) check_value(ctx, catalog, e, key, value, axis.line);
      e.axes.push_back(std::move(axis));
    }
  }
  // toml++ keeps keys sorted; the file's order decides which params come first and which axis is slowest.
  std::stable_sort(e.params.begin(), e.params.end(), [](auto& a, auto& b) { return a.line < b.line; });
  std::stable_sort(e.axes.begin(), e.axes.end(), [](auto& a, auto& b) { return a.line < b.line; });
  return e;
}

void parse_study_table(const Context& ctx, const toml::table& table, StudySpec& s) {
  for (auto&& [k, v] : table) {
    const std::string key(k.str());
    const int line = line_of(k);
    if (key == "name") {
      if (!v.is_string() || v.as_string()->get().empty())
        ctx.fail(line, "study name must be a non-empty string");
      s.name = v.as_string()->get();
    } else if (key == "seed") {
      if (!v.is_integer() || v.as_integer()->get() < 0) ctx.fail(line, "seed must be an integer >= 0");
      s.seed = static_cast<std::uint64_t>(v.as_integer()->get());
    } else if (key == "quantiles") {
      const auto* list = v.as_array();
      if (!list) ctx.fail(line, "quantiles must be a list of numbers in [0, 1]");
      for (const auto& item : *list) {
        const double q = number(ctx, item, "quantiles");
        if (!(q >= 0 && q <= 1))
          ctx.fail(line, "quantiles must be numbers in [0, 1], got " + format_double(q));
        s.quantiles.push_back(q);
      }
    } else if (key == "memory_limit_gib") {
      s.memory_limit_gib = number(ctx, v, key);
      s.line_memory_limit = line;
      if (!(s.memory_limit_gib > 0)) ctx.fail(line, "memory_limit_gib must be > 0");
    } else if (key == "time_budget_hours") {
      s.time_budget_hours = number(ctx, v, key);
      s.line_time_budget = line;
      if (!(s.time_budget_hours > 0)) ctx.fail(line, "time_budget_hours must be > 0");
    } else if (key == "max_units") {
      if (!v.is_integer() || v.as_integer()->get() < 1) ctx.fail(line, "max_units must be an integer >= 1");
      s.max_units = v.as_integer()->get();
      s.line_max_units = line;
    } else {
      ctx.fail(line, "unknown key '" + key +
                         "' in [study] (known: name, seed, quantiles, memory_limit_gib, "
                         "time_budget_hours, max_units)");
    }
  }
}

}  // namespace

StudySpec parse_study(const std::string& text, const std::string& source, const ModelCatalog& catalog) {
  const Context ctx(source);
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    ctx.fail(static_cast<int>(e.source().begin.line), "TOML syntax: " + std::string(e.description()));
  }
  StudySpec s;
  s.source = source;
  s.text = text;
  s.name = std::filesystem::path(source).stem().string();
  for (auto&& [k, v] : root) {
    const std::string key(k.str());
    if (key == "study") {
      if (!v.is_table()) ctx.fail(line_of(k), "study must be a table: [study]");
      parse_study_table(ctx, *v.as_table(), s);
    } else if (key == "experiment") {
      if (!v.is_array_of_tables()) ctx.fail(line_of(k), "experiments are written [[experiment]]");
      std::set<std::string> taken;
      for (const auto& item : *v.as_array()) {
        s.experiments.push_back(parse_experiment(ctx, catalog, *item.as_table(), taken));
        taken.insert(s.experiments.back().name);
      }
    } else {
      ctx.fail(line_of(k),
               "unknown top-level key '" + key + "' (a study has [study] and [[experiment]] tables)");
    }
  }
  if (s.experiments.empty()) ctx.fail(1, "the study has no [[experiment]]");
  return s;
}

StudySpec read_study_file(const std::filesystem::path& path, const ModelCatalog& catalog) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidInput("cannot read the study file " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse_study(text.str(), path.string(), catalog);
}

}  // namespace netdp::study
