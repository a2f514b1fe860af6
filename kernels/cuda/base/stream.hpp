#pragma once
// RAII owners of the current device (a guard that restores the caller's), CUDA streams and events, and the
// owner of a created handle they and the vendor-library handles of cuda/base/handles.hpp are made of. Runtime
// calls only, so the engines that use them also build for the emulated device (docs/cuda_backend.md).
// Destructors ignore errors (they must not throw).
#include <cuda_runtime_api.h>

#include <utility>

#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {

/// Owns one handle of a create/destroy pair (a stream, an event, a cuBLAS handle, a cuSPARSE descriptor):
/// the create call writes it through put(), `Destroy` releases it (its status ignored). Moves hand it over
/// and leave a null handle, which is never destroyed. As a class's member, it also releases a handle whose
/// set-up failed after the create call (the constructor's throw destroys the members built so far).
template <class Handle, auto Destroy>
class Owned {
 public:
  Owned() = default;
  ~Owned() { release(); }
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      release();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  Handle get() const { return handle_; }
  /// Where a create call writes the new handle (one held before is released first).
  Handle* put() {
    release();
    return &handle_;
  }

 private:
  void release() {
    if (handle_ != Handle{}) (void)Destroy(handle_);
    handle_ = Handle{};
  }
  Handle handle_{};
};

/// Makes `device` current for the guard's lifetime, then restores the previous current device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    NETDP_CUDA_TRY(cudaGetDevice(&previous_));
    NETDP_CUDA_TRY(cudaSetDevice(device));
  }
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

/// A non-blocking CUDA stream.
class Stream {
 public:
  Stream() { NETDP_CUDA_TRY(cudaStreamCreateWithFlags(stream_.put(), cudaStreamNonBlocking)); }

  cudaStream_t get() const { return stream_.get(); }
  void synchronize() const { NETDP_CUDA_TRY(cudaStreamSynchronize(stream_.get())); }

 private:
  Owned<cudaStream_t, cudaStreamDestroy> stream_;
};

/// A CUDA event without timing (cheaper), for ordering host work after queued device work.
class Event {
 public:
  Event() { NETDP_CUDA_TRY(cudaEventCreateWithFlags(event_.put(), cudaEventDisableTiming)); }

  cudaEvent_t get() const { return event_.get(); }
  void record(cudaStream_t stream) const { NETDP_CUDA_TRY(cudaEventRecord(event_.get(), stream)); }
  void synchronize() const { NETDP_CUDA_TRY(cudaEventSynchronize(event_.get())); }

 private:
  Owned<cudaEvent_t, cudaEventDestroy> event_;
};

/// The device an engine lives on: its index, a guard that keeps it current from the engine's construction to
/// the destruction of its last member (declare the context first), and the engine's stream.
struct DeviceContext {
  explicit DeviceContext(int device_index) : device(device_index), guard(device_index) {}
  const int device;
  const DeviceGuard guard;
  const Stream stream;
};

}  // namespace netdp::kernels::cuda
