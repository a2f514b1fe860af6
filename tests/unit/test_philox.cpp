// The host Philox stream against cuRAND's own host-API Philox4x32-10 generator (runs without a GPU; skipped
// in builds without the CUDA toolkit), and against properties that need no reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "netdp/core/philox.hpp"

#ifdef NETDP_TEST_CURAND
#include <curand.h>
#endif

namespace netdp {
namespace {

#ifdef NETDP_TEST_CURAND
// cuRAND's host generator interleaves many subsequences: its first words are the first 4-word block of
// subsequence 0, then of subsequence 1, and so on (the test checks 16 of them).
std::vector<std::uint32_t> curand_words(std::uint64_t seed, std::size_t count) {
  curandGenerator_t g;
  EXPECT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  curandSetPseudoRandomGeneratorSeed(g, seed);
  std::vector<std::uint32_t> words(count);
  EXPECT_EQ(curandGenerate(g, words.data(), count), CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(g);
  return words;
}
#endif

TEST(Philox, MatchesCurandHostGenerator) {
#ifndef NETDP_TEST_CURAND
  GTEST_SKIP() << "built without the CUDA toolkit";
#else
  for (std::uint64_t seed : {0ull, 1234ull, 0x0123456789abcdefull}) {
    auto words = curand_words(seed, 64);
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
#ifndef NETDP_TEST_CURAND
  GTEST_SKIP() << "built without the CUDA toolkit";
#else
  curandGenerator_t g;
  ASSERT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  curandSetPseudoRandomGeneratorSeed(g, 99);
  std::vector<double> u(2);
  ASSERT_EQ(curandGenerateUniformDouble(g, u.data(), 2), CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(g);
  PhiloxStream stream(99, 0);
  EXPECT_EQ(stream.next_uniform_double(), u[0]);
  EXPECT_EQ(stream.next_uniform_double(), u[1]);
#endif
}

TEST(Philox, NormalPairsMatchCurandHostGenerator) {
#ifndef NETDP_TEST_CURAND
  GTEST_SKIP() << "built without the CUDA toolkit";
#else
  // cuRAND's host generator puts the pair of subsequence 0 first and that of subsequence 1 at positions 4, 5.
  curandGenerator_t g;
  ASSERT_EQ(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  curandSetPseudoRandomGeneratorSeed(g, 1234);
  std::vector<double> normal(8);
  ASSERT_EQ(curandGenerateNormalDouble(g, normal.data(), normal.size(), 0.0, 1.0), CURAND_STATUS_SUCCESS);
  curandDestroyGenerator(g);
  auto first = PhiloxStream(1234, 0).next_normal_pair();
  auto second = PhiloxStream(1234, 1).next_normal_pair();
  EXPECT_EQ(first.first, normal[0]);
  EXPECT_EQ(first.second, normal[1]);
  EXPECT_EQ(second.first, normal[4]);
  EXPECT_EQ(second.second, normal[5]);
#endif
}

TEST(Philox, OffsetSkipsWithinAndAcrossBlocks) {
  PhiloxStream reference(7, 3);
  std::vector<std::uint32_t> words(12);
  for (auto& w : words) w = reference.next_u32();
  for (std::uint64_t offset = 0; offset < 12; ++offset) {
    PhiloxStream skipped(7, 3, offset);
    EXPECT_EQ(skipped.next_u32(), words[offset]) << offset;
  }
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
