// Device selection (netdp/core/device.hpp): the one place that decides which backend answers. It lives in the
// lowest library layer above the backends (accounting) because it asks the CUDA backend (or its stubs) which
// devices exist, through the interface of kernels/device_kernels.hpp; the backends include no library header
// (docs/cuda_backend.md "The ground").
#include "netdp/core/device.hpp"

#include <omp.h>

#include <charconv>
#include <cstdlib>
#include <string>

#include "device_kernels.hpp"
#include "netdp/core/error.hpp"

namespace netdp {

DeviceSpec parse_device_spec(std::string_view text) {
  if (text == "auto") return {DeviceKind::automatic, 0};
  if (text == "cpu") return {DeviceKind::cpu, 0};
  if (text == "cuda") return {DeviceKind::cuda, 0};
  // cuda:N, and auto:N = cuda:(N mod devices) when a device answers, else the CPU (study workers)
  for (auto [prefix, kind] : {std::pair{std::string_view("cuda:"), DeviceKind::cuda},
                              std::pair{std::string_view("auto:"), DeviceKind::automatic}}) {
    if (!text.starts_with(prefix)) continue;
    auto digits = text.substr(prefix.size());
    int index = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec == std::errc() && end == digits.data() + digits.size() && index >= 0) return {kind, index};
  }
  throw InvalidParameter(
      "device", "device: expected auto, auto:N, cpu, cuda or cuda:N, got '" + std::string(text) + "'");
}

int cuda_device_count() {
  return kernels::cuda_device_count_impl();
}

std::string no_cuda_device_reason() {
  if (!kernels::cuda_backend_built())
    return "this netdp was built without CUDA (configure with -DNETDP_CUDA=ON)";
  if (cuda_device_count() > 0) return "";
  const std::string reason = kernels::cuda_unavailable_reason();
  return "no CUDA device answers on this machine" + (reason.empty() ? "" : " (" + reason + ")");
}

bool cuda_required() {
  const char* value = std::getenv("NETDP_REQUIRE_CUDA");
  return value && std::string_view(value) == "1";
}

double cuda_copy_bandwidth(int device, std::size_t bytes) {
  if (device < 0 || device >= cuda_device_count()) return 0;
  return kernels::cuda_copy_bandwidth_impl(device, bytes);
}

ResolvedDevice resolve_device(const DeviceSpec& spec) {
  ResolvedDevice cpu{DeviceKind::cpu, 0, "cpu (" + std::to_string(omp_get_max_threads()) + " threads)", ""};
  if (spec.kind == DeviceKind::cpu) return cpu;
  const int devices = cuda_device_count();
  if (spec.kind == DeviceKind::automatic) {
    if (devices == 0 && cuda_required())
      throw DeviceUnavailable("device auto: " + no_cuda_device_reason() + " [NETDP_REQUIRE_CUDA=1]");
    if (devices == 0) {
      cpu.note = kernels::cuda_backend_built() ? "auto: no CUDA device answered, using the CPU"
                                               : "auto: this build has no CUDA backend, using the CPU";
      return cpu;
    }
  } else if (spec.index >= devices) {
    if (!kernels::cuda_backend_built())
      throw DeviceUnavailable(
          "device cuda: this netdp was built without CUDA (configure with -DNETDP_CUDA=ON)");
    // The loader's reason whenever no device answers (a missing library, a foreign module, the runtime's
    // error), so that a broken installation is never read as a machine without a GPU.
    throw DeviceUnavailable(
        "device cuda:" + std::to_string(spec.index) + ": " +
        (devices == 0 ? no_cuda_device_reason() : std::to_string(devices) + " CUDA device(s) found") +
        (cuda_required() ? " [NETDP_REQUIRE_CUDA=1]" : ""));
  }
  const int index = spec.kind == DeviceKind::automatic ? spec.index % devices : spec.index;
  return {
      DeviceKind::cuda, index,
      "cuda:" + std::to_string(index) + " (" + kernels::cuda_device_name_impl(index) + ")",
      spec.kind == DeviceKind::automatic ? "auto: CUDA device " + std::to_string(index) + " answered" : ""};
}

}  // namespace netdp
