// Moment read-out of one cell: rho and u of the populations that have arrived at it, and where they go.
//   rho = sum_i f_i,   rho u = sum_i f_i c_i + F / 2                          Guo, Zheng & Shi 2002, eq. 17
// One per-cell function computes them from f_i: shifted_moments (kernels/equilibrium.hpp), which the fused kernel
// reaches through collide() and the read-outs that do not collide (kernels/moments.cpp, kernels/velocity_field.cpp)
// through arrived_moments below. Where the results go is an output adapter: MomentSlab (interior fields of
// compute_moments) or VelocityOutView::store (cell velocity of compute_velocity_field and of the fused kernel,
// kernels/views.hpp).
// Memory traffic per cell: 19 * sizeof(T) read (+ flag bytes of solid neighbours in the "swapped" layout,
// + 3 or 1 * sizeof(R) of a per-cell force), and what the adapter writes (4 or 3 * sizeof(R)).
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/equilibrium.hpp"
#include "kernels/storage.hpp"
#include "kernels/streaming.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// rho and u (with the Guo F/2 shift, lattice units) of the populations that have arrived at fluid `cell` (own
/// flag `own`) of `a`, held in the "swapped" layout when `swapped` (the odd step's gather, with the boundary rules)
/// or the "own" one: F is the uniform `force` plus the cell's share of `force_field` (with its Brinkman drag).
template <class T, class R, class Index>
EDDY_HOST_DEVICE inline void arrived_moments(const PopulationView<T>& a, bool swapped, const FlagView& flags,
                                             const BlockShape& shape, Index cell, CellFlag own,
                                             const WallVelocities<R>& walls, const R (&force)[3],
                                             const ForceFieldView<R>& force_field, R& rho, R (&u)[3]) {
  R f[d3q19::Q];
  load_arrived(a, swapped, flags, shape, cell, own, walls, f);
  R local_force[3] = {force[0], force[1], force[2]};
  force_field.cell_force(cell, f, Stored<T>::kScale, local_force);
  R drho;
  shifted_moments(f, local_force, drho, rho, u, Stored<T>::kScale);
}

/// Output adapter of compute_moments: rho and u of interior cell (x, y, z) into the interior fields `out`
/// (MomentView layout) of a slab of z-planes that starts at plane z_begin.
template <class R>
struct MomentSlab {
  MomentView<R> out;
  int nx, ny;   ///< interior cells along x and y
  int z_begin;  ///< block-local z of the slab's first plane
  EDDY_HOST_DEVICE void store(int x, int y, int z, R rho, const R (&u)[3]) const {
    const std::int64_t k = (x - 1) + std::int64_t(nx) * ((y - 1) + std::int64_t(ny) * (z - z_begin));
    out.rho[k] = rho;
    out.u[0][k] = u[0];
    out.u[1][k] = u[1];
    out.u[2][k] = u[2];
  }
};

}  // namespace eddy
