// Advection-diffusion of a scalar T (temperature or a concentration) carried by the LBM velocity u:
//   dT/dt + u . grad T = kappa lap T
// Explicit finite volumes on the lattice's cells (dx = 1, lattice units), forward Euler in time with a time step dt
// (1 / substeps of an LBM step). The change of cell P is the sum over its six faces (axis a, side s = +-1,
// neighbour N = P + s e_a):
//     open face:  kappa (T_N - T_P) - s u_f (T_f - T_P),   u_f = (u_a(P) + u_a(N)) / 2,  T_f = (T_P + T_N) / 2
//                 (second-order central differences; Versteeg & Malalasekera 2007, An Introduction to Computational
//                 Fluid Dynamics, secs. 4.2 and 5.3). The advective part is the conservative face flux u_f T_f minus
//                 T_P times the face's share of div u: the LBM velocity is weakly compressible (div u = O(Ma^2),
//                 acoustic waves), and in the conservative form a uniform T would drift with it (by 1 % in 100
//                 steps of a 16^3 Taylor-Green vortex, measured). In this form a uniform T stays exactly uniform;
//                 the total of T changes by sum_P T_P div_h u, which vanishes with the flow's divergence.
//     wall face:  no advective term (walls move tangentially);
//                 adiabatic: no diffusive flux;
//                 fixed value T_w, the wall halfway between P and the solid node as for bounce-back: the gradient
//                 at the wall of the quadratic through T_w (at -1/2), T_P (0) and T_PP (1, PP = P - s e_a):
//                   kappa (8 T_w - 9 T_P + T_PP) / 3     (second order: T(x) = a + b x + c x^2 through the three
//                                                         values has T'(-1/2) = (9 T_P - T_PP - 8 T_w) / 3)
//                 and kappa 2 (T_w - T_P) when PP is solid too (a one-cell gap: first order).
//   T_P(t + dt) = T_P(t) + dt * sum.
// The diffusive flux of each open face is computed from the same two values by both cells, so diffusion alone
// conserves the total of T up to rounding; the heat entering through a fixed-value wall is the wall term above.
//
// Stability (checked when the case is read, io/case_config.cpp, which picks dt = 1 / substeps): the diffusion number
// d = kappa dt <= 1/6, or <= 1/8 with fixed-value walls (Gershgorin bound of the update; the second-order wall flux
// puts 3 kappa on the wall cell), and dt |u|^2 / kappa <= 2 (Hindmarsh, Gresho & Griffiths 1984, Int. J. Numer.
// Methods Fluids 4, 853: sum_a C_a^2 / d <= 2 for explicit Euler with central differences), taken with a factor 2
// margin on the imposed speed.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Temperature condition of the six domain faces (x_min, x_max, y_min, y_max, z_min, z_max): a fixed value, or zero
/// flux. Walls exist only in the ghost layer, on the faces of the domain.
template <class R>
struct ScalarWalls {
  bool fixed[6];  ///< true: T = value[face] at the wall; false: adiabatic
  R value[6];
};

/// Diffusive inflow into the wall cell P through a fixed-value wall face (second order; first order when PP, the
/// cell behind P, is solid too). kappa in lattice units.
template <class R>
EDDY_HOST_DEVICE inline R wall_inflow(R kappa, R t_wall, R t_p, R t_pp, bool pp_open) {
  return pp_open ? kappa * (R(8) * t_wall - R(9) * t_p + t_pp) * R(1.0 / 3.0) : R(2) * kappa * (t_wall - t_p);
}

/// Scalar transport of one step: reads T and u on the block (ghosts filled), writes T_next on fluid interior cells.
/// Index: the integer type of cell offsets (32-bit when the block has fewer than 2^32 cells: fewer instructions and
/// registers on GPUs).
template <class R, class Index = std::int64_t>
struct ScalarStep {
  const R* t;
  R* t_next;
  const R* u[3];
  FlagView flags;
  BlockShape shape;
  ScalarWalls<R> walls;
  R kappa;
  R dt;

  /// dT/dt of fluid cell P = (x, y, z) (lattice units: T per step).
  EDDY_HOST_DEVICE R rate(int x, int y, int z) const {
    const Index p = Index(shape.index(x, y, z));
    const bool near = flags.flag[p] != kFluid;  // kFluid: no solid neighbour, no flag reads
    const R t_p = t[p];
    R sum = R(0);
    EDDY_UNROLL
    for (int a = 0; a < 3; ++a) {
      const Index step = Index(shape.offset(a == 0, a == 1, a == 2));
      const R u_p = u[a][p];
      EDDY_UNROLL
      for (int side = 0; side < 2; ++side) {
        const Index n = side ? p + step : p - step;
        if (near && is_solid(flags.flag[n])) {
          const int face = 2 * a + side;
          if (!walls.fixed[face]) continue;
          const Index pp = side ? p - step : p + step;
          sum += wall_inflow(kappa, walls.value[face], t_p, t[pp], !is_solid(flags.flag[pp]));
          continue;
        }
        const R t_n = t[n];
        const R u_face = (u_p + u[a][n]) * R(0.5);
        // s u_f (T_f - T_P) with T_f - T_P = (T_N - T_P) / 2 and s = -1 (low side) or +1 (high side)
        const R advection = u_face * ((t_n - t_p) * R(0.5));
        sum += kappa * (t_n - t_p) - (side ? advection : -advection);
      }
    }
    return sum;
  }

  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const Index p = Index(shape.index(x, y, z));
    if (is_solid(flags.flag[p])) return;
    t_next[p] = t[p] + dt * rate(x, y, z);
  }
};

}  // namespace eddy
