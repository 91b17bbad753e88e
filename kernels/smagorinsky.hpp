// Smagorinsky large-eddy simulation: the local relaxation time of a cell from its non-equilibrium momentum flux.
//
// Eddy viscosity nu_t = (C_S Delta)^2 |S|, |S| = sqrt(2 S:S), Delta = 1 (lattice units)      Smagorinsky (1963)
// In the lattice Boltzmann equation the strain rate is local: to first order in the Chapman-Enskog expansion
//   Pi_neq = sum_i c_i c_i (f_i - f_eq_i) + (F u + u F) / 2 = -2 rho c_s^2 tau S
// (Krueger et al. 2017, The Lattice Boltzmann Method, ch. 4, with the Guo forcing's share (F u + u F) / 2 taken out:
// Malaspinas & Sagaut 2012, J. Fluid Mech. 700, 514), so with the total tau = 3 (nu0 + nu_t) + 1/2 = tau0 + 3 C_S^2 |S|, and
// |S| = sqrt(2) Q / (2 rho c_s^2 tau) with Q = sqrt(Pi_neq : Pi_neq), tau solves a quadratic whose positive root is
//   tau = (tau0 + sqrt(tau0^2 + 18 sqrt(2) C_S^2 Q / rho)) / 2
// (Hou, Sterling, Chen & Doolen 1996, Fields Inst. Commun. 6, 151, for BGK without force)
// and omega_plus = 1 / tau. With TRT the antisymmetric rate follows from the magic parameter of the run,
//   omega_minus = 1 / (Lambda / (tau - 1/2) + 1/2),
// so that halfway bounce-back walls stay where they are as nu_t changes; with BGK omega_minus = omega_plus.
// u is the collision's velocity (with the F/2 shift) and F the cell's force density, so the flux is that of the
// populations the collision relaxes. Written for shifted populations g_i = f_i - w_i (kernels/equilibrium.hpp):
//   sum_i c_ia c_ib g_i = sum_i c_ia c_ib f_i - c_s^2 delta_ab,   sum_i c_ia c_ib (f_eq_i - w_i) = c_s^2 drho
//   delta_ab + rho u_a u_b,  so  Pi_neq_ab = sum_i c_ia c_ib g_i - c_s^2 drho delta_ab - rho u_a u_b
//   + (F_a u_b + u_a F_b) / 2.
// Cost: 6 second moments from the 9 pair sums, two square roots and three divisions per cell; no memory traffic.
#pragma once

#include <cmath>

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// Parameters of the Smagorinsky model for the fused kernel, lattice units. factor = 0: no model.
template <class R>
struct Smagorinsky {
  R tau0 = R(0);    ///< molecular relaxation time 1 / omega_plus of the run (nu0 = c_s^2 (tau0 - 1/2))
  R factor = R(0);  ///< 18 sqrt(2) C_S^2 (smagorinsky_factor); 0: off
  R magic = R(0);   ///< TRT Lambda for omega_minus; 0: BGK (omega_minus = omega_plus)
  EDDY_HOST_DEVICE bool on() const { return factor > R(0); }
};

/// 18 sqrt(2) C_S^2, the factor of Q / rho under the root of the relaxation time (header), for constant C_S.
inline double smagorinsky_factor(double smagorinsky_constant) {
  return 18.0 * 1.4142135623730951 * smagorinsky_constant * smagorinsky_constant;
}

namespace d3q19 {
/// sum_i c_ia c_ib g_i over the pairs (i, opp(i)) with c_ia c_ib != 0, from their sums g_i + g_opp(i) (c_ia c_ib is
/// the same for both), without the products 0 * g (see c_dot).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr R pair_second_moment(int a, int b, const R (&g)[Q]) {
  R sum = R(0);
  bool first = true;
EDDY_UNROLL
  for (int i = 1; i < Q; i += 2) {
    const int cc = c(i, a) * c(i, b);
    if (cc == 0) continue;
    const R pair = g[i] + g[i + 1];
    const R term = cc > 0 ? pair : -pair;
    sum = first ? term : sum + term;
    first = false;
  }
  return sum;
}
}  // namespace d3q19

/// Q = sqrt(Pi_neq : Pi_neq) of shifted populations g (stored as scale * g, kernels/storage.hpp) with density rho =
/// 1 + drho, velocity u (with the F/2 shift) and force density F (header). Lattice units.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R nonequilibrium_flux_norm(const R (&g)[d3q19::Q], R scale, R drho, R rho,
                                                              const R (&u)[3], const R (&force)[3]) {
  const R inv_scale = R(1) / scale;
  const R trace = drho * d3q19::cs2<R>();
  R sum_sq = R(0);
EDDY_UNROLL
  for (int a = 0; a < 3; ++a) {
    const R p = d3q19::pair_second_moment(a, a, g) * inv_scale - trace - rho * u[a] * u[a] + force[a] * u[a];
    sum_sq += p * p;
  }
EDDY_UNROLL
  for (int a = 0; a < 2; ++a) {
EDDY_UNROLL
    for (int b = a + 1; b < 3; ++b) {
      const R p = d3q19::pair_second_moment(a, b, g) * inv_scale - rho * u[a] * u[b] +
                  R(0.5) * (force[a] * u[b] + u[a] * force[b]);
      sum_sq += R(2) * p * p;
    }
  }
  return std::sqrt(sum_sq);
}

/// The relaxation rates (omega_plus, omega_minus) of a cell whose non-equilibrium flux has norm Q (header).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void smagorinsky_rates(const Smagorinsky<R>& les, R flux_norm, R rho,
                                                           R& omega_plus, R& omega_minus) {
  const R tau = R(0.5) * (les.tau0 + std::sqrt(les.tau0 * les.tau0 + les.factor * flux_norm / rho));
  omega_plus = R(1) / tau;
  omega_minus = les.magic > R(0) ? R(1) / (les.magic / (tau - R(0.5)) + R(0.5)) : omega_plus;
}

}  // namespace eddy
