// The emulated device's dense routines (cuda/dense_solvers.hpp): LAPACKE dsyevd and CBLAS dgemm on the
// column-major buffers the engine hands to cuSOLVER and cuBLAS on a GPU (work "queued on a stream" is done
// when the call returns), as the CPU twin calls them (kernels/cpu/walk_loss_cpu.cpp): the same bits, so the
// walk-loss twins compare byte for byte here (docs/cuda_backend.md "Walk-loss twins").
#include "cuda/dense_solvers.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "netdp/ground/serial_blas.hpp"

namespace netdp::kernels::cuda {

struct SymmetricEigensolver::State {
  std::int64_t n;
  double* matrix;
  double* values;
};

SymmetricEigensolver::SymmetricEigensolver(std::int64_t n, double* matrix, double* values, cudaStream_t)
    : state_(new State{n, matrix, values}) {}

SymmetricEigensolver::~SymmetricEigensolver() = default;

std::int64_t SymmetricEigensolver::workspace_bytes() const {
  return 0;
}

void SymmetricEigensolver::solve() {
  const State& s = *state_;
  // cuSOLVER reads the lower triangle of the column-major W (FILL_MODE_LOWER). Transposed in place, those
  // values are the upper triangle of the CPU twin's buffer, byte for byte (symmetric_eigen_cpu: row-major W,
  // 'U'), so the CPU's call gives the CPU's eigenpairs here, whatever W's last bits above the diagonal.
  const std::int64_t n = s.n;
  for (std::int64_t col = 0; col < n; ++col)
    for (std::int64_t row = col + 1; row < n; ++row)
      std::swap(s.matrix[row + col * n], s.matrix[col + row * n]);
  use_single_threaded_blas();
  const auto ln = static_cast<lapack_int>(n);
  const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', ln, s.matrix, ln, s.values);
  if (info != 0) throw std::runtime_error("LAPACKE_dsyevd returned info = " + std::to_string(info));
}

struct DenseProduct::State {};

DenseProduct::DenseProduct(cudaStream_t) : state_(new State) {}

DenseProduct::~DenseProduct() = default;

void DenseProduct::times_transpose(std::int64_t rows, std::int64_t cols, std::int64_t inner, const double* a,
                                   const double* b, double* c) {
  // C = A B^T (column-major), computed as the CPU twin's spectral product (walk_spectral_rows_cpu): the
  // row-major cols x inner B times A^T by gemm_row_block in blocks of kGemmRows rows; its row-major
  // cols x rows result is the column-major rows x cols C. The same GEMM shapes on the same bytes as the CPU
  // twin, so the same bits (OpenBLAS picks its kernel by shape); on a GPU cuBLAS is the routine that differs.
  std::vector<double> left(static_cast<std::size_t>(cols * inner));
  for (std::int64_t r = 0; r < cols; ++r)
    for (std::int64_t i = 0; i < inner; ++i) left[static_cast<std::size_t>(r * inner + i)] = b[r + i * cols];
  for (std::int64_t r0 = 0; r0 < cols; r0 += kGemmRows)
    gemm_row_block(left.data() + r0 * inner, std::min(kGemmRows, cols - r0), inner, a, rows, c + r0 * rows);
}

}  // namespace netdp::kernels::cuda
