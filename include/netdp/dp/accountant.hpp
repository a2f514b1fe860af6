#pragma once
// Events named after mechanisms and accountants named after methods (the dp_accounting shape): build a
// DpEvent, compose(event, count) it into an accountant, then ask get_epsilon(delta) or get_delta(epsilon). An
// accountant that cannot handle an event exactly throws InvalidInput naming the event.
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "netdp/dp/conversion.hpp"
#include "netdp/dp/subsampling.hpp"

namespace netdp::dp {

/// Gaussian mechanism with noise N(0, (noise_multiplier Delta)^2): (alpha, alpha/(2 sigma^2))-RDP,
/// (1/sigma)-GDP.
struct GaussianEvent {
  double noise_multiplier = 0;
};

/// Subsampled Gaussian with sampling rate q, accounted by an SS3 closed form (RDP only). The closed forms
/// hold under their conditions (q < 1/5, sigma >= 4, and for MTZ two conditions on alpha); orders where they
/// fail get no bound (+inf) and are skipped by the conversion.
struct PoissonSampledGaussianEvent {
  double sampling_probability = 0;
  double noise_multiplier = 0;
  SubsampledBound bound = SubsampledBound::mironov_talwar_zhang;
};

/// Laplace mechanism with noise Lap(0, noise_multiplier Delta): (1/b)-DP, exact RDP laplace_rdp (RDP only).
struct LaplaceEvent {
  double noise_multiplier = 0;
};

struct SelfComposedEvent;
struct ComposedEvent;
using DpEvent =
    std::variant<GaussianEvent, PoissonSampledGaussianEvent, LaplaceEvent, SelfComposedEvent, ComposedEvent>;

/// `count` adaptive repetitions of one event.
struct SelfComposedEvent {
  SelfComposedEvent(DpEvent event, std::int64_t count);
  std::shared_ptr<const DpEvent> event;
  std::int64_t count = 0;
};

/// Adaptive composition of a list of events.
struct ComposedEvent {
  std::vector<DpEvent> events;
};

/// The event's name as in messages ("GaussianEvent", ...).
std::string event_name(const DpEvent& event);

/// RDP accountant on a fixed order grid (C5 composition, C6 / improved conversion optimised over the grid).
class RdpAccountant {
 public:
  explicit RdpAccountant(std::vector<double> orders = default_rdp_orders(),
                         RdpConversion conversion = RdpConversion::improved);

  /// Adds `count` (>= 0) adaptive repetitions of the event. Gaussian, PoissonSampledGaussian (SS3), Laplace,
  /// self-composed and composed events are supported; a subsampled event whose closed form holds at no order
  /// throws.
  RdpAccountant& compose(const DpEvent& event, std::int64_t count = 1);

  const RdpCurve& curve() const { return curve_; }
  /// Optimal epsilon at this delta, with the optimal order and the edge-of-grid flag and warning.
  RdpOptimum epsilon_report(double delta) const;
  /// Optimal delta at this epsilon (the conversion's inverse), with the same report fields.
  RdpOptimum delta_report(double epsilon) const;
  double get_epsilon(double delta) const { return epsilon_report(delta).value; }
  double get_delta(double epsilon) const { return delta_report(epsilon).value; }

 private:
  RdpCurve event_curve(const DpEvent& event) const;
  RdpCurve curve_;
  RdpConversion conversion_;
};

/// Gaussian DP accountant: composes Gaussian events exactly, mu = sqrt(sum 1/sigma_i^2) (the trade-off curve
/// of a composition of Gaussian mechanisms is again Gaussian), and converts with the exact G4 profile.
/// Subsampled and Laplace events have no exact GDP form and throw InvalidInput.
class GdpAccountant {
 public:
  GdpAccountant& compose(const DpEvent& event, std::int64_t count = 1);
  double mu() const;
  double get_epsilon(double delta) const;  // G4 inverse; 0 before any event
  double get_delta(double epsilon) const;  // G4; 0 before any event

 private:
  double mu_squared_ = 0;
};

}  // namespace netdp::dp
