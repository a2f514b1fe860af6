// netdp._netdp's pairwise accountant (docs/python.md "Pairwise accountant", docs/dp_toolbox.md "Pairwise
// accountant"): the C++ PairwiseAccountant with events given as the Python event objects of
// python/netdp/_accountant.py (read by their `kind` and fields), matrices as NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "netdp/core/error.hpp"
#include "netdp/dp/gaussian.hpp"
#include "netdp/dp/laplace.hpp"
#include "netdp/dp/pairwise_accountant.hpp"

namespace py = pybind11;

namespace netdp::python {

namespace {

using Matrix = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<double> square(const Matrix& m, std::size_t& n, const char* name) {
  if (m.ndim() != 2 || m.shape(0) != m.shape(1))
    throw InvalidInput(std::string(name) + " must be a square n x n matrix");
  n = std::size_t(m.shape(0));
  return std::vector<double>(m.data(), m.data() + m.size());
}

dp::SubsampledBound bound_named(const std::string& name) {
  for (dp::SubsampledBound b : {dp::SubsampledBound::mironov_talwar_zhang, dp::SubsampledBound::thm_3_10})
    if (dp::to_string(b) == name) return b;
  throw InvalidInput("unknown subsampled bound '" + name + "' (expected " +
                     dp::to_string(dp::SubsampledBound::mironov_talwar_zhang) + " or " +
                     dp::to_string(dp::SubsampledBound::thm_3_10) + ")");
}

dp::DpEvent to_event(py::handle e) {
  const std::string kind = py::cast<std::string>(e.attr("kind"));
  if (kind == "gaussian") return dp::GaussianEvent{py::cast<double>(e.attr("noise_multiplier"))};
  if (kind == "laplace") return dp::LaplaceEvent{py::cast<double>(e.attr("noise_multiplier"))};
  if (kind == "poisson_sampled_gaussian")
    return dp::PoissonSampledGaussianEvent{py::cast<double>(e.attr("sampling_probability")),
                                           py::cast<double>(e.attr("noise_multiplier")),
                                           bound_named(py::cast<std::string>(e.attr("bound")))};
  if (kind == "self_composed")
    return dp::SelfComposedEvent(to_event(e.attr("event")), py::cast<std::int64_t>(e.attr("count")));
  if (kind == "composed") {
    dp::ComposedEvent c;
    for (py::handle inner : e.attr("events")) c.events.push_back(to_event(inner));
    return c;
  }
  throw InvalidInput("not an event of netdp: kind '" + kind + "' (view events compose on their own)");
}

py::dict pair_value(const dp::PairValue& p) {
  py::dict d;
  d["value"] = p.value, d["lower"] = p.lower, d["upper"] = p.upper;
  d["method"] = dp::to_string(p.method), d["order"] = p.order, d["at_grid_edge"] = p.at_grid_edge;
  return d;
}

py::array_t<double> as_matrix(const std::vector<double>& v, std::size_t n) {
  py::array_t<double> a({n, n});
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::dict result_dict(const dp::PairwiseResult& r) {
  py::dict d;
  d["value"] = as_matrix(r.value, r.n), d["lower"] = as_matrix(r.lower, r.n);
  d["upper"] = as_matrix(r.upper, r.n), d["order"] = as_matrix(r.order, r.n);
  py::array_t<std::uint8_t> method({r.n, r.n});
  for (std::size_t i = 0; i < r.method.size(); ++i) method.mutable_data()[i] = std::uint8_t(r.method[i]);
  d["method"] = method;
  d["at_grid_edge"] = r.at_grid_edge;
  return d;
}

py::dict rows_dict(const std::vector<dp::DistanceRow>& rows) {
  std::vector<std::int64_t> distance, pairs;
  std::vector<double> mean, min, max;
  for (const dp::DistanceRow& r : rows) {
    distance.push_back(r.distance), pairs.push_back(std::int64_t(r.pairs));
    mean.push_back(r.mean), min.push_back(r.min), max.push_back(r.max);
  }
  py::dict d;
  d["distance"] = py::array(py::cast(distance)), d["pairs"] = py::array(py::cast(pairs));
  d["mean"] = py::array(py::cast(mean)), d["min"] = py::array(py::cast(min)),
  d["max"] = py::array(py::cast(max));
  return d;
}

dp::PairwiseResult get(const dp::PairwiseAccountant& a, double x, bool epsilon) {
  py::gil_scoped_release release;
  return epsilon ? a.get_epsilon(x) : a.get_delta(x);
}

}  // namespace

void bind_accountant(py::module_& m) {
  using dp::PairwiseAccountant;
  py::class_<PairwiseAccountant>(m, "PairwiseAccountant")
      .def(py::init([](std::size_t n, std::vector<double> orders, const std::string& conversion) {
             return PairwiseAccountant(n, orders.empty() ? dp::default_rdp_orders() : orders,
                                       dp::parse_rdp_conversion(conversion));
           }),
           py::arg("n"), py::arg("orders"), py::arg("conversion"))
      .def("compose_event",
           [](PairwiseAccountant& a, py::handle e, std::int64_t count) { a.compose(to_event(e), count); })
      .def("compose_gaussian_view",
           [](PairwiseAccountant& a, const Matrix& mu, std::int64_t count) {
             std::size_t n = 0;
             std::vector<double> values = square(mu, n, "mu");
             a.compose(dp::GaussianViewEvent{n, std::move(values)}, count);
           })
      .def("compose_walk_view",
           [](PairwiseAccountant& a, const Matrix& c, double max_order, std::int64_t count) {
             std::size_t n = 0;
             std::vector<double> values = square(c, n, "coefficient");
             a.compose(dp::WalkViewEvent{n, std::move(values), max_order}, count);
           })
      .def_property_readonly("n", &PairwiseAccountant::size)
      .def_property_readonly("orders", &PairwiseAccountant::orders)
      .def("method", [](const PairwiseAccountant& a, std::size_t u,
                        std::size_t v) { return dp::to_string(a.method(u, v)); })
      .def("mu", &PairwiseAccountant::mu)
      .def("curve",
           [](const PairwiseAccountant& a, std::size_t u, std::size_t v) { return a.curve(u, v).epsilons; })
      .def("epsilon", [](const PairwiseAccountant& a, std::size_t u, std::size_t v,
                         double delta) { return pair_value(a.epsilon(u, v, delta)); })
      .def("delta", [](const PairwiseAccountant& a, std::size_t u, std::size_t v,
                       double epsilon) { return pair_value(a.delta(u, v, epsilon)); })
      .def("get", [](const PairwiseAccountant& a, double x,
                     bool epsilon) { return result_dict(get(a, x, epsilon)); })
      .def("maximum",
           [](const PairwiseAccountant& a, double x, bool epsilon) {
             const dp::PairMaximum best = dp::max_over_pairs(get(a, x, epsilon));
             return py::make_tuple(best.value, best.u, best.v);
           })
      .def("by_distance", [](const PairwiseAccountant& a, double x, bool epsilon,
                             py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> distance) {
        const std::span<const std::int64_t> d(distance.data(), std::size_t(distance.size()));
        return rows_dict(dp::by_distance(get(a, x, epsilon), d));
      });
  m.def(
      "gdp_epsilon", [](double mu, double delta) { return dp::gdp_epsilon(mu, delta); }, py::arg("mu"),
      py::arg("delta"));
  m.def(
      "gdp_delta", [](double mu, double epsilon) { return dp::gdp_delta(mu, epsilon); }, py::arg("mu"),
      py::arg("epsilon"));
  m.def(
      "gdp_log_delta", [](double mu, double epsilon) { return dp::gdp_log_delta(mu, epsilon); },
      py::arg("mu"), py::arg("epsilon"));
  m.def(
      "laplace_rdp", [](double alpha, double b) { return dp::laplace_rdp(alpha, b); }, py::arg("alpha"),
      py::arg("noise_multiplier"));
}

}  // namespace netdp::python
