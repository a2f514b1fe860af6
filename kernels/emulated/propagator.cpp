// The emulated device's Propagator (emulated/cuda/propagator.hpp): y[:, j] = W x[:, j] for each column of a
// column-major n x cols block by the device's body (propagation::CsrColumnsProductBody, the CPU engines' CSR
// order), and the node-major product with the CPU engines' CSR product.
#include "cuda/propagator.hpp"

#include <cstdint>

#include "common/csr_product.hpp"
#include "common/for_each.hpp"
#include "common/propagation_bodies.hpp"

namespace netdp::kernels::cuda {

Propagator::Propagator(CsrView w, bool, cudaStream_t) : w_(w) {}

std::int64_t Propagator::device_bytes() const {
  return static_cast<std::int64_t>(w_.offsets.size() * sizeof(w_.offsets[0]) +
                                   w_.columns.size() * sizeof(w_.columns[0]) +
                                   w_.values.size() * sizeof(double));
}

void Propagator::reserve(const double*, double*, std::int64_t) {}

void Propagator::apply(const double* x, double* y, std::int64_t cols) {
  // The device's body (cuda/propagator.cu): the CPU twins' CSR order, column by column.
  host_for_each_2d(w_.n, cols,
                   propagation::CsrColumnsProductBody<offset_t, node_t>{w_.offsets.data(), w_.columns.data(),
                                                                        w_.values.data(), x, w_.n, y});
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) {
  host_for_each(w_.n, [&](std::int64_t row) {
    csr_row_product(w_.offsets.data(), w_.columns.data(), w_.values.data(), row, x, cols, y);
  });
}

}  // namespace netdp::kernels::cuda
