#pragma once
// The Laplace mechanism: noise Lap(0, b Delta) with noise multiplier b, i.e. (1/b)-DP (docs/dp_toolbox.md
// "Laplace mechanism"). Natural logarithms.

namespace netdp::dp {

/// Exact RDP of the Laplace mechanism at order alpha > 1 (Mironov 2017, Prop. 6):
/// D_alpha = ln(alpha/(2 alpha - 1) e^{(alpha - 1)/b} + (alpha - 1)/(2 alpha - 1) e^{-alpha/b}) / (alpha -
/// 1), evaluated as 1/b + (ln(alpha/(2 alpha - 1)) + log1p((alpha - 1)/alpha e^{-(2 alpha - 1)/b}))/(alpha -
/// 1) so that a small b neither overflows nor cancels. Increases to 1/b as alpha grows.
double laplace_rdp(double alpha, double noise_multiplier);

}  // namespace netdp::dp
