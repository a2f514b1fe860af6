// The one Philox4x32-10 (kernels/common/philox.hpp, PhiloxStream on the host) against cuRAND: its device API
// (curand_kernel.h: curand_init, curand, curand4, curand_uniform2_double, curand_normal2_double are
// __host__ __device__ and compile with g++ when the toolkit's include directory is on the path) word for word
// for many seeds, subsequences and offsets, the draw patterns the CUDA kernels used with cuRAND before they
// moved to this implementation, and cuRAND's host-API generator. The cuRAND cases skip, saying so, in builds
// without the CUDA toolkit; the properties below them need no reference.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/philox.hpp"
#include "netdp/core/philox.hpp"
#include "netdp/simulation/gossip_sim.hpp"
#include "netdp/simulation/walk_sim.hpp"

#ifdef NETDP_TEST_CURAND
#include <curand.h>
#include <curand_kernel.h>
#endif

namespace netdp {
namespace {

#ifdef NETDP_TEST_CURAND
#define NETDP_REQUIRE_CURAND()
#else
#define NETDP_REQUIRE_CURAND() GTEST_SKIP() << "built without the CUDA toolkit: no cuRAND to compare with"
#endif

// Seeds, subsequences and offsets of the comparisons: small and huge, offsets off the 4-word grid, and the
// subsequences the engines build (kind << 56 | run << 24 | round, kind << 56 | run).
const std::vector<std::uint64_t> kSeeds = {0, 1, 1234, 20240611, 0xffffffffull, 0x0123456789abcdefull, ~0ull};
const std::vector<std::uint64_t> kSubsequences = {
    0,
    1,
    15,
    0xffffffffull,
    0x100000000ull,
    gossip_subsequence(GossipStream::er_graph, 12345, 77),
    gossip_subsequence(GossipStream::dropout, 0xffffffffull, 0xffffff),
    walk_subsequence(WalkStream::retry, (std::uint64_t{1} << 56) - 1),
    ~0ull};
const std::vector<std::uint64_t> kOffsets = {
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    1001,
    std::uint64_t{3} << 40,
    (std::uint64_t{5} << 40) + 3,
    (std::uint64_t{0xfffffffe} << 2) + 1,  // low counter word carries
    std::uint64_t{1} << 62,
    ~0ull - 6};

#ifdef NETDP_TEST_CURAND
curandStatePhilox4_32_10_t curand_state(std::uint64_t seed, std::uint64_t subsequence, std::uint64_t offset) {
  curandStatePhilox4_32_10_t s;
  curand_init(seed, subsequence, offset, &s);
  return s;
}
#endif

TEST(Philox, WordsMatchCurandDeviceApi) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  int compared = 0;
  for (std::uint64_t seed : kSeeds)
    for (std::uint64_t subsequence : kSubsequences)
      for (std::uint64_t offset : kOffsets) {
        curandStatePhilox4_32_10_t reference = curand_state(seed, subsequence, offset);
        PhiloxStream stream(seed, subsequence, offset);
        // 4 blocks and a bit, through the counter's increments (and the carry out of its low word).
        for (int i = 0; i < 19; ++i, ++compared)
          ASSERT_EQ(stream.next_u32(), curand(&reference))
              << "seed " << seed << ", subsequence " << subsequence << ", offset " << offset << ", word "
              << i;
      }
  EXPECT_EQ(compared, 19 * 7 * 9 * 13);
#endif
}

TEST(Philox, FourWordsMatchCurand4) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  for (std::uint64_t seed : kSeeds)
    for (std::uint64_t subsequence : kSubsequences)
      for (std::uint64_t offset : kOffsets) {
        curandStatePhilox4_32_10_t reference = curand_state(seed, subsequence, offset);
        PhiloxStream stream(seed, subsequence, offset);
        for (int i = 0; i < 3; ++i) {
          const uint4 r = curand4(&reference);
          const std::uint32_t words[4] = {stream.next_u32(), stream.next_u32(), stream.next_u32(),
                                          stream.next_u32()};
          ASSERT_EQ(words[0], r.x) << seed << " " << subsequence << " " << offset;
          ASSERT_EQ(words[1], r.y) << seed << " " << subsequence << " " << offset;
          ASSERT_EQ(words[2], r.z) << seed << " " << subsequence << " " << offset;
          ASSERT_EQ(words[3], r.w) << seed << " " << subsequence << " " << offset;
        }
      }
#endif
}

TEST(Philox, BlockFunctionIsCurandPhilox4x32_10) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  // The bare block function on counters cuRAND never starts from (every word non-zero).
  kernels::philox::Stream words(99, 3);
  for (int i = 0; i < 200; ++i) {
    const std::uint32_t c[4] = {words.next_u32(), words.next_u32(), words.next_u32(), words.next_u32()};
    const std::uint32_t k[2] = {words.next_u32(), words.next_u32()};
    const uint4 expected = curand_Philox4x32_10(make_uint4(c[0], c[1], c[2], c[3]), make_uint2(k[0], k[1]));
    const kernels::philox::Words4 got = kernels::philox::block({c[0], c[1], c[2], c[3]}, k[0], k[1]);
    EXPECT_EQ(got.x, expected.x);
    EXPECT_EQ(got.y, expected.y);
    EXPECT_EQ(got.z, expected.z);
    EXPECT_EQ(got.w, expected.w);
  }
#endif
}

TEST(Philox, UniformAndNormalMatchCurandDeviceApiOnTheHost) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  // curand_uniform2_double and curand_normal2_double (four words each) compiled for the host: the same
  // conversion and, with the host's libm, the same Box-Muller bits.
  for (std::uint64_t seed : kSeeds)
    for (std::uint64_t subsequence : kSubsequences) {
      curandStatePhilox4_32_10_t uniforms = curand_state(seed, subsequence, 8);
      curandStatePhilox4_32_10_t normals = curand_state(seed, subsequence, 8);
      PhiloxStream u(seed, subsequence, 8), z(seed, subsequence, 8);
      for (int i = 0; i < 25; ++i) {
        const double2 expected_u = curand_uniform2_double(&uniforms);
        EXPECT_EQ(u.next_uniform_double(), expected_u.x);
        EXPECT_EQ(u.next_uniform_double(), expected_u.y);
        const double2 expected_z = curand_normal2_double(&normals);
        const auto pair = z.next_normal_pair();
        EXPECT_EQ(pair.first, expected_z.x) << seed << " " << subsequence << " " << i;
        EXPECT_EQ(pair.second, expected_z.y) << seed << " " << subsequence << " " << i;
      }
    }
#endif
}

TEST(Philox, KernelDrawPatternsMatchTheirFormerCurandDraws) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  // Before the single implementation, the kernels called curand_init(seed, subsequence, offset) and curand()
  // at these positions (docs/walk_sim.md and docs/gossip_sim.md "Randomness layout"); the shared stream
  // must draw the same words, so that no result changes.
  const std::uint64_t seed = 977;
  struct Pattern {
    const char* what;
    std::uint64_t subsequence, offset;
    int words;
  };
  std::vector<Pattern> patterns;
  for (std::uint64_t run : {0ull, 5ull, 4095ull}) {
    patterns.push_back({"walk steps", walk_subsequence(WalkStream::walk, run), 0, 64});
    for (std::uint64_t t : {1ull, 77ull, (1ull << 20) + 3})
      patterns.push_back({"walk retry", walk_subsequence(WalkStream::retry, run), t << 20, 8});
    for (std::uint64_t t : {0ull, 9ull, 123456ull})
      patterns.push_back({"walk noise", walk_subsequence(WalkStream::noise, run), 4 * t, 4});
    for (std::uint64_t pair : {0ull, 1ull, 999ull})
      patterns.push_back({"gossip noise", gossip_subsequence(GossipStream::noise, run, 0), 4 * pair, 4});
    for (std::uint64_t t0 : {0ull, 1ull << 14, 3ull << 14})
      patterns.push_back({"ticks", gossip_subsequence(GossipStream::activation, run, 0), 4 * t0, 40});
    for (std::uint64_t round : {0ull, 8ull})
      for (std::uint64_t v : {0ull, 1ull, 57ull}) {
        patterns.push_back({"dropout", gossip_subsequence(GossipStream::dropout, run, round), 2 * v, 2});
        patterns.push_back({"er", gossip_subsequence(GossipStream::er_graph, run, round), v << 40, 30});
      }
  }
  for (const Pattern& p : patterns) {
    curandStatePhilox4_32_10_t reference = curand_state(seed, p.subsequence, p.offset);
    PhiloxStream stream(seed, p.subsequence, p.offset);
    for (int i = 0; i < p.words; ++i)
      ASSERT_EQ(stream.next_u32(), curand(&reference)) << p.what << ", offset " << p.offset << ", word " << i;
  }
#endif
}

#ifdef NETDP_TEST_CURAND
/// Fills `values` from cuRAND's host Philox generator seeded with `seed`, by generate(generator, data, count)
/// (curandGenerate, curandGenerateUniformDouble, ...). Call it under ASSERT_NO_FATAL_FAILURE.
template <class T, class Generate>
void curand_host_values(std::uint64_t seed, std::vector<T>& values, Generate generate) {
  curandGenerator_t g;
  ASSERT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  curandSetPseudoRandomGeneratorSeed(g, seed);
  const curandStatus_t status = generate(g, values.data(), values.size());
  curandDestroyGenerator(g);
  ASSERT_EQ(status, CURAND_STATUS_SUCCESS);
}
#endif

TEST(Philox, MatchesCurandHostGenerator) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  for (std::uint64_t seed : {0ull, 1234ull, 0x0123456789abcdefull}) {
    // cuRAND's host generator interleaves many subsequences: its first words are the first 4-word block of
    // subsequence 0, then of subsequence 1, and so on (the test checks 16 of them).
    std::vector<std::uint32_t> words(64);
    ASSERT_NO_FATAL_FAILURE(curand_host_values(seed, words, curandGenerate));
    // The first block of subsequences 0..15 (16 x 4 words), each compared with a fresh host stream.
    for (std::uint64_t s = 0; s < 16; ++s) {
      PhiloxStream stream(seed, s);
      for (int j = 0; j < 4; ++j)
        EXPECT_EQ(stream.next_u32(), words[4 * s + j]) << "seed " << seed << " subsequence " << s;
    }
  }
#endif
}

TEST(Philox, UniformDoubleMatchesCurandHostGenerator) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  std::vector<double> u(2);
  ASSERT_NO_FATAL_FAILURE(curand_host_values(99, u, curandGenerateUniformDouble));
  PhiloxStream stream(99, 0);
  EXPECT_EQ(stream.next_uniform_double(), u[0]);
  EXPECT_EQ(stream.next_uniform_double(), u[1]);
#endif
}

TEST(Philox, NormalPairsMatchCurandHostGenerator) {
  NETDP_REQUIRE_CURAND();
#ifdef NETDP_TEST_CURAND
  // cuRAND's host generator puts the pair of subsequence 0 first and that of subsequence 1 at positions 4, 5.
  std::vector<double> normal(8);
  ASSERT_NO_FATAL_FAILURE(
      curand_host_values(1234, normal, [](curandGenerator_t g, double* out, std::size_t n) {
        return curandGenerateNormalDouble(g, out, n, 0.0, 1.0);
      }));
  auto first = PhiloxStream(1234, 0).next_normal_pair();
  auto second = PhiloxStream(1234, 1).next_normal_pair();
  EXPECT_EQ(first.first, normal[0]);
  EXPECT_EQ(first.second, normal[1]);
  EXPECT_EQ(second.first, normal[4]);
  EXPECT_EQ(second.second, normal[5]);
#endif
}

// ---- properties that need no reference ----

TEST(Philox, OffsetSkipsWithinAndAcrossBlocks) {
  PhiloxStream reference(7, 3);
  std::vector<std::uint32_t> words(12);
  for (auto& w : words) w = reference.next_u32();
  for (std::uint64_t offset = 0; offset < 12; ++offset) {
    PhiloxStream skipped(7, 3, offset);
    EXPECT_EQ(skipped.next_u32(), words[offset]) << offset;
  }
}

TEST(Philox, ConversionsReadTheWordsInOrder) {
  // The stream's conversions are the free functions on its next words.
  PhiloxStream words(11, 4, 2), converted(11, 4, 2);
  for (int i = 0; i < 50; ++i) {
    const std::uint32_t a = words.next_u32(), b = words.next_u32(), c = words.next_u32(),
                        d = words.next_u32();
    const auto pair = kernels::philox::box_muller(kernels::philox::uniform_from_words(a, b),
                                                  kernels::philox::uniform_from_words(c, d));
    const auto got = converted.next_normal_pair();
    EXPECT_EQ(got.first, pair.first);
    EXPECT_EQ(got.second, pair.second);
  }
  const std::uint32_t low = words.next_u32(), high = words.next_u32();
  EXPECT_EQ(converted.next_u64(), std::uint64_t{high} << 32 | low);
}

TEST(Philox, LemireRejectsExactlyTheZone) {
  // bound 3e9: (2^32 - bound) mod bound = 1294967296, every low half below it is rejected.
  const std::uint32_t bound = 3'000'000'000u, threshold = (0u - bound) % bound;
  EXPECT_EQ(threshold, 1294967296u);
  PhiloxStream s(1, 2);
  int rejected = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::uint32_t w = s.next_u32();
    std::uint32_t k = 0;
    const bool accepted = kernels::philox::bounded_draw(w, bound, &k);
    const auto low = static_cast<std::uint32_t>(std::uint64_t{w} * bound);
    EXPECT_EQ(accepted, low >= threshold) << w;
    if (accepted) {
      EXPECT_EQ(k, static_cast<std::uint32_t>((std::uint64_t{w} * bound) >> 32));
    }
    rejected += accepted ? 0 : 1;
  }
  EXPECT_GT(rejected, 2000);  // about 30%
}

TEST(Philox, BoundedDrawsAreInRangeAndRoughlyUniform) {
  PhiloxStream stream(5, 0);
  std::vector<int> count(7, 0);
  const int draws = 70000;
  for (int i = 0; i < draws; ++i) {
    auto x = stream.next_below(7);
    ASSERT_LT(x, 7u);
    ++count[x];
  }
  // Each count is Bin(70000, 1/7): mean 10000, sd 90.6; 6 sd is a bound that a correct generator never fails
  // here.
  for (int c : count) EXPECT_NEAR(c, 10000, 544);
  double u = 0;
  for (int i = 0; i < 1000; ++i) {
    u = stream.next_uniform_double();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace netdp
