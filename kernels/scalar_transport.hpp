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

/// The change of T_P through one face whose neighbour N is fluid (open face, see the top of this file): diffusion
/// kappa (T_N - T_P) minus the advective term s u_f (T_f - T_P), with u_f = (u_a(P) + u_a(N)) / 2 and
/// T_f - T_P = (T_N - T_P) / 2; `high_side`: N = P + e_a (s = +1), else N = P - e_a (s = -1). Lattice units.
template <class R>
EDDY_HOST_DEVICE inline R open_face_rate(R kappa, R t_p, R t_n, R u_p, R u_n, bool high_side) {
  const R u_face = (u_p + u_n) * R(0.5);
  const R advection = u_face * ((t_n - t_p) * R(0.5));
  return kappa * (t_n - t_p) - (high_side ? advection : -advection);
}

/// dT/dt of a cell P whose six face neighbours are all fluid: the sum of open_face_rate over the faces in the order
/// -x, +x, -y, +y, -z, +z. t_n and u_n hold the neighbours' T and their velocity component normal to the shared face
/// in that order; u_p the cell's own velocity.
template <class R>
EDDY_HOST_DEVICE inline R interior_rate(R kappa, R t_p, const R (&t_n)[6], const R (&u_p)[3], const R (&u_n)[6]) {
  R sum = R(0);
  EDDY_UNROLL
  for (int face = 0; face < 6; ++face) sum += open_face_rate(kappa, t_p, t_n[face], u_p[face / 2], u_n[face], face % 2);
  return sum;
}

/// The fields and constants of one scalar transport step, and its rate cell by cell (every neighbour read from the
/// fields; ScalarColumnStep launches it). Index: the integer type of cell offsets (32-bit when the block has fewer than
/// 2^32 cells: fewer instructions and registers on GPUs).
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

  /// dT/dt of fluid cell P = (x, y, z) (lattice units: T per step), every neighbour read from the fields.
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
        sum += open_face_rate(kappa, t_p, t[n], u_p, u[a][n], side == 1);
      }
    }
    return sum;
  }
};

/// The same step as ScalarStep, walking each column along z (kernels/column_march.hpp): T and u_z of the cell
/// below and of the cell itself come from the previous cell, so only the cell above is read along z. Cells with
/// every neighbour fluid (kFluid) take interior_rate on the carried and loaded values; the other fluid cells take
/// ScalarStep::rate (walls, solid neighbours), which sums the same terms in the same order, so both forms write the
/// same bits. Reads on a fluid interior cell: T and u of the cell above, u_x and u_y of the cell, T at x +- 1 and
/// y +- 1, u_x at x +- 1, u_y at y +- 1 (the neighbours mostly cache hits) and the flag; 17 B compulsory (float).
template <class R, class Index = std::int64_t>
struct ScalarColumnStep {
  ScalarStep<R, Index> cell;

  struct Column {
    R t_below, t_here, uz_below, uz_here;
  };

  EDDY_HOST_DEVICE Column begin(int x, int y, int z) const {
    const Index p = Index(cell.shape.index(x, y, z)), plane = Index(cell.shape.offset(0, 0, 1));
    return Column{cell.t[p - plane], cell.t[p], cell.u[2][p - plane], cell.u[2][p]};
  }

  EDDY_HOST_DEVICE void operator()(Column& c, int x, int y, int z) const {
    const Index p = Index(cell.shape.index(x, y, z));
    const Index row = Index(cell.shape.offset(0, 1, 0)), plane = Index(cell.shape.offset(0, 0, 1));
    const R t_above = cell.t[p + plane], uz_above = cell.u[2][p + plane];
    const CellFlag flag = cell.flags.flag[p];
    if (flag == kFluid) {
      const R t_n[6] = {cell.t[p - 1], cell.t[p + 1], cell.t[p - row], cell.t[p + row], c.t_below, t_above};
      const R u_p[3] = {cell.u[0][p], cell.u[1][p], c.uz_here};
      const R u_n[6] = {cell.u[0][p - 1],   cell.u[0][p + 1], cell.u[1][p - row],
                        cell.u[1][p + row], c.uz_below,       uz_above};
      cell.t_next[p] = c.t_here + cell.dt * interior_rate(cell.kappa, c.t_here, t_n, u_p, u_n);
    } else if (!is_solid(flag)) {
      cell.t_next[p] = c.t_here + cell.dt * cell.rate(x, y, z);
    } else {
      // Solid: T carried unchanged, so both buffers of a field hold the same T there (whichever the last step wrote,
      // and whichever buffers an out-of-core slab was given).
      cell.t_next[p] = c.t_here;
    }
    c = Column{c.t_here, t_above, c.uz_here, uz_above};
  }
};

}  // namespace eddy
