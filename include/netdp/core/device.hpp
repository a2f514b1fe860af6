#pragma once
// Device selection: `--device auto|cpu|cuda[:N]` (docs/design.md "Conventions").
#include <cstddef>
#include <string>
#include <string_view>

namespace netdp {

enum class DeviceKind { automatic, cpu, cuda };

struct DeviceSpec {
  DeviceKind kind = DeviceKind::automatic;
  int index = 0;  // CUDA ordinal for cuda[:N]
};
DeviceSpec parse_device_spec(std::string_view text);

/// A concrete choice: cpu, or cuda with an ordinal that answered.
struct ResolvedDevice {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  std::string name;  // "cpu (2 threads)" or "cuda:0 (NVIDIA H100 ...)"
  std::string note;  // why auto chose what it chose; empty for explicit requests
};

/// auto -> CUDA when a device answers, else the CPU; cuda with no device -> DeviceUnavailable.
ResolvedDevice resolve_device(const DeviceSpec& spec);

/// Number of CUDA devices that answer (0 in a build without CUDA or on a machine without a GPU).
int cuda_device_count();

/// "" when a CUDA device answers, else why none does: a build without CUDA, the backend module that could not
/// be loaded (the dynamic loader's text, a module of another build), or the module's device query that
/// found none (the CUDA runtime's error); docs/cuda_loader.md "Why no device answers".
std::string no_cuda_device_reason();

/// NETDP_REQUIRE_CUDA=1 in the environment (docs/cuda_backend.md "The GPU check"): a CUDA test that finds no
/// device fails instead of skipping, and --device auto fails instead of falling back to the CPU.
bool cuda_required();

/// Bytes read + written per second by a device-to-device copy of `bytes` bytes on CUDA device `device` (best
/// of 5; the memory-bandwidth floor of the benchmarks). 0 in a build without CUDA or when no device answers.
double cuda_copy_bandwidth(int device, std::size_t bytes);

}  // namespace netdp
