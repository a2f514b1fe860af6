#include "study/study_checks.hpp"

#include <cmath>

#include "core/memory_info.hpp"
#include "core/progress.hpp"
#include "netdp/core/error.hpp"
#include "netdp/core/format.hpp"

namespace netdp::study {

namespace {

std::string describe(const GridPoint& point) {
  std::string text;
  for (const auto& [key, value] : point.parameters)
    text += (text.empty() ? "" : ", ") + key + "=" + argument_text(value);
  return text;
}

std::string gib(double bytes) {
  return format_double(std::round(bytes / double(1 << 30) * 100) / 100) + " GiB";
}

}  // namespace

std::vector<UnitEstimate> check_plan(const StudySpec& spec, const StudyPlan& plan,
                                     const ModelCatalog& catalog, int parallel_workers, bool progress) {
  std::vector<UnitEstimate> estimates(plan.units.size());
  std::vector<UnitEstimate> per_point(plan.points.size());
  std::vector<bool> checked(plan.points.size(), false);
  ProgressLine line("netdp run: checking the study", "of the grid points", progress);
  std::size_t points_checked = 0;
  for (const auto& unit : plan.units) {
    const auto& point = plan.points[unit.point];
    const auto& e = spec.experiments[point.experiment];
    if (!checked[unit.point]) {
      try {
        catalog.check_unit(e.model, unit.arguments);
        per_point[unit.point] = catalog.estimate(e.model, unit.arguments);
      } catch (const InvalidInput& error) {
        throw InvalidInput(spec.source + ":" + std::to_string(e.line) + ": experiment '" + e.name +
                           "' point " + point.name + " (" + describe(point) + "): " + error.what());
      }
      checked[unit.point] = true;
      line.update(double(++points_checked) / double(plan.points.size()));
    }
    estimates[unit.index] = per_point[unit.point];
  }
  line.finish();
  const double limit = spec.memory_limit_gib > 0 ? spec.memory_limit_gib * double(1 << 30)
                                                 : double(available_memory_bytes()) / parallel_workers;
  double total_seconds = 0;
  for (const auto& unit : plan.units) {
    const auto& est = estimates[unit.index];
    total_seconds += est.seconds;
    if (est.bytes > limit) {
      const auto& e = spec.experiments[unit.experiment];
      const std::string where = spec.memory_limit_gib > 0
                                    ? spec.source + ":" + std::to_string(spec.line_memory_limit) +
                                          ": memory_limit_gib = " + format_double(spec.memory_limit_gib)
                                    : spec.source + ":" + std::to_string(e.line) +
                                          ": the memory available per worker (" + gib(limit) + ")";
      throw InvalidInput(where + ": unit " + unit.dir.generic_string() + " (" +
                         describe(plan.points[unit.point]) + ") needs about " + gib(est.bytes));
    }
  }
  if (spec.time_budget_hours > 0 && total_seconds / parallel_workers > spec.time_budget_hours * 3600)
    throw InvalidInput(spec.source + ":" + std::to_string(spec.line_time_budget) + ": time_budget_hours = " +
                       format_double(spec.time_budget_hours) + ": the study needs about " +
                       format_double(std::round(total_seconds / parallel_workers / 36) / 100) + " h on " +
                       std::to_string(parallel_workers) + " worker(s)");
  return estimates;
}

}  // namespace netdp::study
