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
// notes, docs/boundaries.md).
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

/// Component d of the velocity of solid cell `solid` (is_solid(solid)): its face's u_w for a moving wall, 0 for a
/// resting one (lattice units). The velocity a read-out gives solid cells (kernels/velocity_field.cpp).
template <class R>
EDDY_HOST_DEVICE inline R solid_velocity(CellFlag solid, const WallVelocities<R>& walls, int d) {
  return solid >= kMovingWall ? walls.u[solid - kMovingWall][d] : R(0);
}

}  // namespace eddy
