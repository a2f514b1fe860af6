// The emulated device's Propagator (emulated/cuda/propagator.hpp): the node-major product with the CPU
// engines' CSR product.
#include "cuda/propagator.hpp"

#include <cstdint>

#include "common/csr_product.hpp"
#include "common/for_each.hpp"

namespace netdp::kernels::cuda {

Propagator::Propagator(CsrView w, cudaStream_t) : w_(w) {}

std::int64_t Propagator::device_bytes() const {
  return static_cast<std::int64_t>(w_.offsets.size() * sizeof(w_.offsets[0]) +
                                   w_.columns.size() * sizeof(w_.columns[0]) +
                                   w_.values.size() * sizeof(double));
}

void Propagator::apply_rows(const double* x, double* y, std::int64_t cols) const {
  host_for_each(w_.n, [&](std::int64_t row) {
    csr_row_product(w_.offsets.data(), w_.columns.data(), w_.values.data(), row, x, cols, y);
  });
}

}  // namespace netdp::kernels::cuda
