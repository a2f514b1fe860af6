#pragma once
// Arithmetic in Z/pZ for primes p < 2^62 (docs/math.md §7.2, exact decision): Montgomery form with a 128-bit
// product, so one multiplication costs three 64-bit multiplies and no division. Values stay in Montgomery
// form inside the field; from_rational maps a rational a/b (b not divisible by p) to the field.
#include <cstdint>

namespace netdp::attack {

/// The primes the exact mode uses: 2^61 - 1 and 2^62 - 57 (both prime).
inline constexpr std::uint64_t kPrimes[2] = {2305843009213693951ULL, 4611686018427387847ULL};

class ModularField {
 public:
  using u64 = std::uint64_t;
  using u128 = unsigned __int128;

  explicit ModularField(u64 p) : p_(p) {
    u64 inv = p;  // Newton iteration for p^-1 mod 2^64 (p odd)
    for (int i = 0; i < 6; ++i) inv *= 2 - p * inv;
    neg_inv_ = ~inv + 1;
    r2_ = static_cast<u64>((static_cast<u128>(1) << 64) % p);  // R mod p
    r2_ = static_cast<u64>(static_cast<u128>(r2_) * r2_ % p);  // R^2 mod p
  }
  u64 prime() const { return p_; }

  u64 mul(u64 a, u64 b) const {
    const u128 t = static_cast<u128>(a) * b;
    const u64 m = static_cast<u64>(t) * neg_inv_;
    const u64 r = static_cast<u64>((t + static_cast<u128>(m) * p_) >> 64);
    return r >= p_ ? r - p_ : r;
  }
  u64 add(u64 a, u64 b) const {
    const u64 s = a + b;
    return s >= p_ ? s - p_ : s;
  }
  u64 sub(u64 a, u64 b) const { return a >= b ? a - b : a + p_ - b; }
  /// a - f b, the elimination step.
  u64 sub_mul(u64 a, u64 f, u64 b) const { return sub(a, mul(f, b)); }

  u64 from_integer(std::int64_t x) const {
    u64 v = static_cast<u64>(x < 0 ? -(x % static_cast<std::int64_t>(p_)) : x) % p_;
    if (x < 0 && v != 0) v = p_ - v;
    return mul(v, r2_);
  }
  u64 to_integer(u64 a) const { return mul(a, 1); }
  u64 one() const { return from_integer(1); }
  u64 pow(u64 a, u64 e) const {
    u64 r = one();
    for (; e; e >>= 1, a = mul(a, a))
      if (e & 1) r = mul(r, a);
    return r;
  }
  u64 inverse(u64 a) const { return pow(a, p_ - 2); }  // a != 0 (Fermat)
  u64 from_rational(std::int64_t num, std::int64_t den) const {
    return mul(from_integer(num), inverse(from_integer(den)));
  }

 private:
  u64 p_ = 0, neg_inv_ = 0, r2_ = 0;
};

}  // namespace netdp::attack
