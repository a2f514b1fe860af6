#pragma once
// What the device layer asks of the CUDA backend (kernels/cuda/device_query.cu; kernels/stubs/device_stub.cpp
// in builds without CUDA). Never throws: a machine without a driver or a GPU has 0 devices.
#include <cstddef>
#include <string>

namespace netdp::kernels {

/// True in builds with the CUDA backend (the stubs answer false).
bool cuda_backend_built();

/// Why no CUDA device can answer, "" when the backend is there: a CUDA build whose backend module was not
/// loaded says why (no driver, the module not found; docs/cuda_loader.md). "" in the stubs.
std::string cuda_unavailable_reason();

/// Number of CUDA devices that answer, and a device's name ("" when absent).
int cuda_device_count_impl();
const char* cuda_device_name_impl(int device);

/// Bytes read + written per second by a device-to-device copy (best of 5); 0 without a device.
double cuda_copy_bandwidth_impl(int device, std::size_t bytes);

}  // namespace netdp::kernels
