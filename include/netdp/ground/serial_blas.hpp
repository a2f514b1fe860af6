#pragma once
// The ground (docs/design.md "The ground"), shared by the CPU backend and the library: netdp parallelises
// with OpenMP and calls OpenBLAS single-threaded. OpenBLAS's threaded GEMM, GEMV and LAPACK reduce in an
// order that depends on its thread count, so the last bits of eigenvalues and loss matrices would change with
// the machine, the MPI binding or a study's workers; results must not (docs/study.md "Reproducibility").
// Every BLAS/LAPACK call site calls this first; it costs one check after the first call.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace netdp::kernels {

inline void use_single_threaded_blas() {
  static const bool once = (openblas_set_num_threads(1), true);
  (void)once;
}

/// Rows per GEMM call of gemm_row_block.
inline constexpr std::int64_t kGemmRows = 32;

/// C = A B for one block of rows <= kGemmRows (row-major: A rows x k, B k x n, C rows x n), always as a GEMM
/// of exactly kGemmRows rows (a short block is zero-padded). OpenBLAS chooses its kernel by shape (on AVX-512
/// a small-matrix kernel for few rows, which rounds differently), so one fixed shape gives a row the same
/// bits whichever block, tile or source range it is computed in.
inline void gemm_row_block(const double* a, std::int64_t rows, std::int64_t k, const double* b,
                           std::int64_t n, double* c) {
  use_single_threaded_blas();
  const auto gemm = [&](const double* left, double* out) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(kGemmRows), static_cast<int>(n),
                static_cast<int>(k), 1.0, left, static_cast<int>(k), b, static_cast<int>(n), 0.0, out,
                static_cast<int>(n));
  };
  if (rows == kGemmRows) return gemm(a, c);
  std::vector<double> left(static_cast<std::size_t>(kGemmRows * k), 0.0),
      out(static_cast<std::size_t>(kGemmRows * n));
  std::copy(a, a + rows * k, left.begin());
  gemm(left.data(), out.data());
  std::copy(out.begin(), out.begin() + rows * n, c);
}

}  // namespace netdp::kernels
