// The D3Q19 velocity set: lattice velocities c_i, weights w_i, opposite directions opp(i), c_s^2 = 1/3.
// Source: Krueger et al. (2017), The Lattice Boltzmann Method, Springer, Table 3.3 (eq. 3.60).
//
// Ordering: 0 is the rest population; every other direction i is paired with its opposite, stored adjacently:
// opp(i) = i + 1 for odd i, i - 1 for even i > 0. Axis directions 1..6, face diagonals 7..18.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/backend.hpp"

namespace eddy::d3q19 {

inline constexpr int Q = 19;

namespace detail {
/// The components c_i,axis + 1 (0, 1 or 2) of the 19 directions, two bits each (direction i at bits 2i, 2i + 1):
/// c() below reads them with a shift and a mask, so a direction known only at run time (the open-face and wall
/// passes' links) costs two instructions, where a table would be copied into each GPU thread's local memory.
constexpr std::uint64_t pack_components(const int (&c)[Q]) {
  std::uint64_t bits = 0;
  for (int i = 0; i < Q; ++i) bits |= std::uint64_t(c[i] + 1) << (2 * i);
  return bits;
}
constexpr int kCx[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
constexpr int kCy[Q] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
constexpr int kCz[Q] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
inline constexpr std::uint64_t kPackedX = pack_components(kCx);
inline constexpr std::uint64_t kPackedY = pack_components(kCy);
inline constexpr std::uint64_t kPackedZ = pack_components(kCz);
}  // namespace detail

/// Component `axis` (0 = x, 1 = y, 2 = z) of lattice velocity c_i, in lattice units (dx / dt).
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr int c(int i, int axis) {
  const std::uint64_t bits = axis == 0 ? detail::kPackedX : (axis == 1 ? detail::kPackedY : detail::kPackedZ);
  return int((bits >> (2 * i)) & 3u) - 1;
}

/// Lattice weight w_i: 1/3 (rest), 1/18 (axis), 1/36 (face diagonal).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R w(int i) {
  return i == 0 ? R(1) / R(3) : (i <= 6 ? R(1) / R(18) : R(1) / R(36));
}

/// The rest population's weight for the collision's mass-carrying terms, as two parts of R, w_rest_head + w_rest_tail
/// (kernels/collision.hpp): w_rest_head = 5/16 and w_rest_tail = 1 - 6 w_axis - 12 w_diagonal - 5/16 of the nearest
/// w<R> (float 0x1.55555p-6, double 0x1.555555555556p-6, both exact), so that the 19 weights sum to exactly 1, and
/// their sum is 1/3 to 2^-26 (float) or 1.1e-16 (double) relative. Two faults of w_0 = w<R>(0) alone, both of which
/// made a steady float flow lose mass linearly in time (tests/physics/test_conservation.cpp):
///   - the nearest values of 1/3, 1/18, 1/36 sum to 1 + 2^-26 in float (1 - 2^-54 in double); the collision gives
///     each direction w_i times a per-cell term B (drho - 3/2 rho u.u, and the force's -3 u.F), so it changed a
///     cell's mass by omega 2^-26 B, with B about -3/2 u.u < 0, in every moving cell, every step: a 32^2 float lid
///     cavity drifted by -2.2e-11 per step;
///   - w_0 B rounds with a bias: a constant within an ulp of 1/3 (significand ~4/3) times values spread over a narrow
///     range, as B is in a steady flow, rounds the same way more often than not. Taking off the excess alone
///     (w_0 B - 2^-26 B) left the default 128^2 cavity drifting by -1.5e-7 in 150,000 steps, still falling.
///     5/16 B rounds without that bias (a short dyadic significand) and the tail's product is 16 times smaller;
///     the default case then stays within 7e-9 over 150,000 steps.
/// Weights moved by an ulp so as to sum to 1 (w_0 = 0x1.555558p-2, w_axis = 0x1.c71c7p-5) removed the linear drift
/// too, but left the same kind of product bias (+1.3e-7 in 150,000 steps) and moved every float fixed point (the
/// float Poiseuille channel's measured order at H = 32 fell to 1.87, tests/physics/test_poiseuille.cpp).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R w_rest_head() {
  return R(0.3125);
}
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R w_rest_tail() {
  if constexpr (std::is_same_v<R, float>) {
    return R(0x1.55555p-6f);
  } else {
    return R(0x1.5555555555560p-6);
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
