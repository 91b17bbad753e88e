// Boundary rules: what a population becomes where its link meets a boundary cell, one pure per-cell function per
// rule. The cell flags (kernels/cell_flags.hpp) say which rule a link takes; the in-place access code
// (kernels/streaming.hpp, gather_swapped and scatter_own) calls solid_link for every link of a fluid cell whose
// other end is solid; solver/lattice_setup.cpp builds the flags from the case. Where a new boundary type goes:
// docs/boundaries.md.
//
// Halfway bounce-back puts the wall half-way along every link from a fluid cell x to a solid cell x - c_i, so the
// population x sends along -c_i comes back to x within the step. With the in-place layout that needs only x's own
// post-collision populations, so each rule here maps one of them, `reflected` = f*_opp(i)(x, t), to the population
// f_i(x, t + 1) that arrives at x in direction i. Rules that need more (interpolated bounce-back, inlets and
// outlets that extrapolate from the next fluid layer) run as a sparse pass after the fused kernel (see the design
// notes, docs/boundaries.md): interpolated bounce-back's weights and value are below, its pass is
// kernels/interpolated_walls.hpp.
//
// Units: lattice. Populations come and go in the scaled form the fused kernel holds, Stored<T>::kScale * g
// (kernels/storage.hpp), with `scale` = Stored<T>::kScale; wall velocities are unscaled.
// Memory traffic: none of its own (the rules work on values in registers; the wall velocities are kernel
// parameters).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// The moving-wall term of halfway bounce-back for a population bounced into direction i at a wall moving at
/// u_w (lattice units): 2 w_i rho_w (c_i . u_w) / c_s^2 = 6 w_i (c_i . u_w), with rho_w = rho_0 = 1 and
/// c_s^2 = 1/3 (Ladd 1994, J. Fluid Mech. 271, 285, eq. 3.2; Krueger et al. 2017, sec. 5.3.3, eq. 5.27).
/// Unscaled. Also used by the host to undo the rule on read-back (solver/host_state.hpp).
template <class R>
EDDY_HOST_DEVICE inline R ladd_term(int i, const R* uw) {
  const R cu = R(d3q19::c(i, 0)) * uw[0] + R(d3q19::c(i, 1)) * uw[1] + R(d3q19::c(i, 2)) * uw[2];
  return R(6) * d3q19::w<R>(i) * cu;
}

/// Halfway bounce-back at a resting wall (flag kWall):
///   f_i(x, t + 1) = f*_opp(i)(x, t)                         Krueger et al. 2017, sec. 5.3.3, eq. 5.26
/// (Ladd 1994, J. Fluid Mech. 271, 285). `reflected` = f*_opp(i)(x, t); scaled in, scaled out.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R resting_wall_bounce_back(R reflected) {
  return reflected;
}

/// Halfway bounce-back at a wall moving at u_w (flag kMovingWall + face, u_w of that face):
///   f_i(x, t + 1) = f*_opp(i)(x, t) + 2 w_i rho_w (c_i . u_w) / c_s^2,   rho_w = 1
/// (Ladd 1994, J. Fluid Mech. 271, 285, eq. 3.2; Krueger et al. 2017, sec. 5.3.3, eq. 5.27). `reflected` =
/// f*_opp(i)(x, t), scaled by `scale`, as is the result; uw unscaled (lattice units).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R moving_wall_bounce_back(int i, R reflected, const R* uw, R scale) {
  return reflected + scale * ladd_term(i, uw);
}

/// The population arriving at a fluid cell x in direction i from the solid cell x - c_i whose flag is `solid`
/// (is_solid(solid)): the rule that flag names, applied to `reflected` = f*_opp(i)(x, t) (scaled by `scale`, as is
/// the result). The one place that maps a solid flag to its rule.
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R solid_link(int i, R reflected, CellFlag solid, const WallVelocities<R>& walls,
                                                 R scale) {
  if (solid >= kMovingWall) return moving_wall_bounce_back(i, reflected, walls.u[solid - kMovingWall], scale);
  return resting_wall_bounce_back(reflected);
}

/// Weights of linear interpolated bounce-back (Bouzidi, Firdaouss & Lallemand 2001, Phys. Fluids 13, 3452, their
/// linear scheme) for a cut link from fluid node x_f along c_i whose wall lies at x_f + q c_i, q in [0, 1]:
///   q <  1/2 (near):  f_opp(i)(x_f, t + 1) = 2q f*_i(x_f) + (1 - 2q) f*_i(x_f - c_i)
///   q >= 1/2 (far):   f_opp(i)(x_f, t + 1) = 1/(2q) f*_i(x_f) + (2q - 1)/(2q) f*_opp(i)(x_f)
/// (f* post-collision, of step t). The population leaving x_f travels 2q to the wall and back: for q < 1/2 the value
/// that reaches x_f after one step is interpolated between x_f and x_f - c_i before the bounce, for q >= 1/2 after
/// it, between the bounced f*_i(x_f), now at x_f + (2q - 1) c_i, and f*_opp(i)(x_f), now at x_f - c_i. Both are
/// convex combinations (weights in [0, 1], sum 1), so they apply unchanged to the shifted populations f - w_i
/// (w_i = w_opp(i)) the kernels store. At q = 1/2 both give exactly f*_i(x_f): half-way bounce-back
/// (resting_wall_bounce_back). Second-order accurate in the wall position for any q (as the paper shows; its
/// quadratic variant of the same paper needs x_f - 2 c_i, beyond the one ghost layer of a block, and is not
/// offered). Host and device, double: the weights are computed once per link at set-up.
struct InterpolationWeights {
  bool near;     ///< q < 1/2: the other population is f*_i(x_f - c_i); otherwise f*_opp(i)(x_f)
  double out;    ///< weight of f*_i(x_f)
  double other;  ///< weight of the other population
};
EDDY_HOST_DEVICE inline InterpolationWeights bouzidi_linear_weights(double q) {
  if (q < 0.5) return {true, 2.0 * q, 1.0 - 2.0 * q};
  return {false, 1.0 / (2.0 * q), (2.0 * q - 1.0) / (2.0 * q)};
}

/// The population arriving at x_f from an interpolated wall: weight_out f*_i(x_f) + weight_other f_other, with the
/// weights of bouzidi_linear_weights (in R) and f_other the population they name. Populations scaled alike in and
/// out (kernels/storage.hpp; the combination is homogeneous).
template <class R>
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE R interpolated_bounce_back(R weight_out, R f_out, R weight_other, R f_other) {
  return weight_out * f_out + weight_other * f_other;
}

/// Momentum that one cut link carries into a resting solid per step, along c_i (Galilean-invariant momentum
/// exchange, Wen, Zhang, Tu, Wang & Fang 2014, J. Comput. Phys. 266, 161):
///   dP = (c_i - u_w) f_out - (c_opp(i) - u_w) f_in = c_i (f_out + f_in) - u_w (f_out - f_in),
/// f_out = f*_i(x_f) the population that leaves the fluid node towards the wall, f_in = f_opp(i)(x_f, t + 1) the one
/// that comes back (the interpolated value, or f*_i(x_f) again at a half-way wall, where this is Ladd's 2 f* c_i).
/// The solids are at rest (u_w = 0), so the correction term vanishes and the magnitude along c_i is f_out + f_in
/// (unshifted populations). A moving body would add -u_w (f_out - f_in).
EDDY_HOST_DEVICE inline double exchanged_momentum(double f_out, double f_in) { return f_out + f_in; }

/// Component d of the velocity of solid cell `solid` (is_solid(solid)): its face's u_w for a moving wall, 0 for a
/// resting one (lattice units). The velocity a read-out gives solid cells (kernels/velocity_field.cpp).
template <class R>
EDDY_HOST_DEVICE inline R solid_velocity(CellFlag solid, const WallVelocities<R>& walls, int d) {
  return solid >= kMovingWall ? walls.u[solid - kMovingWall][d] : R(0);
}

}  // namespace eddy
