// Brinkman drag of a porous cell (a per-cell porosity field alpha >= 0, lattice units: the drag coefficient per
// step), for porous media and density-based topology optimisation. The drag F_B = -alpha rho u acts through Guo's
// forcing with the velocity it shapes, u = (j + F/2) / rho, F = F_ext + F_B (F_ext: body force and per-cell force),
// solved implicitly in the cell:
//   F = (F_ext - alpha j) / (1 + alpha/2),   rho u = j + F/2 = (j + F_ext/2) / (1 + alpha/2)
// (Guo & Zhao 2002, Phys. Rev. E 66, 036304, eqs. 10-13, with the Darcy term alone; the form of Pingen, Evgrafov &
// Maute 2007, Struct. Multidisc. Optim. 34, 507, for topology optimisation). alpha = 0 is plain fluid; large alpha
// stops the flow (u -> 0 as 1/alpha), which is how a solid is approached smoothly. j = sum_i c_i f_i.
//
// Its derivatives, for the adjoint (kernels/adjoint_step.cpp), with k = 1 / (1 + alpha/2) and F_bar = dL/dF:
//   dL/dF_ext += k F_bar,   dL/dj += -alpha k F_bar,   dL/dalpha += -k (rho u).F_bar
// (d/dalpha of (F_ext - alpha j) k is -(j + F/2) k = -k rho u).
// Units: lattice. Pure per-cell functions.
#pragma once

#include "kernels/backend.hpp"

namespace eddy {

/// The total force density F of a cell with porosity alpha, momentum j (sum_i c_i f_i) and external force F_ext
/// (`force`, replaced by F). The header's formula.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void brinkman_force(R alpha, const R (&j)[3], R (&force)[3]) {
  const R k = R(1) / (R(1) + R(0.5) * alpha);
  for (int a = 0; a < 3; ++a) force[a] = (force[a] - alpha * j[a]) * k;
}

/// The reverse of brinkman_force at a cell with porosity alpha and rho u = j + F/2 (`momentum`): from force_bar =
/// dL/dF (F the total force) it sets force_bar to dL/dF_ext, adds dL/dj to j_bar and returns dL/dalpha. The
/// header's formula.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R brinkman_adjoint(R alpha, const R (&momentum)[3], R (&force_bar)[3],
                                                       R (&j_bar)[3]) {
  const R k = R(1) / (R(1) + R(0.5) * alpha);
  R alpha_bar = R(0);
  for (int a = 0; a < 3; ++a) {
    alpha_bar -= k * momentum[a] * force_bar[a];
    j_bar[a] -= alpha * k * force_bar[a];
    force_bar[a] *= k;
  }
  return alpha_bar;
}

/// The velocity a cell collided with, from its post-collision momentum m = sum_i c_i f*_i (= j + F, Guo), density
/// rho, external force F_ext and porosity alpha: with F = (F_ext - alpha j) / (1 + alpha/2) and j = m - F,
///   F = (F_ext - alpha m) / (1 - alpha/2),   u = (m - F/2) / rho = (2 m - F_ext) / ((2 - alpha) rho)
/// (the header's formula solved for j; alpha = 0 gives u = (m - F_ext/2) / rho). What a pass after the step reads
/// (the pressure outlet's moments, kernels/open_boundaries.hpp). Derivatives, with kappa = 2 / (2 - alpha):
///   du/dm = kappa / rho,   du/dF_ext = -kappa / (2 rho),   du/drho = -u / rho,   du/dalpha = u / (2 - alpha).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void velocity_after_collision(const R (&m)[3], R rho, const R (&force_ext)[3],
                                                                  R alpha, R (&u)[3]) {
  const R inv = R(1) / ((R(2) - alpha) * rho);
  for (int a = 0; a < 3; ++a) u[a] = (R(2) * m[a] - force_ext[a]) * inv;
}

}  // namespace eddy
