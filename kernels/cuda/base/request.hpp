#pragma once
// Checks every CUDA backend makes before it touches a device: sizes, the source range, the 32-bit offsets of
// the device's CSR copy of W (cuda/propagator.cu) and that the device answers.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "cuda/base/stream.hpp"
#include "device_kernels.hpp"
#include "netdp/ground/errors.hpp"
#include "netdp/ground/views.hpp"

namespace netdp::kernels::cuda {

/// Refuses (DeviceUnavailable) a device ordinal that no CUDA device answers to.
inline void require_device(int device) {
  const int devices = cuda_device_count_impl();
  if (device < 0 || device >= devices)
    throw DeviceUnavailable("CUDA device " + std::to_string(device) + " is not available (" +
                            std::to_string(devices) + " CUDA devices answer)");
}

inline void validate_request(const std::string& model, GraphView graph, CsrView w, node_t first, node_t count,
                             int device) {
  if (graph.n != w.n)
    throw InvalidInput(model + ": W is " + std::to_string(w.n) + " x " + std::to_string(w.n) +
                       " but the graph has " + std::to_string(graph.n) + " nodes");
  if (first < 0 || count < 0 || std::int64_t{first} + count > w.n)
    throw InvalidInput(model + ": sources " + std::to_string(first) + " .. " +
                       std::to_string(std::int64_t{first} + count - 1) + " outside 0 .. " +
                       std::to_string(w.n - 1));
  if (w.nnz() > std::numeric_limits<std::int32_t>::max())
    throw InvalidInput(
        model + " on CUDA: W has " + std::to_string(w.nnz()) +
        " stored entries, more than the 2^31 - 1 that the device's 32-bit CSR offsets allow; use device cpu");
  require_device(device);
}

/// The start of a backend over sources first .. first + count - 1: validate_request, then `device` current
/// while the object lives (DeviceGuard). A request of no sources touches no device: empty(), which the
/// backends answer with an empty run.
class CheckedRequest {
 public:
  CheckedRequest(const std::string& model, GraphView graph, CsrView w, node_t first, node_t count,
                 int device) {
    validate_request(model, graph, w, first, count, device);
    if (count > 0) guard_.emplace(device);
  }

  bool empty() const { return !guard_.has_value(); }

 private:
  std::optional<DeviceGuard> guard_;
};

}  // namespace netdp::kernels::cuda
