// Momentum exchange on the [[solid]] bodies (Ladd 1994, J. Fluid Mech. 271, 285; in the Galilean-invariant form of
// Wen, Zhang, Tu, Wang & Fang 2014, J. Comput. Phys. 266, 161, for interpolated walls): each cut link (a fluid cell
// x_f and a direction i with x_f + c_i inside a solid, kernels/cut_links.hpp) carries (f_out + f_in) c_i of momentum
// into the resting solid per step (exchanged_momentum, kernels/boundary_rules.hpp): f_out = f*_i(x_f), the
// post-collision population that leaves x_f towards the wall (with Guo forcing, the value after the forcing term,
// the one the fused kernel writes), f_in = f_opp(i)(x_f, t + 1), the population that comes back from the wall. At a
// half-way wall both are f*_i(x_f): Ladd's 2 f* c_i.
//
// Which slot holds them (kernels/cut_links.hpp): f_in is in the link's wall slot (opp(i), x_f) after a step of
// either parity, once the interpolated walls' pass has run (kernels/interpolated_walls.hpp); at a half-way link
// that slot holds f*_i(x_f) = f_in = f_out. For an interpolated link the pass kept f_out, the value it replaced,
// in its `saved` array. The value is that of the step just taken: the force reported at step n is the momentum
// exchanged by the collision of step n. The pass writes no population.
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
#include "kernels/boundary_rules.hpp"
#include "kernels/cut_links.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Fraction bits of the fixed-point force and torque sums: resolution 2^-40 ~ 9.1e-13 lattice units per link.
inline constexpr int kForceFractionBits = 40;
/// Sums per solid: Fx, Fy, Fz, Tx, Ty, Tz.
inline constexpr int kForceSums = 6;

/// v in fixed point (kForceFractionBits), rounded to nearest (ties up); two's complement in the unsigned result.
EDDY_HOST_DEVICE inline unsigned long long to_force_fixed(double v) {
  return static_cast<unsigned long long>(static_cast<long long>(floor(ldexp(v, kForceFractionBits) + 0.5)));
}

/// A fixed-point sum back to a double.
inline double from_force_fixed(unsigned long long q) {
  return std::ldexp(static_cast<double>(static_cast<long long>(q)), -kForceFractionBits);
}

/// The population (not shifted) in slot `slot` of the block array `f` ([i * n_cells + cell], f_i - w_i as stored),
/// direction `dir`'s weight added back (w_i = w_opp(i)).
template <class T>
EDDY_HOST_DEVICE inline double unshifted(const T* f, std::int64_t slot, int dir) {
  return double(Stored<T>::load(f[slot])) + d3q19::w<double>(dir);
}

/// The fixed-point contributions of one cut link whose populations are f_out and f_in (unshifted): (f_out + f_in)
/// c (force) and (f_out + f_in) arm (torque), in the order of kForceSums.
EDDY_HOST_DEVICE inline void cut_link_momentum(const CutLink& link, double f_out, double f_in,
                                               unsigned long long (&q)[kForceSums]) {
  const double exchanged = exchanged_momentum(f_out, f_in);
  const unsigned long long m = to_force_fixed(exchanged);
  for (int a = 0; a < 3; ++a) {
    const int c = d3q19::c(link.dir, a);
    q[a] = c > 0 ? m : (c < 0 ? 0ull - m : 0ull);
    q[3 + a] = to_force_fixed(exchanged * link.arm[a]);
  }
}

/// Adds the momentum exchange of `n_links` cut links of array `a` to `sums` ([solid * kForceSums + k], fixed
/// point), with integer atomics (device pass, kernels/solid_forces.cpp). Links k < n_saved take f_out from
/// saved[k] (the interpolated links, after their pass); the others f_out = f_in = their wall slot (half-way links,
/// and interpolated ones whose saved value is not that of the step just taken: after a restart, before a step).
template <class T>
void sum_cut_link_forces(const PopulationView<T>& a, const CutLink* links, std::int64_t n_links, const T* saved,
                         std::int64_t n_saved, unsigned long long* sums, const backend::Stream* stream = nullptr);

}  // namespace eddy
