// The emulated device's Propagator (emulated/cuda/propagator.hpp): y[:, j] = W x[:, j] for each column of a
// column-major n x cols block, with the CPU engines' CSR product.
#include "cuda/propagator.hpp"

#include <cstdint>

#include "common/csr_product.hpp"
#include "common/for_each.hpp"

namespace netdp::kernels::cuda {

Propagator::Propagator(CsrView w, bool, cudaStream_t) : w_(w) {}

std::int64_t Propagator::device_bytes() const {
  return static_cast<std::int64_t>(w_.offsets.size() * sizeof(w_.offsets[0]) +
                                   w_.columns.size() * sizeof(w_.columns[0]) +
                                   w_.values.size() * sizeof(double));
}

void Propagator::reserve(const double*, double*, std::int64_t) {}

void Propagator::apply(const double* x, double* y, std::int64_t cols) {
  const std::int64_t n = w_.n;
  host_for_each(cols, [&](std::int64_t j) {
    for (std::int64_t row = 0; row < n; ++row)
      csr_row_product<1>(w_.offsets.data(), w_.columns.data(), w_.values.data(), row, x + j * n, 1,
                         y + j * n);
  });
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) {
  host_for_each(w_.n, [&](std::int64_t row) {
    csr_row_product(w_.offsets.data(), w_.columns.data(), w_.values.data(), row, x, cols, y);
  });
}

}  // namespace netdp::kernels::cuda
