#pragma once
// netdp parallelises with OpenMP and calls OpenBLAS single-threaded. OpenBLAS's threaded GEMM, GEMV and
// LAPACK reduce in an order that depends on its thread count, so the last bits of eigenvalues and loss
// matrices would change with the machine, the MPI binding or a study's workers; results must not
// (docs/study.md "Reproducibility"). Every BLAS/LAPACK call site calls this first; it costs one check after
// the first call.
#include <cblas.h>

namespace netdp::kernels {

inline void use_single_threaded_blas() {
  static const bool once = (openblas_set_num_threads(1), true);
  (void)once;
}

}  // namespace netdp::kernels
