#pragma once
// Noise calibration by bisection (docs/math.md §4.3.3 [RECON]: epsilon(sigma) is monotone, so bisection is
// exact).
#include <functional>

namespace netdp::dp {

struct CalibrationOptions {
  double relative_tolerance = 1e-9;  // the returned sigma is within this relative distance of the threshold
  double initial_sigma = 1.0;        // bracket search starts here, doubling up or halving down
  double min_sigma = 1e-12;          // halving stops here (then min_sigma's bracket end is returned)
  double max_sigma = 1e12;           // doubling past this means the target is unreachable: InvalidInput
};

/// The smallest sigma with epsilon_of_sigma(sigma) <= target, for any accountant whose epsilon does not
/// increase with sigma. Returns the upper end of the final bracket, so the result always meets the target,
/// while sigma (1 - relative_tolerance) does not (for a strictly decreasing epsilon). Return +infinity from
/// epsilon_of_sigma where the accountant has no bound (e.g. a closed form outside its conditions); NaN is
/// InvalidInput. Works for any monotone quantity (e.g. delta at fixed epsilon).
double calibrate_sigma(const std::function<double(double sigma)>& epsilon_of_sigma, double target,
                       const CalibrationOptions& options = {});

/// The smallest absolute std s with gdp_delta(Delta/s, epsilon) <= delta (exact profile G3; Balle-Wang).
/// For (1, 1e-5) and Delta = 1 this is about 3.73, below the classic G2 value 4.8448
/// (gaussian_sigma_classic).
double gaussian_sigma_exact(double epsilon, double delta, double sensitivity = 1.0,
                            const CalibrationOptions& options = {});

}  // namespace netdp::dp
