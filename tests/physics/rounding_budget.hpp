// Rounding-error budgets of the three storage modes, from which the physics tests derive their float and fp16
// tolerances (kernels/storage.hpp describes the formats). A tolerance is computed from the run's own populations
// with the bounds below; none is fitted to a measured error.
//
//   float arithmetic (float storage, and the arithmetic of fp16 storage): round to nearest, unit roundoff
//     u = 2^-24. Worst case over collide() (kernels/collision.hpp), per update of one cell: the moment sums drho
//     and j over 19 terms err by at most 18 u sum_i |g_i| (recursive summation, Higham 2002, "Accuracy and
//     Stability of Numerical Algorithms", eq. 4.4) and enter the update with weight omega < 2; each population's
//     <= 8 further operations (equilibrium, relaxation, source, recombination) round values of size <= ~2 |g_i|;
//     a wall's Ladd term and the force add one rounding each. So one update changes the cell's mass or momentum
//     by at most kFloatRoundings * u * sum_i |g_i|, kFloatRoundings = 2 * 18 + 2 * 8 + 2 = 54. Round to nearest
//     errors of a steady or uniform state repeat every step, so they are summed, not averaged.
//   fp16 storage: g * 2^14 in IEEE half, 11 significant bits, so the spacing (ulp) of the stored values around g
//     is at most 2^-10 |g|. Stochastic rounding (kernels/storage.hpp) moves a value at fraction p of an ulp up
//     with probability p: the error has mean zero and variance p (1 - p) ulp^2 <= (ulp / 2)^2 <= (2^-11 |g|)^2,
//     and the draws of different stores are independent (kernels/rounding_bits.hpp). Errors of conserved
//     quantities therefore add up as a random walk, sigma^2 = sum over stores of (2^-11 |g|)^2, and a test
//     allows kSigmas = 5 standard deviations (Gaussian tail 6e-7). Scaled values below half's normal range
//     (|g| < 2^-28) are rounded to nearest on the subnormal grid afterwards: at most 2^-39 per store, possibly
//     biased, summed as a worst case.
#pragma once

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/d3q19.hpp"

namespace eddy::test {

inline constexpr double kFloatUnitRoundoff = 0x1p-24;
inline constexpr double kDoubleUnitRoundoff = 0x1p-53;
inline constexpr double kFloatRoundings = 54.0;
/// Standard deviation of one fp16 stochastic-rounding store, relative to |g|: ulp / 2 <= 2^-11 |g|.
inline constexpr double kHalfStoreSigma = 0x1p-11;
/// Largest round-to-nearest error of a store in half's subnormal range (half its spacing 2^-24, scaled by 2^-14).
inline constexpr double kHalfSubnormalError = 0x1p-39;
inline constexpr double kSigmas = 5.0;

/// Unit roundoff of the arithmetic of storage mode p (fp16 computes in float).
inline double arithmetic_unit_roundoff(Precision p) {
  return p == Precision::float64 ? kDoubleUnitRoundoff : kFloatUnitRoundoff;
}

/// Test-name suffix of a storage mode.
inline std::string storage_name(Precision p) {
  return p == Precision::float16 ? "fp16" : (p == Precision::float32 ? "float" : "double");
}

/// Shifted populations g = f - w of Simulation::populations() (layout [i * cells + k]).
inline std::vector<double> shifted(std::vector<double> f) {
  const std::size_t n = f.size() / d3q19::Q;
  for (int i = 0; i < d3q19::Q; ++i)
    for (std::size_t k = 0; k < n; ++k) f[i * n + k] -= d3q19::w<double>(i);
  return f;
}

/// Mass of the shifted populations g, summed in double (no float read-out rounding): cells + sum g.
inline double population_mass(const std::vector<double>& g) {
  double dm = 0.0;
  for (double v : g) dm += v;
  return double(g.size() / d3q19::Q) + dm;
}

}  // namespace eddy::test

namespace eddy {
/// GoogleTest prints a Precision parameter by its storage name.
inline void PrintTo(Precision p, std::ostream* os) { *os << test::storage_name(p); }
}  // namespace eddy
