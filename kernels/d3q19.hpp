// The D3Q19 velocity set: lattice velocities c_i, weights w_i, opposite directions opp(i), c_s^2 = 1/3.
// Source: Krueger et al. (2017), The Lattice Boltzmann Method, Springer, Table 3.3 (eq. 3.60).
//
// Ordering: 0 is the rest population; every other direction i is paired with its opposite, stored adjacently:
// opp(i) = i + 1 for odd i, i - 1 for even i > 0. Axis directions 1..6, face diagonals 7..18.
#pragma once

#include <type_traits>

#include "kernels/backend.hpp"

namespace eddy::d3q19 {

inline constexpr int Q = 19;

/// Component `axis` (0 = x, 1 = y, 2 = z) of lattice velocity c_i, in lattice units (dx / dt).
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr int c(int i, int axis) {
  constexpr int cx[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
  constexpr int cy[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
  constexpr int cz[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
  return axis == 0 ? cx[i] : (axis == 1 ? cy[i] : cz[i]);
}

/// Lattice weight w_i: 1/3 (rest), 1/18 (axis), 1/36 (face diagonal).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R w(int i) {
  return i == 0 ? R(1) / R(3) : (i <= 6 ? R(1) / R(18) : R(1) / R(36));
}

/// Weights for the terms of the collision that carry mass (kernels/collision.hpp): values of R next to 1/3, 1/18,
/// 1/36 whose sum w_0 + 6 w_axis + 12 w_diagonal is exactly 1 (w<R>, the nearest values, do not sum to 1: float's to
/// 1 + 2^-26, double's to 1 - 2^-54). The collision gives each direction w_i times a per-cell term B
/// (drho - 3/2 rho u.u, and the force's -3 u.F), so it changes a cell's mass by omega (sum_i w_i - 1) B per step. B is
/// about -3/2 u.u wherever drho is small, so with w<float> every moving cell lost mass, every step, and a steady flow
/// drifted linearly: a 32^2 float lid cavity by -2.2e-11 per step (tests/physics/test_conservation.cpp).
///   float:  w_0 = 0x1.555558p-2 (1/3 + 4.0e-8, one ulp above the nearest), w_axis = 0x1.c71c7p-5 (1/18 - 3.3e-9,
///           one ulp below), w_diagonal = w_axis / 2; other choices sum to 1 only further from the rationals;
///   double: w_0 = 0x1.5555555555556p-2 (one ulp above the nearest), w_axis and w_diagonal the nearest.
/// Other terms keep w<R>: 4.5 w_i and 9 w_i round to exactly 1/4, 1/8, 1/2, 1/4 from the nearest values (their mass
/// identities then hold exactly), which these do not for float.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R w_mass(int i) {
  if constexpr (std::is_same_v<R, float>) {
    return i == 0 ? R(0x1.555558p-2f) : (i <= 6 ? R(0x1.c71c7p-5f) : R(0x1.c71c7p-6f));
  } else {
    return i == 0 ? R(0x1.5555555555556p-2) : w<R>(i);
  }
}

/// Index of the direction opposite to i: c_opp(i) = -c_i.
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr int opp(int i) { return i == 0 ? 0 : ((i & 1) ? i + 1 : i - 1); }

/// c_i . v, summed over the nonzero components of c_i only (0 for the rest direction). IEEE arithmetic may not
/// drop a product 0 * v (v could be NaN), so the plain three-term dot product costs three multiplications per
/// direction in the unrolled kernels, where this costs at most one addition (c_i has components 0 and +-1).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R c_dot(int i, const R (&v)[3]) {
  R sum = R(0);
  bool first = true;
EDDY_UNROLL
  for (int axis = 0; axis < 3; ++axis) {
    const int ci = c(i, axis);
    if (ci == 0) continue;
    const R term = ci > 0 ? v[axis] : -v[axis];
    sum = first ? term : sum + term;
    first = false;
  }
  return sum;
}

/// sum_i c_i[axis] g_i over the directions with a nonzero component along `axis` (10 of the 19), in direction
/// order: one momentum component of g without the products 0 * g_i (see c_dot).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R c_moment(int axis, const R (&g)[Q]) {
  R sum = R(0);
  bool first = true;
EDDY_UNROLL
  for (int i = 1; i < Q; ++i) {
    const int ci = c(i, axis);
    if (ci == 0) continue;
    const R term = ci > 0 ? g[i] : -g[i];
    sum = first ? term : sum + term;
    first = false;
  }
  return sum;
}

/// Speed of sound squared, c_s^2 = 1/3 (lattice units).
template <class R>
EDDY_HOST_DEVICE constexpr R cs2() {
  return R(1) / R(3);
}

}  // namespace eddy::d3q19
