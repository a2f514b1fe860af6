#pragma once
// The two dense vendor routines of the walk accountant's spectral method (docs/math.md §5.3), behind a small
// interface so that the engine around them is the same source on the GPU and on the emulated device
// (docs/cuda_backend.md "The emulated device"): cuSOLVER's 64-bit symmetric eigensolver and cuBLAS DGEMM in
// dense_solvers.cu, LAPACKE dsyevd and CBLAS dgemm in kernels/emulated/dense_solvers.cpp. Column-major
// matrices on the device, work queued on `stream`.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

namespace netdp::kernels::cuda {

/// W = V diag(lambda) V^T for a symmetric n x n matrix, in place.
class SymmetricEigensolver {
 public:
  /// `matrix` (n x n, ld n; either triangle read) and `values` (n) stay owned by the caller.
  SymmetricEigensolver(std::int64_t n, double* matrix, double* values, cudaStream_t stream);
  ~SymmetricEigensolver();
  SymmetricEigensolver(const SymmetricEigensolver&) = delete;
  SymmetricEigensolver& operator=(const SymmetricEigensolver&) = delete;

  /// Device workspace that solve() allocates (for the caller's memory plan).
  std::int64_t workspace_bytes() const;

  /// matrix <- the orthonormal eigenvectors (column i = phi_i), values <- the eigenvalues in ascending
  /// order. Bit-identical between runs; synchronises the stream; throws std::runtime_error on failure.
  void solve();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// c = a b^T: a is rows x inner (ld rows), b is cols x inner (ld cols), c is rows x cols (ld rows).
class DenseProduct {
 public:
  explicit DenseProduct(cudaStream_t stream);
  ~DenseProduct();
  DenseProduct(const DenseProduct&) = delete;
  DenseProduct& operator=(const DenseProduct&) = delete;

  void times_transpose(std::int64_t rows, std::int64_t cols, std::int64_t inner, const double* a,
                       const double* b, double* c);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace netdp::kernels::cuda
