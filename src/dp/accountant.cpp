#include "netdp/dp/accountant.hpp"

#include <cmath>
#include <type_traits>

#include "checks.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/laplace.hpp"

namespace netdp::dp {
using namespace detail;

SelfComposedEvent::SelfComposedEvent(DpEvent e, std::int64_t c)
    : event(std::make_shared<const DpEvent>(std::move(e))), count(c) {}

std::string event_name(const DpEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) return "GaussianEvent";
        if constexpr (std::is_same_v<T, PoissonSampledGaussianEvent>) return "PoissonSampledGaussianEvent";
        if constexpr (std::is_same_v<T, LaplaceEvent>) return "LaplaceEvent";
        if constexpr (std::is_same_v<T, SelfComposedEvent>) return "SelfComposedEvent";
        if constexpr (std::is_same_v<T, ComposedEvent>) return "ComposedEvent";
      },
      event);
}

namespace {
void check_count(const char* f, std::int64_t count) {
  require(count >= 0, f, "count", double(count), ">= 0");
}
void check_self(const char* f, const SelfComposedEvent& e) {
  if (!e.event) throw InvalidInput(std::string(f) + ": SelfComposedEvent holds no event");
  check_count(f, e.count);
}
}  // namespace

RdpAccountant::RdpAccountant(std::vector<double> orders, RdpConversion conversion) : conversion_(conversion) {
  if (orders.empty()) throw InvalidInput("RdpAccountant: the order grid is empty");
  for (double a : orders) require_order("RdpAccountant", a, "order");
  curve_.orders = std::move(orders);
  curve_.epsilons.assign(curve_.orders.size(), 0.0);
}

RdpCurve RdpAccountant::event_curve(const DpEvent& event) const {
  const char* f = "RdpAccountant::compose";
  RdpCurve c{curve_.orders, std::vector<double>(curve_.orders.size(), 0.0)};
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          for (std::size_t i = 0; i < c.orders.size(); ++i)
            c.epsilons[i] = gaussian_rdp(c.orders[i], e.noise_multiplier);  // G1
        } else if constexpr (std::is_same_v<T, PoissonSampledGaussianEvent>) {
          bool any = false;
          for (std::size_t i = 0; i < c.orders.size(); ++i) {
            const double a = c.orders[i];
            const bool ok =
                subsampled_gaussian_rdp_valid(e.bound, a, e.sampling_probability, e.noise_multiplier);
            c.epsilons[i] =
                ok ? subsampled_gaussian_rdp(e.bound, a, e.sampling_probability, e.noise_multiplier)
                   : INFINITY;  // SS3 says nothing at this order
            any = any || ok;
          }
          if (!any) {  // report the reason at the smallest order
            subsampled_gaussian_rdp(e.bound, c.orders.front(), e.sampling_probability, e.noise_multiplier);
            throw InvalidInput(std::string(f) + ": PoissonSampledGaussianEvent (" + to_string(e.bound) +
                               ") has a valid closed form at no order of the grid");
          }
        } else if constexpr (std::is_same_v<T, LaplaceEvent>) {
          for (std::size_t i = 0; i < c.orders.size(); ++i)
            c.epsilons[i] = laplace_rdp(c.orders[i], e.noise_multiplier);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          check_self(f, e);
          c = self_compose_rdp(event_curve(*e.event), double(e.count));
        } else {
          for (const DpEvent& inner : e.events) c = compose_rdp(c, event_curve(inner));
        }
      },
      event);
  return c;
}

RdpAccountant& RdpAccountant::compose(const DpEvent& event, std::int64_t count) {
  check_count("RdpAccountant::compose", count);
  curve_ = compose_rdp(curve_, self_compose_rdp(event_curve(event), double(count)));  // C5
  return *this;
}

RdpOptimum RdpAccountant::epsilon_report(double delta) const {
  return rdp_curve_to_epsilon(curve_, delta, conversion_);
}

RdpOptimum RdpAccountant::delta_report(double epsilon) const {
  return rdp_curve_to_delta(curve_, epsilon, conversion_);
}

namespace {
// Sum of mu^2 over the event (Gaussian trade-off curves compose in quadrature).
double gdp_mu_squared(const DpEvent& event) {
  const char* f = "GdpAccountant::compose";
  return std::visit(
      [&](const auto& e) -> double {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          require_positive(f, "noise_multiplier", e.noise_multiplier);
          return 1 / (e.noise_multiplier * e.noise_multiplier);
        } else if constexpr (std::is_same_v<T, PoissonSampledGaussianEvent>) {
          throw InvalidInput(
              std::string(f) +
              ": PoissonSampledGaussianEvent is not supported (a subsampled Gaussian is not exactly "
              "GDP); use RdpAccountant");
        } else if constexpr (std::is_same_v<T, LaplaceEvent>) {
          throw InvalidInput(
              std::string(f) +
              ": LaplaceEvent is not supported (the Laplace mechanism is not GDP); use RdpAccountant");
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          check_self(f, e);
          return e.count == 0 ? 0.0 : double(e.count) * gdp_mu_squared(*e.event);
        } else {
          double sum = 0;
          for (const DpEvent& inner : e.events) sum += gdp_mu_squared(inner);
          return sum;
        }
      },
      event);
}
}  // namespace

GdpAccountant& GdpAccountant::compose(const DpEvent& event, std::int64_t count) {
  check_count("GdpAccountant::compose", count);
  const double add = gdp_mu_squared(event);  // validates even when count = 0
  if (count > 0) mu_squared_ += double(count) * add;
  return *this;
}

double GdpAccountant::mu() const {
  return std::sqrt(mu_squared_);
}

double GdpAccountant::get_epsilon(double delta) const {
  require_open_unit("GdpAccountant::get_epsilon", "delta", delta);
  return mu_squared_ == 0 ? 0.0 : gdp_epsilon(mu(), delta);
}

double GdpAccountant::get_delta(double epsilon) const {
  require_nonnegative("GdpAccountant::get_delta", "epsilon", epsilon);
  return mu_squared_ == 0 ? 0.0 : gdp_delta(mu(), epsilon);
}

}  // namespace netdp::dp
