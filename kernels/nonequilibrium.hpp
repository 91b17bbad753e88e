// First-order (Chapman-Enskog) non-equilibrium part of the populations of a flow with velocity gradient d_a u_b:
//
//   f_neq_i = -(w_i rho tau / c_s^2) Q_iab d_a u_b,      Q_iab = c_ia c_ib - c_s^2 delta_ab
//
// Source: Krueger et al. 2017, The Lattice Boltzmann Method, sec. 4.1 (Chapman-Enskog analysis: the first-order
// populations f^(1) = -tau (d_t^(1) + c_ia d_a) f_eq_i, evaluated with the Euler-level time derivatives; the terms
// of order u^3 and the density gradients are dropped) and sec. 5.5 (initial conditions: start from f_eq + f_neq
// when the velocity field is not uniform); Mei, Luo, Lallemand & d'Humieres 2006, Comput. Fluids 35, 855
// (consistent initial conditions; an iterative alternative that needs no analytic gradient). Equation numbers of
// the book are not cited here: they were not checked against the text.
//
// f_neq is the non-equilibrium part of the PRE-collision populations (the ones the next collision relaxes with
// 1/tau): its second moment is the viscous stress of the pre-collision state, Pi_neq_ab = sum_i c_ia c_ib f_neq_i
// = -rho c_s^2 tau (d_a u_b + d_b u_a), and it carries no mass and no momentum (sum_i f_neq_i = 0, sum_i c_i
// f_neq_i = 0), so rho and u of f_eq + f_neq are those of f_eq. Q_iab is even in c_i (f_neq_i = f_neq_opp(i)), so
// with TRT it belongs to the symmetric part: tau = 1 / omega_plus.
//
// Lattice units. R is the arithmetic type.
#pragma once

#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"

namespace eddy {

/// f_neq_i for direction i of a cell with density rho, relaxation time tau = 1 / omega_plus (steps) and velocity
/// gradient grad_u[a][b] = d u_b / d x_a (1/step); lattice units. Exact for any gradient (no divergence-free
/// assumption): Q_iab d_a u_b = (c_i . grad_u . c_i) - c_s^2 div u.
template <class R>
EDDY_HOST_DEVICE inline R nonequilibrium_from_gradient(int i, R rho, R tau, const R (&grad_u)[3][3]) {
  R cc = R(0);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) cc += R(d3q19::c(i, a) * d3q19::c(i, b)) * grad_u[a][b];
  const R q = cc - d3q19::cs2<R>() * (grad_u[0][0] + grad_u[1][1] + grad_u[2][2]);
  return -d3q19::w<R>(i) * rho * tau / d3q19::cs2<R>() * q;
}

}  // namespace eddy
