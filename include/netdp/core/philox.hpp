#pragma once
// Counter-based randomness (docs/design.md principle 2): Philox4x32-10 keyed by the seed, the counter built
// from a subsequence (e.g. experiment/replicate/walk) and an offset (e.g. step). PhiloxStream is the host
// name of the single __host__ __device__ implementation that the CUDA kernels run too
// (kernels/common/philox.hpp): PhiloxStream(seed, subsequence, offset) gives the words of cuRAND's
// curand_init(seed, subsequence, offset) + curand(), and next_uniform_double / next_normal_pair / next_below
// are the conversions the kernels use (checked word for word against cuRAND's device API compiled for the
// host, and against its host generator, in tests/unit/test_philox.cpp).
//
//   PhiloxStream s(seed, subsequence, offset);
//   s.next_u32();             // 32 random bits
//   s.next_uniform_double();  // (0, 1), from two words
//   s.next_normal_pair();     // {first, second}, two standard normals from four words (Box-Muller)
//   s.next_below(bound);      // uniform on [0, bound), Lemire with rejection
//
// Note: this header includes kernels/common/philox.hpp (on the include path of every netdp target).
#include <cstdint>

#include "common/philox.hpp"

namespace netdp {

using PhiloxStream = kernels::philox::Stream;

/// The subsequence of run `run` in the layouts with one stream per run (admm, walk-sgd): the stream kind in
/// the top byte, the run below it.
constexpr std::uint64_t run_subsequence(std::uint64_t kind, std::uint64_t run) {
  return kind << 56 | run;
}

}  // namespace netdp
