// The CUDA backend is loaded on first use (docs/cuda_loader.md): no CUDA library is in a process until a
// device is asked for, and the module opens, answers and refuses what is not a module of this build; where no
// device answers, the refusal names the loader's reason. In a build without CUDA the first two hold trivially
// and the module tests skip (fail under NETDP_REQUIRE_CUDA=1).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cuda_signature.hpp"
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

// The module tests need a CUDA build; under NETDP_REQUIRE_CUDA=1 a build without CUDA fails them.
#define NETDP_NEEDS_CUDA_BUILD()                                                                \
  do {                                                                                          \
    if (!kernels::cuda_backend_built()) {                                                       \
      if (cuda_required()) GTEST_FAIL() << "NETDP_REQUIRE_CUDA=1: " << no_cuda_device_reason(); \
      GTEST_SKIP() << "a build without CUDA has no module";                                     \
    }                                                                                           \
  } while (false)

TEST(CudaLoader, TheModuleOfThisBuildOpensAndAnswers) {
  NETDP_NEEDS_CUDA_BUILD();
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
  NETDP_NEEDS_CUDA_BUILD();
  // The GPU check names the bundle's module this way: it is given back for the cases after this one.
  const char* given = std::getenv("NETDP_CUDA_MODULE");
  const std::string saved = given ? given : "";
  ASSERT_EQ(setenv("NETDP_CUDA_MODULE", "/elsewhere/libnetdp_cuda.so", 1), 0);
  EXPECT_EQ(kernels::cuda_module_path(), "/elsewhere/libnetdp_cuda.so");
  ASSERT_EQ(unsetenv("NETDP_CUDA_MODULE"), 0);
  EXPECT_NE(kernels::cuda_module_path(), "/elsewhere/libnetdp_cuda.so");
  if (given) {
    ASSERT_EQ(setenv("NETDP_CUDA_MODULE", saved.c_str(), 1), 0);
  }
}

TEST(CudaLoader, AMissingOrForeignModuleIsRefusedByName) {
  NETDP_NEEDS_CUDA_BUILD();
  testing::expect_invalid([] { kernels::open_cuda_module("/nonexistent/libnetdp_cuda.so"); },
                          "/nonexistent/libnetdp_cuda.so");
  testing::expect_invalid([] { kernels::open_cuda_module("libm.so.6"); }, "not a netdp CUDA backend module");
}

// The signature (cuda_signature.hpp) names every struct of cuda_engines.hpp's layout list with its members,
// the engines' classes with their methods, the enumerations with their values, and every engine of the list.
TEST(CudaLoader, TheSignatureCoversTheLayoutsAndTheEngines) {
  const std::string signature = kernels::cuda_module_signature();
  EXPECT_EQ(signature.rfind(kernels::kCudaSignatureVersion, 0), 0u) << signature;
  for (const char* item :
       {"struct GossipLossProblem size ", "GossipLossProblem.graph at 0 ", "struct WalkRunSpec size ",
        "WalkRunSpec.start_node at ", "GossipSimVaryingProblem.edge_probability at ",
        "walk::PairLosses.max at ", "class LossRowSink size ", "WalkAccountedCudaEngine::set_cycle_terms ",
        "WalkKind::directed_ring = 4;", "VaryingProtocol::er_per_round = 3;",
        "VaryingProtocol::dropout_er = 4;", "struct CudaBackendTable size ", "device_count_error "})
    EXPECT_NE(signature.find(item), std::string::npos) << item << " in " << signature;
#define NETDP_EXPECT_ENGINE(name, ...) \
  EXPECT_NE(signature.find(";" #name " "), std::string::npos) << #name << " in " << signature;
  NETDP_CUDA_ENGINES(NETDP_EXPECT_ENGINE)
#undef NETDP_EXPECT_ENGINE
}

// Two layouts of the same struct with the same size whose members trade places: only the offsets differ,
// and the difference names the first member that moved.
namespace before {
struct Spec {
  double eps0, delta;
};
}  // namespace before
namespace after {
struct Spec {
  double delta, eps0;
};
}  // namespace after
template <class Spec>
std::string spec_layout() {
  std::string s;
  NETDP_CUDA_LAYOUT_STRUCT(Spec, NETDP_CUDA_LAYOUT_MEMBER(eps0) NETDP_CUDA_LAYOUT_MEMBER(delta))
  return s;
}

TEST(CudaLoader, OneChangedOffsetChangesTheSignature) {
  const std::string a = spec_layout<before::Spec>(), b = spec_layout<after::Spec>();
  EXPECT_EQ(a, "struct Spec size 16 align 8;Spec.eps0 at 0 size 8;Spec.delta at 8 size 8;");
  EXPECT_NE(a, b);
  EXPECT_EQ(kernels::cuda_signature_difference(a, b),
            "module 'Spec.eps0 at 0 size 8', this netdp 'Spec.eps0 at 8 size 8'");
  EXPECT_EQ(kernels::cuda_signature_difference(a, a), "");
  EXPECT_EQ(kernels::cuda_signature_difference(a, a + "extra;"), "module '(none)', this netdp 'extra'");
  EXPECT_EQ(kernels::cuda_signature_difference("x;", "y;"), "module 'x', this netdp 'y'");
}

// Fake modules (tests/backend/fake_cuda_module.cpp, built by the host compiler in every build): one of this
// build's interface loads; one compiled against a WalkRunSpec with a member more is refused, naming both
// builds and the first item that differs.
TEST(CudaLoader, AFakeModuleOfThisInterfaceLoads) {
  const kernels::CudaBackendTable& table = kernels::open_cuda_module(NETDP_TEST_NETDP_FAKE_CUDA_MODULE);
  EXPECT_EQ(std::string(table.signature), kernels::cuda_module_signature());
  EXPECT_EQ(std::string(table.build), "netdp fake module (commit 0000000)");
  EXPECT_EQ(table.device_count(), 0);
}

TEST(CudaLoader, AModuleWithAnotherLayoutIsRefusedNamingTheDifference) {
  const std::string path = NETDP_TEST_NETDP_FAKE_STALE_CUDA_MODULE;
  try {
    kernels::open_cuda_module(path);
    ADD_FAILURE() << "a module with another layout of WalkRunSpec loaded";
  } catch (const DeviceUnavailable& e) {
    const std::string what = e.what();
    for (const std::string& needle :
         {path, std::string("was built from another version of netdp"),
          std::string("(module: netdp fake stale module (commit 0000000); this netdp: ") +
              kernels::cuda_build_id() + ";",
          std::string("first difference: module 'struct WalkRunSpec size "), std::string("rebuild it")})
      EXPECT_NE(what.find(needle), std::string::npos) << needle << " in " << what;
  }
}

// Where no device answers, the reason is kept and shown (docs/cuda_loader.md "Why no device answers"):
// `--device cuda` names it, and NETDP_REQUIRE_CUDA=1 turns `--device auto`'s fallback to the CPU into the
// same refusal. A module path that does not exist is named in the reason (when the driver is there; without
// it the driver's absence is the reason).
TEST(CudaLoader, NoDeviceIsRefusedWithTheLoadersReason) {
  const std::string why = no_cuda_device_reason();
  if (why.empty()) GTEST_SKIP() << "a CUDA device answers: there is no refusal to show";
  const char* expected = kernels::cuda_backend_built() ? "no CUDA device answers" : "built without CUDA";
  EXPECT_NE(why.find(expected), std::string::npos) << why;
  testing::ScratchDir dir;
  const std::string run = "walk-sim --graph complete:n=5 --steps 3 --runs 1 --no-accounting --out " +
                          (dir / "out").string() + " --device ";
  const std::string plain = "NETDP_REQUIRE_CUDA= ";  // whatever this test runs under
  const testing::CliResult cuda = testing::run_cli(run + "cuda", plain);
  EXPECT_EQ(cuda.exit_code, 2) << cuda.err;
  EXPECT_NE(cuda.err.find(why), std::string::npos) << cuda.err;
  EXPECT_EQ(cuda.err.find("NETDP_REQUIRE_CUDA"), std::string::npos) << cuda.err;

  EXPECT_EQ(testing::run_cli(run + "auto", plain).exit_code, 0);  // falls back to the CPU
  const testing::CliResult required = testing::run_cli(run + "auto", "NETDP_REQUIRE_CUDA=1 ");
  EXPECT_EQ(required.exit_code, 2) << required.err;
  EXPECT_NE(required.err.find(why), std::string::npos) << required.err;
  EXPECT_NE(required.err.find("NETDP_REQUIRE_CUDA=1"), std::string::npos) << required.err;

  if (!kernels::cuda_backend_built()) return;
  const testing::CliResult missing =
      testing::run_cli(run + "cuda", plain + "NETDP_CUDA_MODULE=/nonexistent/libnetdp_cuda.so ");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_TRUE(missing.err.find("/nonexistent/libnetdp_cuda.so") != std::string::npos ||
              missing.err.find("no CUDA driver") != std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace netdp
