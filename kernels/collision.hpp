// Two-relaxation-time (TRT) collision with Guo forcing; BGK is the special case omega_minus = omega_plus.
//
// Each pair (i, opp(i)) is split into symmetric and antisymmetric parts, f^+- = (f_i +- f_opp(i)) / 2, and
//   f_i* = f_i - omega+ (f_i^+ - f_eq_i^+) - omega- (f_i^- - f_eq_i^-) + (1 - omega+/2) S_i^+ + (1 - omega-/2) S_i^-
// Sources: Ginzburg, Verhaeghe & d'Humieres (2008), Commun. Comput. Phys. 3, 427 (TRT);
//          Krueger et al. (2017), The Lattice Boltzmann Method, eqs. 10.25-10.29 (TRT), 6.14 (Guo source term);
//          Guo, Zheng & Shi (2002), Phys. Rev. E 65, 046308 (forcing):
//   S_i = w_i [ (c_i - u) / c_s^2 + (c_i.u) c_i / c_s^4 ] . F
//   so  S_i^+ = w_i [ (c_i.u)(c_i.F) / c_s^4 - u.F / c_s^2 ],   S_i^- = w_i (c_i.F) / c_s^2.
// Relaxation rates: omega+ = 1 / tau with nu = c_s^2 (tau - 1/2); omega- from the magic parameter
//   Lambda = (1/omega+ - 1/2)(1/omega- - 1/2)   (Lambda = 3/16 puts halfway bounce-back walls exactly midway).
// Mass is conserved exactly and momentum changes by exactly F per step (both to round-off).
// Written for shifted populations g_i = f_i - w_i (kernels/equilibrium.hpp): with g, f_eq - w reads
//   g_eq_0 = w_0 (drho - 3/2 rho u.u),  g_eq_i^+ = w_i (drho + rho (9/2 (c_i.u)^2 - 3/2 u.u)),  g_eq_i^- = 3 w_i rho c_i.u
// and the relaxation formula is the same in g as in f.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/equilibrium.hpp"

namespace eddy {

/// Parameters of one collision, lattice units. BGK: omega_minus == omega_plus.
template <class R>
struct Relaxation {
  R omega_plus;   ///< 1 / tau, sets the shear viscosity
  R omega_minus;  ///< antisymmetric rate (TRT); equal to omega_plus for BGK
  R force[3];     ///< body force density F
};

/// omega_minus for TRT magic parameter `magic` (Lambda) and omega_plus = 1 / tau.
inline double trt_omega_minus(double omega_plus, double magic) {
  return 1.0 / (magic / (1.0 / omega_plus - 0.5) + 0.5);
}

/// Collides shifted populations g[0..18] = f_i - w_i in place; also returns rho and u (with the F/2 shift).
template <class R>
EDDY_HOST_DEVICE inline void collide(R (&f)[d3q19::Q], const Relaxation<R>& p, R& rho, R (&u)[3]) {
  R drho;
  shifted_moments(f, p.force, drho, rho, u);
  const R usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const R uF = u[0] * p.force[0] + u[1] * p.force[1] + u[2] * p.force[2];
  const R keep_plus = R(1) - R(0.5) * p.omega_plus;
  const R keep_minus = R(1) - R(0.5) * p.omega_minus;

  // Rest population: symmetric only.
  {
    const R feq0 = d3q19::w<R>(0) * (drho - R(1.5) * rho * usq);
    const R s0 = d3q19::w<R>(0) * (-R(3) * uF);
    f[0] = f[0] - p.omega_plus * (f[0] - feq0) + keep_plus * s0;
  }
EDDY_UNROLL
  for (int i = 1; i < d3q19::Q; i += 2) {
    const int j = i + 1;  // opp(i)
    const R w = d3q19::w<R>(i);
    const R cu = R(d3q19::c(i, 0)) * u[0] + R(d3q19::c(i, 1)) * u[1] + R(d3q19::c(i, 2)) * u[2];
    const R cF = R(d3q19::c(i, 0)) * p.force[0] + R(d3q19::c(i, 1)) * p.force[1] + R(d3q19::c(i, 2)) * p.force[2];
    const R feq_plus = w * (drho + rho * (R(4.5) * cu * cu - R(1.5) * usq));
    const R feq_minus = w * rho * R(3) * cu;
    const R s_plus = w * (R(9) * cu * cF - R(3) * uF);
    const R s_minus = w * R(3) * cF;
    const R f_plus = R(0.5) * (f[i] + f[j]);
    const R f_minus = R(0.5) * (f[i] - f[j]);
    const R post_plus = f_plus - p.omega_plus * (f_plus - feq_plus) + keep_plus * s_plus;
    const R post_minus = f_minus - p.omega_minus * (f_minus - feq_minus) + keep_minus * s_minus;
    f[i] = post_plus + post_minus;
    f[j] = post_plus - post_minus;
  }
}

}  // namespace eddy
