#pragma once
// The leading output columns of the complete-graph sum and histogram bounds.
#include "netdp/bounds/common.hpp"

namespace netdp::bounds::detail {

/// n_effective, T, N_v, N_v_proven, k and eps_cycle of a bound b (CompleteSumBound, CompleteHistogramBound).
template <class B>
Columns cycle_columns(const B& b) {
  return {{"n_effective", b.n_effective},
          {"T", b.steps},
          {"N_v", b.contributions},
          {"N_v_proven", b.contributions_proven ? 1.0 : 0.0},
          {"k", b.cycles},
          {"eps_cycle", b.eps_cycle}};
}

}  // namespace netdp::bounds::detail
