// The CUDA backend is loaded on first use (docs/cuda_loader.md): no CUDA library is in a process until a
// device is asked for, and the module opens, answers and refuses what is not a module of this build. In a
// build without CUDA the first two hold trivially and the module tests skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cuda_module.hpp"
#include "netdp/core/device.hpp"
#include "netdp/core/error.hpp"
#include "support/test_support.hpp"

namespace netdp {
namespace {

const char* const kCudaLibraries[] = {"libcudart", "libcublas", "libcusparse", "libcusolver",
                                      "libnetdp_cuda"};

// The CUDA libraries mapped into this process, one per line.
std::string mapped_cuda_libraries() {
  std::string found;
  const std::string maps = testing::read_text("/proc/self/maps");
  for (const char* library : kCudaLibraries)
    if (maps.find(library) != std::string::npos) found += std::string(library) + "\n";
  return found;
}

// First in this file: when the suite runs in one process, nothing before it has asked for a device.
TEST(CudaLoader, NoCudaLibraryIsMappedBeforeADeviceIsAskedFor) {
  (void)resolve_device(parse_device_spec("cpu"));
  EXPECT_EQ(mapped_cuda_libraries(), "");
}

// LD_DEBUG=files makes the dynamic loader name every library it opens, at start or by dlopen.
TEST(CudaLoader, VersionAndACpuRunOpenNoCudaLibrary) {
  testing::ScratchDir dir;
  for (const std::string& args :
       {std::string("--version"),
        "gossip-loss --graph ring:n=6 --steps 3 --device cpu --out " + (dir / "out").string()}) {
    const testing::CliResult r = testing::run_cli(args, "LD_DEBUG=files ");
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.err.find("libstdc++"), std::string::npos) << "LD_DEBUG printed nothing for netdp " << args;
    for (const char* library : kCudaLibraries)
      EXPECT_EQ(r.err.find(library), std::string::npos) << "netdp " << args << " opened " << library;
  }
}

TEST(CudaLoader, TheModuleOfThisBuildOpensAndAnswers) {
  if (!kernels::cuda_backend_built()) GTEST_SKIP() << "a build without CUDA has no module";
  const std::string path = kernels::cuda_module_path();
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const kernels::CudaBackendTable& table = kernels::open_cuda_module(path);
  EXPECT_EQ(std::string(table.signature), kernels::cuda_module_signature());
  const int devices = table.device_count();  // 0 on a machine without a driver or a GPU
  EXPECT_GE(devices, 0);
  EXPECT_EQ(std::string(table.device_name(devices)), "");  // one past the last device has no name
  // The module carries the CUDA libraries: now they are mapped.
  const std::string mapped = mapped_cuda_libraries();
  for (const char* library : kCudaLibraries) EXPECT_NE(mapped.find(library), std::string::npos) << library;
}

TEST(CudaLoader, TheEnvironmentNamesAnotherModule) {
  if (!kernels::cuda_backend_built()) GTEST_SKIP() << "a build without CUDA has no module";
  ASSERT_EQ(setenv("NETDP_CUDA_MODULE", "/elsewhere/libnetdp_cuda.so", 1), 0);
  EXPECT_EQ(kernels::cuda_module_path(), "/elsewhere/libnetdp_cuda.so");
  ASSERT_EQ(unsetenv("NETDP_CUDA_MODULE"), 0);
  EXPECT_NE(kernels::cuda_module_path(), "/elsewhere/libnetdp_cuda.so");
}

TEST(CudaLoader, AMissingOrForeignModuleIsRefusedByName) {
  if (!kernels::cuda_backend_built()) GTEST_SKIP() << "a build without CUDA has no module";
  testing::expect_invalid([] { kernels::open_cuda_module("/nonexistent/libnetdp_cuda.so"); },
                          "/nonexistent/libnetdp_cuda.so");
  testing::expect_invalid([] { kernels::open_cuda_module("libm.so.6"); }, "not a netdp CUDA backend module");
}

}  // namespace
}  // namespace netdp
