// The emulated device's dense routines (cuda/dense_solvers.hpp): LAPACKE dsyevd and CBLAS dgemm on the
// column-major buffers the engine hands to cuSOLVER and cuBLAS on a GPU (work "queued on a stream" is done
// when the call returns).
#include "cuda/dense_solvers.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <stdexcept>
#include <string>

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
  const auto n = static_cast<lapack_int>(s.n);
  const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'L', n, s.matrix, n, s.values);
  if (info != 0) throw std::runtime_error("LAPACKE_dsyevd returned info = " + std::to_string(info));
}

struct DenseProduct::State {};

DenseProduct::DenseProduct(cudaStream_t) : state_(new State) {}

DenseProduct::~DenseProduct() = default;

void DenseProduct::times_transpose(std::int64_t rows, std::int64_t cols, std::int64_t inner, const double* a,
                                   const double* b, double* c) {
  const int m = static_cast<int>(rows), k = static_cast<int>(inner), nc = static_cast<int>(cols);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, nc, k, 1.0, a, m, b, nc, 0.0, c, m);
}

}  // namespace netdp::kernels::cuda
