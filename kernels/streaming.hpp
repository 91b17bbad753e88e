// Pull streaming with halfway bounce-back, for one cell: gathers the 19 populations that arrive at `cell`.
//
//   f_i(x, t+1) = f_i*(x - c_i, t)                                   if x - c_i is fluid
//   f_i(x, t+1) = f_opp(i)*(x, t) + 2 w_i rho_w (c_i . u_w) / c_s^2  if x - c_i is solid (u_w = 0 for a wall)
// Halfway bounce-back and its moving-wall momentum correction: Ladd (1994), J. Fluid Mech. 271, 285, eq. 3.2;
// Krueger et al. (2017), eqs. 5.26 and 5.27. rho_w is taken as the reference density rho_0 = 1, which keeps the
// scheme mass-conserving for walls moving tangentially (error O(Ma^2) in the wall force).
//
// Memory traffic per fluid cell: 19 population reads plus 1 flag byte; cells next to a solid also read their
// 18 neighbours' flags (mostly from cache).
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/storage.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Gathers into f[0..18] the populations streaming into `cell` (block index) whose own flag is `own`
/// (kFluid or kFluidNearSolid). `src` holds post-collision populations of the previous step (stored as T, see
/// kernels/storage.hpp); f receives them in the arithmetic type R = compute_t<T>.
template <class T, class R>
EDDY_HOST_DEVICE inline void gather_populations(const PopulationView<T>& src, const FlagView& flags,
                                                const BlockShape& shape, std::int64_t cell, CellFlag own,
                                                const WallVelocities<R>& walls, R (&f)[d3q19::Q]) {
  const std::int64_t n = src.n_cells;
  if (own == kFluid) {
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) {
      const std::int64_t from = cell - shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
      f[i] = Stored<T>::load(src.f[i * n + from]);
    }
    return;
  }
EDDY_UNROLL
  for (int i = 0; i < d3q19::Q; ++i) {
    const std::int64_t from = cell - shape.offset(d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2));
    const CellFlag neighbour = flags.flag[from];
    if (!is_solid(neighbour)) {
      f[i] = Stored<T>::load(src.f[i * n + from]);
    } else {
      R value = Stored<T>::load(src.f[d3q19::opp(i) * n + cell]);
      if (neighbour >= kMovingWall) {
        const R* uw = walls.u[neighbour - kMovingWall];
        const R cu = R(d3q19::c(i, 0)) * uw[0] + R(d3q19::c(i, 1)) * uw[1] + R(d3q19::c(i, 2)) * uw[2];
        value += R(6) * d3q19::w<R>(i) * cu;  // 2 w_i rho_w (c_i . u_w) / c_s^2 with rho_w = 1
      }
      f[i] = value;
    }
  }
}

}  // namespace eddy
