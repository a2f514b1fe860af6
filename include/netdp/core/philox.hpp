#pragma once
// Counter-based randomness (DESIGN principle 2): Philox4x32-10 keyed by the seed, the counter built from a
// subsequence (e.g. experiment/replicate/walk) and an offset (e.g. step). This host stream is bit-identical
// to cuRAND's device stream after curand_init(seed, subsequence, offset): key = (seed low, seed high) words,
// counter = (offset/4 low, offset/4 high, subsequence low, subsequence high) words (checked against cuRAND's
// host generator in tests/unit/test_philox.cpp). The block function comes from Random123 (Debian
// librandom123-dev).
#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

namespace netdp {

class PhiloxStream {
 public:
  PhiloxStream(std::uint64_t seed, std::uint64_t subsequence, std::uint64_t offset = 0)
      : key_{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}},
        counter_{{static_cast<std::uint32_t>(offset / 4), static_cast<std::uint32_t>((offset / 4) >> 32),
                  static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)}},
        index_(static_cast<int>(offset % 4)) {
    refill();
  }

  /// The next 32 random bits (cuRAND's curand()).
  std::uint32_t next_u32() {
    if (index_ == 4) {
      advance();
      refill();
      index_ = 0;
    }
    return block_[index_++];
  }

  /// Uniform double in (0, 1) from the next two words x, y: (x ^ (y << 21)) 2^-53 + 2^-54, the 53-bit
  /// conversion of cuRAND's Philox double generators.
  double next_uniform_double() {
    const std::uint64_t x = next_u32(), y = next_u32();
    return static_cast<double>(x ^ (y << 21)) * 0x1p-53 + 0x1p-54;
  }

  /// Two standard normals from the next four words (u, v uniform doubles): sqrt(-2 ln u) (sin 2 pi v, cos 2
  /// pi v), the Box-Muller pairing of cuRAND's Philox normal doubles (bit-identical to its host generator;
  /// the device library's own log/sincos may differ by a few ulps). Call it on a 4-word boundary to match
  /// cuRAND.
  std::pair<double, double> next_normal_pair() {
    const double u = next_uniform_double(), v = next_uniform_double();
    const double radius = std::sqrt(-2.0 * std::log(u)),
                 angle = 2.0 * 3.141592653589793238462643383279502884 * v;
    return {radius * std::sin(angle), radius * std::cos(angle)};
  }

  /// Uniform integer in [0, bound) by Lemire's multiply-shift on 32 bits with rejection (exact; bound >= 1).
  std::uint32_t next_below(std::uint32_t bound) {
    std::uint64_t m = std::uint64_t{next_u32()} * bound;
    if (static_cast<std::uint32_t>(m) < bound) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-bound) % bound;
      while (static_cast<std::uint32_t>(m) < threshold) m = std::uint64_t{next_u32()} * bound;
    }
    return static_cast<std::uint32_t>(m >> 32);
  }

 private:
  void advance() {
    if (++counter_[0] == 0) ++counter_[1];  // 64-bit offset counter, as cuRAND's skip-ahead
  }
  void refill() {
    const auto r = r123::Philox4x32()(counter_, key_);
    block_ = {r[0], r[1], r[2], r[3]};
  }

  r123::Philox4x32::key_type key_;
  r123::Philox4x32::ctr_type counter_;
  std::array<std::uint32_t, 4> block_{};
  int index_ = 0;
};

}  // namespace netdp
