#pragma once
// OpenBLAS's multi-threaded LAPACK reduces in an order that depends on its thread count, so eigenvalues would
// change in the last bits with the machine, the MPI binding or the study's workers. Results must not
// (docs/study.md "Reproducibility"): the dense eigensolvers run with one OpenBLAS thread, one at a time.
#include <cblas.h>

#include <mutex>

namespace netdp::kernels {

class SerialBlas {
 public:
  SerialBlas() : lock_(mutex()), saved_(openblas_get_num_threads()) { openblas_set_num_threads(1); }
  ~SerialBlas() { openblas_set_num_threads(saved_); }
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock_;
  int saved_;
};

}  // namespace netdp::kernels
