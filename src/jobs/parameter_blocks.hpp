#pragma once
// Parameter blocks several models share, declared once and bound to the fields their jobs share by name
// (docs/design_models.md "Bound parameters"): the graph and its gossip matrix, the pairwise-loss options.
#include <string>
#include <type_traits>
#include <vector>

#include "jobs/binding.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/spectral.hpp"
#include "netdp/core/weighting.hpp"

namespace netdp::jobs {

/// GiB -> bytes (memory-limit; its range keeps the product below 2^63).
inline std::int64_t gib_to_bytes(double gib) {
  return static_cast<std::int64_t>(gib * double(1LL << 30));
}

/// graph (required; job.graph) and weights (a gossip matrix W, metropolis by default; job.weights, parsed
/// when the field is a WeightsSpec, else kept as text).
template <class Job>
std::vector<Parameter> graph_parameters(Binding<Job>& bind) {
  std::vector<Parameter> list = graph_parameters();
  list[0] = bind(list[0], &Job::graph);
  list[1] = bind(list[1], [](Job& job, const std::string& text) {
    if constexpr (std::is_same_v<decltype(job.weights), WeightsSpec>)
      job.weights = parse_weights_spec(text);
    else
      job.weights = text;
  });
  return list;
}

/// The same followed by the model's own parameters `more`, bound by the caller (each setter writes fields of
/// its own, so binding them first changes nothing).
template <class Job>
std::vector<Parameter> graph_parameters(Binding<Job>& bind, const std::vector<Parameter>& more) {
  std::vector<Parameter> list = graph_parameters(bind);
  append(list, more);
  return list;
}

/// The parameters of both pairwise-loss models (gossip-loss, walk-loss), in the order of their help; `noise`
/// is the model's noise parameter, bound by the caller (gossip-loss: sigma, walk-loss: noise-multiplier), and
/// `steps_help` says what auto means for the model.
template <class Job>
std::vector<Parameter> loss_parameters(Binding<Job>& bind, const Parameter& noise,
                                       const std::string& steps_help) {
  using namespace declare;
  std::vector<Parameter> list = graph_parameters(bind);
  Parameter alpha = bind(real("alpha", "Renyi order alpha > 1").fallback("2").range(above(1)),
                         [](Job& job, double alpha) { job.params.alpha = alpha; });
  append(
      list,
      {alpha, noise,
       bind(count_or_auto("steps", steps_help).fallback("auto").range(at_least(1)),
            [](Job& job, CountOrAuto steps) {
              job.auto_steps = steps.is_auto;
              if (!steps.is_auto) job.params.steps = static_cast<int>(steps.count);
            }),
       bind(gap_parameter("spectral gap for steps auto: second (1 - lambda_2) or abs (min 1 - |lambda|)"),
            [](Job& job, const std::string& gap) { job.gap = parse_gap_definition(gap); }),
       bind(integer("source", "compute only the row of this source node u").range(between(0, INT_MAX)),
            [](Job& job, int source) { job.params.source = source; }),
       bind(device_parameter("where to run: auto = a CUDA device when one answers, else the CPU"),
            [](Job& job, const std::string& device) { job.params.device = parse_device_spec(device); }),
       bind(integer("tile-sources", "sources per tile (0 = from the memory available)")
                .fallback("0")
                .range(at_least(0)),
            [](Job& job, std::int64_t sources) { job.params.tile_sources = sources; }),
       bind(memory_limit_parameter(),
            [](Job& job, double gib) { job.params.memory_limit = gib_to_bytes(gib); }),
       threads_parameter(), out_parameter(), quiet_parameter(),
       bind(flag("no-matrix",
                 "do not write loss.npy (by_distance.csv, per_observer.csv and summary.json only: large "
                 "sweeps)"),
            [](Job& job, bool no_matrix) { job.write_matrix = !no_matrix; }),
       bind(choice("diagonal",
                   "loss.npy at (u, u): zero (a node does not observe itself) or local (the LDP level, the "
                   "reference code's self-pair; docs/math.md §12 item 60)",
                   {"zero", "local"})
                .fallback("zero"),
            [](Job& job, const std::string& diagonal) { job.diagonal_local = diagonal == "local"; })});
  return list;
}

}  // namespace netdp::jobs
