// Second-order equilibrium of the lattice Boltzmann BGK model and the macroscopic moments with Guo's forcing
// correction.
//
//   f_eq_i = w_i rho (1 + c_i.u / c_s^2 + (c_i.u)^2 / (2 c_s^4) - u.u / (2 c_s^2))      Krueger et al. 2017, eq. 3.54
//   rho = sum_i f_i,   rho u = sum_i f_i c_i + F / 2                                       Guo et al. 2002, eq. 17
//
// Kernels store and compute with shifted populations g_i = f_i - w_i (the rest state subtracted). They are small
// numbers, so float storage and arithmetic keep several more significant digits of what changes (mass drift of
// float runs drops accordingly): rho = 1 + sum_i g_i and rho u = sum_i g_i c_i + F / 2, since sum_i w_i = 1 and
// sum_i w_i c_i = 0.
//
// All quantities in lattice units. R is the arithmetic type (float or double).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// Equilibrium population f_eq_i(rho, u) for direction i.
template <class R>
EDDY_HOST_DEVICE inline R equilibrium(int i, R rho, R ux, R uy, R uz) {
  const R cu = R(d3q19::c(i, 0)) * ux + R(d3q19::c(i, 1)) * uy + R(d3q19::c(i, 2)) * uz;
  const R usq = ux * ux + uy * uy + uz * uz;
  return d3q19::w<R>(i) * rho * (R(1) + R(3) * cu + R(4.5) * cu * cu - R(1.5) * usq);
}

/// Density deviation, density and velocity of shifted populations g[0..18] = f_i - w_i under body force density F:
/// drho = sum g_i, rho = 1 + drho, u = (sum g_i c_i + F/2) / rho. `scale`: the populations are given as
/// scale * g_i (fp16 storage keeps them so, kernels/storage.hpp); the moments are returned unscaled.
/// Each sum runs over the directions contributing to it only (d3q19::c_moment).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void shifted_moments(const R (&g)[d3q19::Q], const R (&force)[3], R& drho,
                                                         R& rho, R (&u)[3], R scale = R(1)) {
  const R inv_scale = R(1) / scale;
  R sum = g[0];
EDDY_UNROLL
  for (int i = 1; i < d3q19::Q; ++i) sum += g[i];
  const R j[3] = {d3q19::c_moment(0, g), d3q19::c_moment(1, g), d3q19::c_moment(2, g)};
  drho = sum * inv_scale;
  rho = R(1) + drho;
  const R inv_rho = R(1) / rho;
  u[0] = (j[0] * inv_scale + R(0.5) * force[0]) * inv_rho;
  u[1] = (j[1] * inv_scale + R(0.5) * force[1]) * inv_rho;
  u[2] = (j[2] * inv_scale + R(0.5) * force[2]) * inv_rho;
}

}  // namespace eddy
