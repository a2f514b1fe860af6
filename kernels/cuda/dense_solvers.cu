// cuSOLVER / cuBLAS implementations of dense_solvers.hpp (the emulated device's are in
// kernels/emulated/dense_solvers.cpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/base/cuda_check.hpp"
#include "cuda/base/device_buffer.hpp"
#include "cuda/base/handles.hpp"
#include "cuda/dense_solvers.hpp"

namespace netdp::kernels::cuda {

struct SymmetricEigensolver::State {
  std::int64_t n;
  double* matrix;
  double* values;
  cudaStream_t stream;
  cusolverDnHandle_t handle = nullptr;
  cusolverDnParams_t params = nullptr;  // the default algorithm of each routine
  std::size_t device_work = 0, host_work = 0;

  ~State() {
    if (params) (void)cusolverDnDestroyParams(params);
    if (handle) (void)cusolverDnDestroy(handle);
  }
};

SymmetricEigensolver::SymmetricEigensolver(std::int64_t n, double* matrix, double* values,
                                           cudaStream_t stream)
    : state_(new State{n, matrix, values, stream}) {
  State& s = *state_;
  NETDP_CUDA_TRY(cusolverDnCreate(&s.handle));
  NETDP_CUDA_TRY(cusolverDnSetStream(s.handle, stream));
  NETDP_CUDA_TRY(cusolverDnCreateParams(&s.params));
  // Bit-identical repeated runs (Xsyevd is one of the routines this mode governs).
  NETDP_CUDA_TRY(cusolverDnSetDeterministicMode(s.handle, CUSOLVER_DETERMINISTIC_RESULTS));
  // The 64-bit API: sizes in size_t bytes and int64 dimensions (the 32-bit cusolverDnDsyevd_bufferSize
  // returns an int count of doubles, which overflows from n = 32,767; memory_plan::int_lwork_overflows).
  NETDP_CUDA_TRY(cusolverDnXsyevd_bufferSize(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR,
                                             CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, matrix, n, CUDA_R_64F,
                                             values, CUDA_R_64F, &s.device_work, &s.host_work));
}

SymmetricEigensolver::~SymmetricEigensolver() = default;

std::int64_t SymmetricEigensolver::workspace_bytes() const {
  return static_cast<std::int64_t>(state_->device_work);
}

void SymmetricEigensolver::solve() {
  State& s = *state_;
  DeviceBuffer<std::byte> work(std::max<std::size_t>(s.device_work, 1));
  DeviceBuffer<int> info(1);
  std::vector<std::byte> work_on_host(s.host_work);
  NETDP_CUDA_TRY(cusolverDnXsyevd(s.handle, s.params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_LOWER, s.n,
                                  CUDA_R_64F, s.matrix, s.n, CUDA_R_64F, s.values, CUDA_R_64F, work.data(),
                                  s.device_work, s.host_work > 0 ? work_on_host.data() : nullptr, s.host_work,
                                  info.data()));
  int host_info = 0;
  NETDP_CUDA_TRY(cudaMemcpyAsync(&host_info, info.data(), sizeof(int), cudaMemcpyDeviceToHost, s.stream));
  NETDP_CUDA_TRY(cudaStreamSynchronize(s.stream));  // also before the workspaces go
  if (host_info != 0) {
    throw std::runtime_error("cusolverDnXsyevd returned info = " + std::to_string(host_info) +
                             (host_info > 0 ? " (that many off-diagonal elements did not converge)"
                                            : " (parameter " + std::to_string(-host_info) + " was wrong)"));
  }
}

struct DenseProduct::State {
  explicit State(cudaStream_t stream) : blas(stream) {}
  CublasHandle blas;
};

DenseProduct::DenseProduct(cudaStream_t stream) : state_(std::make_unique<State>(stream)) {}

DenseProduct::~DenseProduct() = default;

void DenseProduct::times_transpose(std::int64_t rows, std::int64_t cols, std::int64_t inner, const double* a,
                                   const double* b, double* c) {
  // node_t is 32-bit: every dimension here is at most n and fits cuBLAS's int.
  const double one = 1.0, zero = 0.0;
  const int m = static_cast<int>(rows), k = static_cast<int>(inner), nc = static_cast<int>(cols);
  NETDP_CUDA_TRY(
      cublasDgemm(state_->blas.get(), CUBLAS_OP_N, CUBLAS_OP_T, m, nc, k, &one, a, m, b, nc, &zero, c, m));
}

}  // namespace netdp::kernels::cuda
