#pragma once
// Parameter checks shared by the pairwise-loss accountants (gossip-loss, walk-loss).
#include <cmath>
#include <string>

#include "netdp/core/error.hpp"
#include "netdp/io/results_dir.hpp"

namespace netdp::accounting_checks {

[[noreturn]] inline void bad(const char* parameter, const std::string& what) {
  throw InvalidParameter(parameter, what);
}

/// The Renyi order alpha > 1 and the noise std sigma > 0 of the Gaussian mechanism, both finite.
inline void check_order_and_noise(double alpha, double sigma) {
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    bad("alpha", "alpha must be a finite Renyi order > 1, got " + format_double(alpha));
  if (!(sigma > 0.0) || !std::isfinite(sigma)) bad("sigma", "sigma must be > 0, got " + format_double(sigma));
}

}  // namespace netdp::accounting_checks
