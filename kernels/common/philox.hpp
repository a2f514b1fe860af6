#pragma once
// The one Philox4x32-10 of netdp (docs/design.md principle 2), compiled for the host (PhiloxStream in
// include/netdp/core/philox.hpp, the CPU engines, the device-bodies tests) and for the device (every CUDA
// kernel that draws): the block function, the stream of 32-bit words, and the three conversions the engines
// use (uniform double, Box-Muller pair, Lemire's bounded integer). Written once, so the words and the
// conversions cannot drift apart between the backends.
//
// The stream is cuRAND's curand_init(seed, subsequence, offset) followed by curand() calls, word for word
// (checked against cuRAND's device API compiled for the host in tests/unit/test_philox.cpp):
//   key     = (seed low 32 bits, seed high 32 bits);
//   counter = (offset / 4 low, offset / 4 high, subsequence low, subsequence high), 128 bits;
//   words   = the 4 words of block(counter), then block(counter + 1), ...; the first offset % 4 words of the
//             first block are skipped; the counter carries through all 128 bits (Philox_State_Incr).
#include <cmath>
#include <cstdint>

#include "common/hd.hpp"
#include "common/rounding.hpp"

namespace netdp::kernels::philox {

/// Four 32-bit words: a counter, or one block of output.
struct Words4 {
  std::uint32_t x = 0, y = 0, z = 0, w = 0;
};

inline constexpr std::uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;  // Random123, cuRAND
inline constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;              // key schedule

/// One Philox round: two 32 x 32 -> 64-bit products, their halves mixed with the other words and the key.
NETDP_HD inline Words4 philox_round(Words4 c, std::uint32_t k0, std::uint32_t k1) {
  const std::uint64_t p0 = std::uint64_t{kMultiplier0} * c.x, p1 = std::uint64_t{kMultiplier1} * c.z;
  return {static_cast<std::uint32_t>(p1 >> 32) ^ c.y ^ k0, static_cast<std::uint32_t>(p1),
          static_cast<std::uint32_t>(p0 >> 32) ^ c.w ^ k1, static_cast<std::uint32_t>(p0)};
}

/// Philox4x32-10: ten rounds, the key bumped by the Weyl constants between rounds.
NETDP_HD inline Words4 block(Words4 counter, std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < 9; ++r) {
    counter = philox_round(counter, k0, k1);
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return philox_round(counter, k0, k1);
}

/// The block of `seed` at counter (subsequence, index): index = offset / 4 of cuRAND.
NETDP_HD inline Words4 block(std::uint64_t seed, std::uint64_t subsequence, std::uint64_t index) {
  return block(Words4{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32),
                      static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)},
               static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// Uniform double in (0, 1) from two words x, y: (x ^ (y << 21)) 2^-53 + 2^-54, the 53-bit conversion of
/// cuRAND's Philox double generators (_curand_uniform_double_hq). The product by a power of two is exact.
NETDP_HD inline double uniform_from_words(std::uint32_t x, std::uint32_t y) {
  const std::uint64_t bits = std::uint64_t{x} ^ (std::uint64_t{y} << 21);
  return rn_add(rn_mul(static_cast<double>(bits), 0x1p-53), 0x1p-54);
}

/// Two standard normals (first, second) from two uniforms u, v (Box-Muller): sqrt(-2 ln u) (sin 2 pi v,
/// cos 2 pi v), cuRAND's pairing (bit-identical to its host generator; on the device the libm's log, sin
/// and cos are within a few ulps of the host's).
struct NormalPair {
  double first = 0, second = 0;
};
NETDP_HD inline NormalPair box_muller(double u, double v) {
  constexpr double kTwoPi = 2.0 * 3.141592653589793238462643383279502884;
  const double radius = std::sqrt(rn_mul(-2.0, std::log(u))), angle = rn_mul(kTwoPi, v);
  return {rn_mul(radius, std::sin(angle)), rn_mul(radius, std::cos(angle))};
}

/// Lemire's multiply-shift on one word: true and *out = floor(word bound / 2^32) unless the word falls in
/// the rejection zone (low half < (2^32 - bound) mod bound, probability < bound / 2^32); accepted values are
/// exactly uniform on [0, bound) (bound >= 1).
NETDP_HD inline bool bounded_draw(std::uint32_t word, std::uint32_t bound, std::uint32_t* out) {
  const std::uint64_t product = std::uint64_t{word} * bound;
  const auto low = static_cast<std::uint32_t>(product);
  if (low < bound) {
    const std::uint32_t threshold = (0u - bound) % bound;
    if (low < threshold) return false;
  }
  *out = static_cast<std::uint32_t>(product >> 32);
  return true;
}

/// The stream of words of (seed, subsequence) from word `offset` on, and the conversions drawn from it.
class Stream {
 public:
  NETDP_HD Stream(std::uint64_t seed, std::uint64_t subsequence, std::uint64_t offset = 0)
      : key0_(static_cast<std::uint32_t>(seed)),
        key1_(static_cast<std::uint32_t>(seed >> 32)),
        counter_{static_cast<std::uint32_t>(offset / 4), static_cast<std::uint32_t>((offset / 4) >> 32),
                 static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)},
        index_(static_cast<int>(offset % 4)) {
    refill();
  }

  /// The next 32 random bits (cuRAND's curand()).
  NETDP_HD std::uint32_t next_u32() {
    if (index_ == 4) {
      advance();
      refill();
      index_ = 0;
    }
    switch (index_++) {  // a switch, not block_[index_]: the block stays in registers on the device
      case 0:
        return block_.x;
      case 1:
        return block_.y;
      case 2:
        return block_.z;
      default:
        return block_.w;
    }
  }

  /// Two words as one uniform 64-bit integer, low word first.
  NETDP_HD std::uint64_t next_u64() {
    const std::uint64_t low = next_u32();
    return low | std::uint64_t{next_u32()} << 32;
  }

  /// uniform_from_words of the next two words.
  NETDP_HD double next_uniform_double() {
    const std::uint32_t x = next_u32(), y = next_u32();
    return uniform_from_words(x, y);
  }

  /// box_muller of the next two uniforms (four words). Call it on a 4-word boundary to match cuRAND's
  /// curand_normal2_double.
  NETDP_HD NormalPair next_normal_pair() {
    const double u = next_uniform_double(), v = next_uniform_double();
    return box_muller(u, v);
  }

  /// Uniform integer in [0, bound) (bound >= 1): Lemire on the next word, the rejected words replaced by the
  /// following ones (exact).
  NETDP_HD std::uint32_t next_below(std::uint32_t bound) {
    std::uint32_t k = 0;
    while (!bounded_draw(next_u32(), bound, &k)) {
    }
    return k;
  }

 private:
  NETDP_HD void advance() {  // the 128-bit counter + 1 (cuRAND's Philox_State_Incr)
    if (++counter_.x != 0) return;
    if (++counter_.y != 0) return;
    if (++counter_.z != 0) return;
    ++counter_.w;
  }
  NETDP_HD void refill() { block_ = block(counter_, key0_, key1_); }

  std::uint32_t key0_, key1_;
  Words4 counter_;
  Words4 block_;
  int index_;
};

}  // namespace netdp::kernels::philox
