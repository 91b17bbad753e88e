// Finite-difference stencils on cell fields (one value per block cell, ghost layer included, BlockShape::index
// order; lattice units, dx = 1): first and second derivatives, and from them gradient, divergence, curl
// (vorticity), Laplacian, strain-rate magnitude and the Q-criterion.
//
// Differences (Taylor expansion about cell x, h = 1; e.g. LeVeque 2007, Finite Difference Methods for Ordinary and
// Partial Differential Equations, sec. 1.1-1.5; Fornberg 1988, Math. Comp. 51, 699, table 1):
//   first derivative, central:     f'(x)  ~ (f(x+1) - f(x-1)) / 2               error -f'''/6  : exact for quadratics
//   first derivative, one-sided:   f'(x)  ~ s (-3 f(x) + 4 f(x+s) - f(x+2s)) / 2 error +f'''/3  : exact for quadratics
//                                  (s = +1 or -1: towards the fluid side)
//   second derivative, central:    f''(x) ~ f(x+1) - 2 f(x) + f(x-1)             error f''''/12 : exact for cubics
//   second derivative, one-sided:  f''(x) ~ 2 f(x) - 5 f(x+s) + 4 f(x+2s) - f(x+3s) error 11 f''''/12: exact for
//                                  cubics, second order (the 3-point one-sided f(x) - 2 f(x+s) + f(x+2s) is only
//                                  first order: it is centred at x+s)
// Which one a cell uses along an axis: the central formula when both neighbours along that axis are open (inside
// the block and fluid: not solid, and not the ghost node of an open face, which holds no velocity); the one-sided
// formula towards the open side when exactly one is; 0 when neither is (a fluid cell squeezed between two solid cells
// along that axis has no difference along it). Where the one-sided formula's farther cells are not open (a gap of one
// or two fluid cells, or beyond the block: past its ghost layer only an outer layer, OuterLayerView in
// kernels/stencil_launchers.hpp, holds values), the cell falls back to the widest open one-sided formula: first
// derivative (f(x+s) - f(x)) s (first order), second derivative f(x) - 2 f(x+s) + f(x+2s) (first order) or 0 (only one
// open neighbour). A fluid cell flagged kFluid has only fluid neighbours among the 18 D3Q19 directions
// (kernels/cell_flags.hpp), so it takes the central formulas without reading neighbour flags; kFluidNearSolid cells
// check each neighbour.
//
// The velocity gradient tensor G_ij = d u_i / d x_j gives
//   divergence      div u   = G_ii
//   curl            omega   = (G_zy - G_yz, G_xz - G_zx, G_yx - G_xy)
//   strain rate     S_ij    = (G_ij + G_ji) / 2,   |S| = sqrt(2 S_ij S_ij)   (Pope 2000, Turbulent Flows, eq. 2.62
//                                                                            and sec. 5.4, the "characteristic
//                                                                            filtered rate of strain" of eq. 13.74)
//   rotation        Omega_ij = (G_ij - G_ji) / 2
//   Q-criterion     Q = (Omega_ij Omega_ij - S_ij S_ij) / 2                 (Hunt, Wray & Moin 1988, Eddies, streams
//                                                                            and convergence zones in turbulent
//                                                                            flows, CTR Report CTR-S88, eq. 2.2;
//                                                                            Jeong & Hussain 1995, J. Fluid Mech.
//                                                                            285, 69, sec. 3.2)
// Solid-body rotation u = W x r has omega = 2 W, S = 0 and Q = |W|^2 > 0; pure strain u = (a x, -a y, 0) has
// omega = 0 and Q = -a^2 < 0.
//
// Note on walls: with halfway bounce-back the wall lies half a cell beyond the last fluid cell, and solid cells of a
// velocity field carry the wall's velocity (kernels/field_launchers.hpp). These stencils treat solid cells as
// having no data at all and extrapolate from the fluid side; they do not use the wall velocity.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"

namespace eddy::stencil {

// ---- one-dimensional formulas ------------------------------------------------------------------------------------

/// Central first difference (f(x+1) - f(x-1)) / 2. Second order; exact for polynomials of degree <= 2.
template <class R>
EDDY_HOST_DEVICE inline R central_first(R f_minus, R f_plus) {
  return (f_plus - f_minus) * R(0.5);
}

/// One-sided first difference towards +s (s = +1 or -1) from f0 = f(x), f1 = f(x + s), f2 = f(x + 2s):
/// s (-3 f0 + 4 f1 - f2) / 2. Second order; exact for polynomials of degree <= 2.
template <class R>
EDDY_HOST_DEVICE inline R one_sided_first(R f0, R f1, R f2, int s) {
  const R d = (R(4) * f1 - R(3) * f0 - f2) * R(0.5);
  return s > 0 ? d : -d;
}

/// Central second difference f(x+1) - 2 f(x) + f(x-1). Second order; exact for polynomials of degree <= 3.
template <class R>
EDDY_HOST_DEVICE inline R central_second(R f_minus, R f0, R f_plus) {
  return (f_plus + f_minus) - R(2) * f0;
}

/// One-sided second difference from f(x), f(x+s), f(x+2s), f(x+3s): 2 f0 - 5 f1 + 4 f2 - f3 (the same for both
/// signs of s). Second order; exact for polynomials of degree <= 3.
template <class R>
EDDY_HOST_DEVICE inline R one_sided_second(R f0, R f1, R f2, R f3) {
  return (R(2) * f0 + R(4) * f2) - (R(5) * f1 + f3);
}

// ---- three-dimensional derivatives from a field accessor ----------------------------------------------------------
//
// An accessor `A` gives, in block-local coordinates (kernels/block.hpp),
//   R value(int c, int x, int y, int z) const   component c of the field at cell (x, y, z);
//   bool open(int x, int y, int z) const        true where the cell is inside the block and not solid;
//   bool near_solid() const                     false when the cell being computed is kFluid (no solid neighbour:
//                                               central differences without flag reads).
// The value of a cell is read only where it is open.

/// Block-local coordinates of the cell `k` steps from (x, y, z) along `axis`.
struct Step {
  int p[3];
  EDDY_HOST_DEVICE Step(int x, int y, int z, int axis, int k) : p{x, y, z} { p[axis] += k; }
};

/// d f_c / d x_axis at cell (x, y, z) (lattice units, dx = 1): central where both neighbours along `axis` are open,
/// else one-sided (see the file comment), 0 when neither is.
template <class R, class A>
EDDY_HOST_DEVICE inline R first_derivative(const A& a, int c, int x, int y, int z, int axis) {
  const Step m(x, y, z, axis, -1), p(x, y, z, axis, +1);
  if (!a.near_solid()) return central_first(a.value(c, m.p[0], m.p[1], m.p[2]), a.value(c, p.p[0], p.p[1], p.p[2]));
  const bool open_m = a.open(m.p[0], m.p[1], m.p[2]), open_p = a.open(p.p[0], p.p[1], p.p[2]);
  if (open_m && open_p) return central_first(a.value(c, m.p[0], m.p[1], m.p[2]), a.value(c, p.p[0], p.p[1], p.p[2]));
  if (!open_m && !open_p) return R(0);
  const int s = open_p ? 1 : -1;
  const Step n1(x, y, z, axis, s), n2(x, y, z, axis, 2 * s);
  const R f0 = a.value(c, x, y, z), f1 = a.value(c, n1.p[0], n1.p[1], n1.p[2]);
  if (!a.open(n2.p[0], n2.p[1], n2.p[2])) return s > 0 ? f1 - f0 : f0 - f1;  // first order: a one-cell gap
  return one_sided_first(f0, f1, a.value(c, n2.p[0], n2.p[1], n2.p[2]), s);
}

/// d^2 f_c / d x_axis^2 at cell (x, y, z): central where both neighbours along `axis` are open, else the 4-point
/// one-sided formula (falling back to 3 points, first order, or 0: see the file comment).
template <class R, class A>
EDDY_HOST_DEVICE inline R second_derivative(const A& a, int c, int x, int y, int z, int axis) {
  const Step m(x, y, z, axis, -1), p(x, y, z, axis, +1);
  const R f0 = a.value(c, x, y, z);
  if (!a.near_solid()) {
    return central_second(a.value(c, m.p[0], m.p[1], m.p[2]), f0, a.value(c, p.p[0], p.p[1], p.p[2]));
  }
  const bool open_m = a.open(m.p[0], m.p[1], m.p[2]), open_p = a.open(p.p[0], p.p[1], p.p[2]);
  if (open_m && open_p) {
    return central_second(a.value(c, m.p[0], m.p[1], m.p[2]), f0, a.value(c, p.p[0], p.p[1], p.p[2]));
  }
  if (!open_m && !open_p) return R(0);
  const int s = open_p ? 1 : -1;
  const Step n2(x, y, z, axis, 2 * s), n3(x, y, z, axis, 3 * s);
  if (!a.open(n2.p[0], n2.p[1], n2.p[2])) return R(0);  // a one-cell gap: no second difference along this axis
  const Step n1(x, y, z, axis, s);
  const R f1 = a.value(c, n1.p[0], n1.p[1], n1.p[2]), f2 = a.value(c, n2.p[0], n2.p[1], n2.p[2]);
  if (!a.open(n3.p[0], n3.p[1], n3.p[2])) return central_second(f0, f1, f2);  // first order: a two-cell gap
  return one_sided_second(f0, f1, f2, a.value(c, n3.p[0], n3.p[1], n3.p[2]));
}

/// Gradient of component c: g[j] = d f_c / d x_j.
template <class R, class A>
EDDY_HOST_DEVICE inline void gradient(const A& a, int c, int x, int y, int z, R (&g)[3]) {
  for (int j = 0; j < 3; ++j) g[j] = first_derivative<R>(a, c, x, y, z, j);
}

/// Velocity gradient tensor G[i][j] = d u_i / d x_j (components 0, 1, 2 of the accessor).
template <class R, class A>
EDDY_HOST_DEVICE inline void velocity_gradient(const A& a, int x, int y, int z, R (&G)[3][3]) {
  for (int i = 0; i < 3; ++i) gradient<R>(a, i, x, y, z, G[i]);
}

/// Divergence d u_i / d x_i (three derivatives, not the whole tensor).
template <class R, class A>
EDDY_HOST_DEVICE inline R divergence(const A& a, int x, int y, int z) {
  return (first_derivative<R>(a, 0, x, y, z, 0) + first_derivative<R>(a, 1, x, y, z, 1)) +
         first_derivative<R>(a, 2, x, y, z, 2);
}

/// Laplacian of component c: sum over j of d^2 f_c / d x_j^2.
template <class R, class A>
EDDY_HOST_DEVICE inline R laplacian(const A& a, int c, int x, int y, int z) {
  return (second_derivative<R>(a, c, x, y, z, 0) + second_derivative<R>(a, c, x, y, z, 1)) +
         second_derivative<R>(a, c, x, y, z, 2);
}

/// Curl (vorticity) of the gradient tensor: omega = (G_zy - G_yz, G_xz - G_zx, G_yx - G_xy).
template <class R>
EDDY_HOST_DEVICE inline void curl(const R (&G)[3][3], R (&omega)[3]) {
  omega[0] = G[2][1] - G[1][2];
  omega[1] = G[0][2] - G[2][0];
  omega[2] = G[1][0] - G[0][1];
}

/// S_ij S_ij with S = (G + G^T) / 2.
template <class R>
EDDY_HOST_DEVICE inline R strain_squared(const R (&G)[3][3]) {
  R sum = R(0);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const R s = (G[i][j] + G[j][i]) * R(0.5);
      sum += s * s;
    }
  }
  return sum;
}

/// Omega_ij Omega_ij with Omega = (G - G^T) / 2.
template <class R>
EDDY_HOST_DEVICE inline R rotation_squared(const R (&G)[3][3]) {
  R sum = R(0);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const R w = (G[i][j] - G[j][i]) * R(0.5);
      sum += w * w;
    }
  }
  return sum;
}

/// Strain-rate magnitude |S| = sqrt(2 S_ij S_ij) (lattice units: 1 / time step).
template <class R>
EDDY_HOST_DEVICE inline R strain_rate_magnitude(const R (&G)[3][3]) {
  return std::sqrt(R(2) * strain_squared(G));
}

/// Q-criterion Q = (Omega_ij Omega_ij - S_ij S_ij) / 2 (Hunt, Wray & Moin 1988): > 0 where rotation dominates.
template <class R>
EDDY_HOST_DEVICE inline R q_criterion(const R (&G)[3][3]) {
  return (rotation_squared(G) - strain_squared(G)) * R(0.5);
}

}  // namespace eddy::stencil
