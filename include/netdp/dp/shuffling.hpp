#pragma once
// Amplification by shuffling (docs/math.md §1.6, items SH1-SH3). eps0 is the LDP level of each of the n shuffled
// randomisers; natural logarithms. Out-of-range inputs throw InvalidInput; each closed form has a `_valid`
// predicate that never throws, for callers that want to skip a bound instead (e.g. the SH3 per-cycle
// minimum).
#include <cstdint>
#include <string>
#include <string_view>

namespace netdp::dp {

/// SH1 (Erlingsson et al.), ranges of the reference code: 0 < eps0 <= 1/2, n >= 1000, 0 < delta <= 1/100.
bool erlingsson_valid(double eps0, std::int64_t n, double delta);
/// SH1: eps = 12 eps0 sqrt(ln(1/delta)/n).
double erlingsson_epsilon(double eps0, std::int64_t n, double delta);
/// SH1 inverse ranges: 0 < eps0 <= 1/2, n >= 1000, 0 < eps <= eps0, and the resulting delta <= 1/100.
bool erlingsson_delta_valid(double eps0, std::int64_t n, double epsilon);
/// SH1 inverse: delta = exp(-n (eps/(12 eps0))^2).
double erlingsson_delta(double eps0, std::int64_t n, double epsilon);

/// SH2 (Feldman-McMillan-Talwar Thm 3.1) condition: 0 < eps0 <= ln(n / (16 ln(2/delta))), delta in (0, 1).
bool fmt_valid(double eps0, std::int64_t n, double delta);
/// SH2: ln(1 + ((e^eps0 - 1)/(e^eps0 + 1)) (8 sqrt(e^eps0 ln(4/delta))/sqrt(n) + 8 e^eps0/n)).
double fmt_epsilon(double eps0, std::int64_t n, double delta);
/// SH2 simplified form for eps0 <= 1: 14 sqrt(ln(4/delta)) eps0 / sqrt(n) (also needs fmt_valid).
double fmt_epsilon_simplified(double eps0, std::int64_t n, double delta);

/// SH3 numerical privacy-blanket bounds (Balle et al. 2019) for a generic pure eps0-LDP randomiser
/// (gamma_lb = e^-eps0, gamma_ub = 1), with tol = 1e-12: delta(eps) for 0 < eps, clipped to [10 tol, 1];
/// eps >= eps0 gives 10 tol.
enum class BlanketBound { hoeffding, bennett };
BlanketBound parse_blanket_bound(std::string_view text);  // "hoeffding" | "bennett"
std::string to_string(BlanketBound b);
double blanket_delta(BlanketBound bound, double epsilon, double eps0, std::int64_t n);
/// SH3: the root of blanket_delta(eps) = delta on [1e-6, eps0] by bisection (absolute tolerance 1e-12,
/// returning the side that meets delta). 1e-6 when it already meets delta there; eps0 when delta < 10 tol
/// (nothing certified).
double blanket_epsilon(BlanketBound bound, double eps0, std::int64_t n, double delta);

/// SH3 per-cycle level: min(Hoeffding, Bennett, Erlingsson where erlingsson_valid).
double shuffle_epsilon(double eps0, std::int64_t n, double delta);

}  // namespace netdp::dp
