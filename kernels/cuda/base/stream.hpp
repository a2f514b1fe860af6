#pragma once
// RAII owners of the current device (a guard that restores the caller's), CUDA streams and events. Runtime
// calls only, so the engines that use them also build for the emulated device (docs/cuda_backend.md);
// the vendor-library handles are in cuda/base/handles.hpp. Destructors ignore errors (they must not throw).
#include <cuda_runtime_api.h>

#include <utility>

#include "cuda/base/runtime_check.hpp"

namespace netdp::kernels::cuda {

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

class Stream {
 public:
  Stream() { NETDP_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const { NETDP_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A CUDA event without timing (cheaper), for ordering host work after queued device work.
class Event {
 public:
  Event() { NETDP_CUDA_TRY(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      if (event_ != nullptr) (void)cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const { NETDP_CUDA_TRY(cudaEventRecord(event_, stream)); }
  void synchronize() const { NETDP_CUDA_TRY(cudaEventSynchronize(event_)); }

 private:
  cudaEvent_t event_ = nullptr;
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
