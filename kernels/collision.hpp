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
// Mass is conserved exactly and momentum changes by exactly F per step (both to round-off). In R, mass is conserved
// to unbiased rounding only if the weights of the mass-carrying terms sum to exactly 1, which the nearest values of
// 1/3, 1/18, 1/36 in R do not: the rest population's weight makes up the difference (d3q19::w_rest_head/tail).
// Written for shifted populations g_i = f_i - w_i (kernels/equilibrium.hpp): with g, f_eq - w reads
//   g_eq_0 = w_0 (drho - 3/2 rho u.u),   g_eq_i^+ = w_i (drho + rho (9/2 (c_i.u)^2 - 3/2 u.u)),
//   g_eq_i^- = 3 w_i rho c_i.u
// and the relaxation formula is the same in g as in f.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/equilibrium.hpp"
#include "kernels/smagorinsky.hpp"

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

/// Relaxes shifted populations g[0..18] (stored as scale * g) in place towards the equilibrium of drho = rho - 1
/// and u (with the F/2 shift) at rates omega_plus and omega_minus, with the Guo source of force density `force`
/// when kForce (the header's formula). collide and collide_les call it after the moments.
template <bool kForce, class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void relax_shifted(R (&f)[d3q19::Q], R omega_plus, R omega_minus,
                                                     const R (&force)[3], R drho, R rho, const R (&u)[3], R scale) {
  const R usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const R uF = u[0] * force[0] + u[1] * force[1] + u[2] * force[2];
  const R keep_plus = R(1) - R(0.5) * omega_plus;
  const R keep_minus = R(1) - R(0.5) * omega_minus;
  const R half_omega_plus = R(0.5) * omega_plus;
  const R half_omega_minus = R(0.5) * omega_minus;
  // g_eq_i^+ = w_i (base + 9/2 rho (c_i.u)^2) and keep+ S_i^+ = w_i (9 keep+ (c_i.u)(c_i.F) + source_base).
  const R base = drho - R(1.5) * rho * usq;
  const R source_base = keep_plus * (-R(3) * uF);
  const R rho_scaled = rho * scale;
  const R keep_plus_scaled = keep_plus * scale;
  const R keep_minus_scaled = keep_minus * scale;

  // Rest population: symmetric only. Its shares of base and source_base, which carry mass, take the weight in two
  // parts (d3q19::w_rest_head, w_rest_tail): the 19 weights then sum to exactly 1 in R, and the share rounds without
  // the bias of a product by ~1/3. One fused multiply-add more per cell than w_0 alone (two with a force).
  {
    const R head = d3q19::w_rest_head<R>() * scale;
    const R tail = d3q19::w_rest_tail<R>() * scale;
    const R rest_base = head * base + tail * base;
    if constexpr (kForce) {
      f[0] = f[0] - omega_plus * (f[0] - rest_base) + (head * source_base + tail * source_base);
    } else {
      f[0] = f[0] - omega_plus * (f[0] - rest_base);
    }
  }
EDDY_UNROLL
  for (int i = 1; i < d3q19::Q; i += 2) {
    const int j = i + 1;  // opp(i)
    const R w = d3q19::w<R>(i);
    const R ws = w * scale;
    const R cu = d3q19::c_dot(i, u);
    const R feq_plus = ws * base + (R(4.5) * w) * rho_scaled * cu * cu;
    const R feq_minus = (R(3) * w) * rho_scaled * cu;
    // omega (f^+- - f_eq^+-) - keep S^+-, with f^+- = (f_i +- f_j) / 2.
    R d_plus, d_minus;
    if constexpr (kForce) {
      const R cF = d3q19::c_dot(i, force);
      const R kept_s_plus = (R(9) * w) * keep_plus_scaled * cu * cF + ws * source_base;
      const R kept_s_minus = (R(3) * w) * keep_minus_scaled * cF;
      d_plus = half_omega_plus * (f[i] + f[j]) - (omega_plus * feq_plus + kept_s_plus);
      d_minus = half_omega_minus * (f[i] - f[j]) - (omega_minus * feq_minus + kept_s_minus);
    } else {
      d_plus = half_omega_plus * (f[i] + f[j]) - omega_plus * feq_plus;
      d_minus = half_omega_minus * (f[i] - f[j]) - omega_minus * feq_minus;
    }
    f[i] = f[i] - (d_plus + d_minus);
    f[j] = f[j] - (d_plus - d_minus);
  }
}

/// Collides shifted populations g[0..18] = f_i - w_i in place; also returns rho and u (with the F/2 shift).
/// `scale`: f holds scale * g_i on entry and on return (fp16 storage, kernels/storage.hpp), so a stored value
/// needs no multiplication on its way in or out; rho and u are unscaled. With scale = 1 the factor folds away.
/// The per-cell parts of f_eq and S_i are formed once and the products with c_i skip its zero components
/// (d3q19::c_dot): about 20 operations per pair of directions.
/// kForce = false: for a force density known to be zero (p.force all +0, no per-cell force), the source terms
/// S_i are left out instead of computed as products with 0, which IEEE arithmetic does not let the compiler drop
/// (0 * x is not 0 for x = NaN): about 8 operations fewer per pair. The result equals kForce = true with zero
/// force, except possibly for the sign of a zero.
template <bool kForce = true, class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void collide(R (&f)[d3q19::Q], const Relaxation<R>& p, R& rho, R (&u)[3],
                                               R scale = R(1)) {
  R drho;
  shifted_moments(f, p.force, drho, rho, u, scale);
  relax_shifted<kForce>(f, p.omega_plus, p.omega_minus, p.force, drho, rho, u, scale);
}

/// collide with the Smagorinsky model: the cell's rates from its non-equilibrium flux (kernels/smagorinsky.hpp)
/// instead of p.omega_plus and p.omega_minus; p.force as in collide (always with the Guo source).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void collide_les(R (&f)[d3q19::Q], const Relaxation<R>& p,
                                                   const Smagorinsky<R>& les, R& rho, R (&u)[3], R scale = R(1)) {
  R drho;
  shifted_moments(f, p.force, drho, rho, u, scale);
  R omega_plus, omega_minus;
  smagorinsky_rates(les, nonequilibrium_flux_norm(f, scale, drho, rho, u, p.force), rho, omega_plus, omega_minus);
  relax_shifted<true>(f, omega_plus, omega_minus, p.force, drho, rho, u, scale);
}

}  // namespace eddy
