#pragma once
// Owning device and pinned-host arrays (RAII, move-only): everything is freed on every exit path, exceptions
// included. An allocation that fails for lack of memory throws netdp::InsufficientMemory naming the size.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "cuda/base/runtime_check.hpp"
#include "netdp/ground/errors.hpp"

namespace netdp::kernels::cuda {

namespace detail {
inline void throw_if_out_of_memory(cudaError_t status, const char* what, std::size_t bytes) {
  if (status != cudaErrorMemoryAllocation) return;
  (void)cudaGetLastError();
  throw InsufficientMemory(std::string(what) + " of " + std::to_string(bytes) +
                           " bytes failed: not enough memory (use smaller tiles or device cpu)");
}
}  // namespace detail

/// `size` elements of T in device memory; size 0 holds no allocation (data() == nullptr).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t size) : size_(size) {
    if (size == 0) return;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, bytes());
    detail::throw_if_out_of_memory(status, "cudaMalloc", bytes());
    NETDP_CUDA_TRY(status);
    data_ = static_cast<T*>(p);
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

  /// Asynchronous host -> device copy of host.size() <= size() elements on `stream`.
  void upload(std::span<const T> host, cudaStream_t stream) {
    if (host.empty()) return;
    NETDP_CUDA_TRY(cudaMemcpyAsync(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFree(data_);  // destructors must not throw; cudaFree synchronises
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// `size` elements of T in page-locked host memory, so device -> host copies run at full bandwidth and
/// asynchronously. Kept small (cuda/base/row_staging.hpp stages result rows through two chunks).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t size) : size_(size) {
    if (size == 0) return;
    void* p = nullptr;
    const cudaError_t status = cudaMallocHost(&p, size * sizeof(T));
    detail::throw_if_out_of_memory(status, "cudaMallocHost", size * sizeof(T));
    NETDP_CUDA_TRY(status);
    data_ = static_cast<T*>(p);
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  void release() noexcept {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace netdp::kernels::cuda
