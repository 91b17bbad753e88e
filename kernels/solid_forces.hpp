// Momentum exchange on the [[solid]] bodies (Ladd 1994, J. Fluid Mech. 271, 285): with halfway bounce-back at a
// resting wall, each cut link (a fluid cell x and a direction i with x + c_i inside a solid) carries
// 2 f*_i(x) c_i of momentum into the solid per step, f*_i(x) the post-collision population the wall bounces (with
// Guo forcing, the value after the forcing term, the one the fused kernel writes).
//
// Which slot holds f*_i(x) (kernels/streaming.hpp): after an even step ("swapped" layout) slot opp(i) of x holds
// x's post-collision f*_i, not yet moved; after an odd step ("own" layout) the odd step has bounced f*_i(x) at once
// into slot opp(i) of x as the population arriving from the resting wall (no moving-wall term: solids are kWall).
// Either way the pass reads slot opp(i) of x, and the value is the post-collision population of the step just
// taken: the force reported at step n is the momentum exchanged by the collision of step n. The pass reads nothing
// else, needs no halo exchange and writes no population.
//
// Sum: each link's contribution is rounded to 64-bit fixed point with kForceFractionBits fraction bits
// (to_force_fixed: floor(v 2^40 + 1/2), the same double arithmetic on host and device) and added with integer
// atomics, so the sum does not depend on the order of the links, the thread schedule or the rank count (the
// integers are summed again across ranks). Unsigned addition wraps, so partial sums may overflow as long as each
// total lies in +-2^23 lattice units (force, or torque about the solid's centre).
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Fraction bits of the fixed-point force and torque sums: resolution 2^-40 ~ 9.1e-13 lattice units per link.
inline constexpr int kForceFractionBits = 40;
/// Sums per solid: Fx, Fy, Fz, Tx, Ty, Tz.
inline constexpr int kForceSums = 6;

/// One cut link of a block: fluid interior cell `cell` (block index), direction `dir` with cell + c_dir inside
/// solid `solid`; `arm` = r x c_dir, r the wall point (halfway along the link) relative to the solid's centre, so
/// the link's torque is 2 f* arm.
struct CutLink {
  std::int64_t cell;
  std::int32_t dir;
  std::int32_t solid;
  double arm[3];
};

/// v in fixed point (kForceFractionBits), rounded to nearest (ties up); two's complement in the unsigned result.
EDDY_HOST_DEVICE inline unsigned long long to_force_fixed(double v) {
  return static_cast<unsigned long long>(static_cast<long long>(floor(ldexp(v, kForceFractionBits) + 0.5)));
}

/// A fixed-point sum back to a double.
inline double from_force_fixed(unsigned long long q) {
  return std::ldexp(static_cast<double>(static_cast<long long>(q)), -kForceFractionBits);
}

/// The post-collision population f*_dir (not shifted) of a cut link, from the block array `f` ([i * n_cells +
/// cell], f_i - w_i as stored) after a step of either parity: slot opp(dir) of the fluid cell.
template <class T>
EDDY_HOST_DEVICE inline double cut_link_population(const T* f, std::int64_t n_cells, const CutLink& link) {
  const T s = f[std::int64_t(d3q19::opp(link.dir)) * n_cells + link.cell];
  return double(Stored<T>::load(s)) + d3q19::w<double>(link.dir);
}

/// The fixed-point contributions of one cut link whose bounced population is `f_star`: 2 f* c (force) and
/// 2 f* arm (torque), in the order of kForceSums.
EDDY_HOST_DEVICE inline void cut_link_momentum(const CutLink& link, double f_star,
                                               unsigned long long (&q)[kForceSums]) {
  const double twice = 2.0 * f_star;
  const unsigned long long m = to_force_fixed(twice);
  for (int a = 0; a < 3; ++a) {
    const int c = d3q19::c(link.dir, a);
    q[a] = c > 0 ? m : (c < 0 ? 0ull - m : 0ull);
    q[3 + a] = to_force_fixed(twice * link.arm[a]);
  }
}

/// Adds the momentum exchange of `n_links` cut links of array `a` to `sums` ([solid * kForceSums + k], fixed
/// point), with integer atomics (device pass, kernels/solid_forces.cpp).
template <class T>
void sum_cut_link_forces(const PopulationView<T>& a, const CutLink* links, std::int64_t n_links,
                         unsigned long long* sums, const backend::Stream* stream = nullptr);

}  // namespace eddy
