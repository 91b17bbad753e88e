// The discrete adjoint of one cell's collision and of its moments: the transposed Jacobian (a vector-Jacobian
// product) of kernels/collision.hpp's TRT/BGK collision with Guo forcing, evaluated at the cell's pre-collision
// populations. Pure per-cell functions; the adjoint step (kernels/adjoint_step.cpp) calls them for every fluid cell.
//
// Forward map of one cell (kernels/collision.hpp, relax_shifted with scale 1, shifted populations g_i = f_i - w_i):
//   drho = sum_i g_i,  rho = 1 + drho,  u = (sum_i c_i g_i + F/2) / rho                      Guo et al. 2002, eq. 17
//   base = drho - 3/2 rho u.u,  sb = -3 (1 - omega+/2) u.F
//   g_0* = g_0 - omega+ (g_0 - w_0 base) + w_0 sb
//   for each pair (i, j = opp(i)), cu = c_i.u, cF = c_i.F:
//     feq+ = w_i (base + 9/2 rho cu^2),  feq- = 3 w_i rho cu
//     S+ = w_i (9 (1 - omega+/2) cu cF + sb),  S- = 3 w_i (1 - omega-/2) cF
//     d+ = omega+/2 (g_i + g_j) - omega+ feq+ - S+,  d- = omega-/2 (g_i - g_j) - omega- feq- - S-
//     g_i* = g_i - d+ - d-,  g_j* = g_j - d+ + d-
// Adjoint (reverse-mode differentiation of the lines above, last line first; Griewank & Walther 2008, Evaluating
// Derivatives, 2nd ed., ch. 3): given mu_i = dL/dg_i*, it returns lambda_i = dL/dg_i = sum_k mu_k dg_k*/dg_i and
// adds dL/dF_a = sum_k mu_k dg_k*/dF_a. With P = mu_i + mu_j and M = mu_i - mu_j for a pair:
//   lambda_i = mu_i - omega+/2 P - omega-/2 M,  lambda_j = mu_j - omega+/2 P + omega-/2 M   (direct dependence)
//   adjoints of the intermediates: base += omega+ w_i P (+ omega+ w_0 mu_0),  sb += w_i P (+ w_0 mu_0),
//   rho += w_i (9/2 omega+ P cu^2 + 3 omega- M cu),  cu += w_i (9 omega+ P rho cu + 3 omega- M rho
//   + 9 (1 - omega+/2) P cF),  cF += w_i (9 (1 - omega+/2) P cu + 3 (1 - omega-/2) M)
// and through base, sb and u to drho, rho and F (moments_adjoint below). The rates' adjoints, for the viscosity:
//   dL/domega+ = mu_0 (w_0 base - g_0 + 3/2 w_0 u.F) - sum_pairs P (1/2 (g_i + g_j) - feq+ + w_i (9/2 cu cF - 3/2 u.F))
//   dL/domega- = - sum_pairs M (1/2 (g_i - g_j) - feq- + 3/2 w_i cF)
// (d(1 - omega/2)/domega = -1/2 in the kept source terms). The derivative is exact for the arithmetic
// of the forward function up to its rounding (the rest weight's two-part product sums to w_0).
//
// Units: lattice. Memory traffic: none of its own (registers).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// Reverse of the moments u = (j + F/2) / rho, rho = 1 + drho, j = sum_i c_i g_i, drho = sum_i g_i: given the
/// adjoints rho_bar = dL/drho and u_bar = dL/du at a cell with moments rho, u, adds to lambda_i the part
/// rho_bar + u_bar.(c_i - u) / rho (dL/dg_i through the moments) and to force_bar the part u_bar / (2 rho)
/// (through the F/2 shift). Lattice units.
template <class R>
EDDY_HOST_DEVICE inline void moments_adjoint(R rho_bar, const R (&u_bar)[3], R rho, const R (&u)[3],
                                             R (&lambda)[d3q19::Q], R (&force_bar)[3]) {
  const R inv_rho = R(1) / rho;
  const R j_bar[3] = {u_bar[0] * inv_rho, u_bar[1] * inv_rho, u_bar[2] * inv_rho};
  // drho_bar = rho_bar - u_bar.u / rho (u depends on rho), then every g_i adds it; j_bar adds c_i . j_bar.
  const R drho_bar = rho_bar - (j_bar[0] * u[0] + j_bar[1] * u[1] + j_bar[2] * u[2]);
  EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) lambda[i] += drho_bar + d3q19::c_dot(i, j_bar);
  for (int a = 0; a < 3; ++a) force_bar[a] += R(0.5) * j_bar[a];
}

/// The objectives of solver/adjoint.hpp at one fluid cell with arrived moments rho, u: the cell's share of L and
/// its derivatives rho_bar = dL/drho, u_bar = dL/du. kind 0, velocity mismatch to u_t: L_x = 1/2 |u - u_t|^2,
/// u_bar = u - u_t; kind 1, kinetic energy: L_x = 1/2 rho |u|^2, rho_bar = 1/2 |u|^2, u_bar = rho u. Lattice units.
template <class R>
EDDY_HOST_DEVICE inline double cell_objective(int kind, R rho, const R (&u)[3], const R (&u_t)[3], R& rho_bar,
                                              R (&u_bar)[3]) {
  if (kind == 0) {
    double value = 0.0;
    rho_bar = R(0);
    for (int a = 0; a < 3; ++a) {
      u_bar[a] = u[a] - u_t[a];
      value += 0.5 * double(u_bar[a]) * double(u_bar[a]);
    }
    return value;
  }
  const R usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  rho_bar = R(0.5) * usq;
  for (int a = 0; a < 3; ++a) u_bar[a] = rho * u[a];
  return 0.5 * double(rho) * double(usq);
}

/// The adjoint of one cell's collision (the file's formula): from the pre-collision shifted populations g (unscaled)
/// with force density `force`, rates omega_plus and omega_minus, and mu = dL/dg* (the adjoint of the
/// post-collision populations), sets lambda = dL/dg, adds dL/dF to force_bar and (dL/domega+, dL/domega-) to
/// omega_bar. Lattice units. The Guo source is always differentiated: with F = 0 the forward values equal
/// collide<false>'s, and dL/dF is the derivative at F = 0.
template <class R>
EDDY_HOST_DEVICE inline void collide_adjoint(const R (&g)[d3q19::Q], const R (&force)[3], R omega_plus, R omega_minus,
                                             const R (&mu)[d3q19::Q], R (&lambda)[d3q19::Q], R (&force_bar)[3],
                                             R (&omega_bar)[2]) {
  // Forward moments, as shifted_moments computes them.
  R drho = R(0), j[3] = {R(0), R(0), R(0)};
  EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    drho += g[i];
    for (int a = 0; a < 3; ++a) j[a] += R(d3q19::c(i, a)) * g[i];
  }
  const R rho = R(1) + drho;
  const R u[3] = {(j[0] + R(0.5) * force[0]) / rho, (j[1] + R(0.5) * force[1]) / rho, (j[2] + R(0.5) * force[2]) / rho};
  const R usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const R uF = u[0] * force[0] + u[1] * force[1] + u[2] * force[2];
  const R keep_plus = R(1) - R(0.5) * omega_plus, keep_minus = R(1) - R(0.5) * omega_minus;
  const R base = drho - R(1.5) * rho * usq;

  // Rest population.
  const R w0 = d3q19::w<R>(0);
  lambda[0] = mu[0] * (R(1) - omega_plus);
  R omega_plus_bar = mu[0] * (w0 * base - g[0] + R(1.5) * w0 * uF), omega_minus_bar = R(0);
  R base_bar = omega_plus * w0 * mu[0];
  R sb_bar = w0 * mu[0];
  R rho_bar = R(0), u_bar[3] = {R(0), R(0), R(0)}, f_bar[3] = {R(0), R(0), R(0)};
  EDDY_UNROLL
  for (int i = 1; i < d3q19::Q; i += 2) {
    const int k = i + 1;  // opp(i)
    const R w = d3q19::w<R>(i);
    const R cu = d3q19::c_dot(i, u), cF = d3q19::c_dot(i, force);
    const R P = mu[i] + mu[k], M = mu[i] - mu[k];
    lambda[i] = mu[i] - R(0.5) * omega_plus * P - R(0.5) * omega_minus * M;
    lambda[k] = mu[k] - R(0.5) * omega_plus * P + R(0.5) * omega_minus * M;
    const R feq_plus = w * (base + R(4.5) * rho * cu * cu), feq_minus = R(3) * w * rho * cu;
    omega_plus_bar -= P * (R(0.5) * (g[i] + g[k]) - feq_plus + w * (R(4.5) * cu * cF - R(1.5) * uF));
    omega_minus_bar -= M * (R(0.5) * (g[i] - g[k]) - feq_minus + R(1.5) * w * cF);
    base_bar += omega_plus * w * P;
    sb_bar += w * P;
    rho_bar += w * (R(4.5) * omega_plus * P * cu * cu + R(3) * omega_minus * M * cu);
    const R cu_bar = w * (R(9) * omega_plus * P * rho * cu + R(3) * omega_minus * M * rho + R(9) * keep_plus * P * cF);
    const R cF_bar = w * (R(9) * keep_plus * P * cu + R(3) * keep_minus * M);
    for (int a = 0; a < 3; ++a) {
      u_bar[a] += cu_bar * R(d3q19::c(i, a));
      f_bar[a] += cF_bar * R(d3q19::c(i, a));
    }
  }
  // base = drho - 3/2 rho u.u (drho_bar goes to every g_i; rho = 1 + drho below), sb = -3 keep+ u.F.
  rho_bar += base_bar * (R(1) - R(1.5) * usq);
  for (int a = 0; a < 3; ++a) {
    u_bar[a] += -R(3) * rho * u[a] * base_bar - R(3) * keep_plus * force[a] * sb_bar;
    f_bar[a] += -R(3) * keep_plus * u[a] * sb_bar;
  }
  moments_adjoint(rho_bar, u_bar, rho, u, lambda, force_bar);
  for (int a = 0; a < 3; ++a) force_bar[a] += f_bar[a];
  omega_bar[0] += omega_plus_bar;
  omega_bar[1] += omega_minus_bar;
}

}  // namespace eddy
