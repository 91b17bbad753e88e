// Plain views passed by value to kernels: pointers, sizes and per-step constants. No ownership.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"

namespace eddy {

/// Populations of one block, structure of arrays: f[i * n_cells + cell], i in [0, 19), cell from BlockShape::index.
/// Stored shifted: the array holds f_i - w_i (see kernels/equilibrium.hpp).
template <class T>
struct PopulationView {
  T* f;
  std::int64_t n_cells;
};

/// Flags of one block, one per cell (ghost layer included), see kernels/cell_flags.hpp.
struct FlagView {
  const CellFlag* flag;
};

/// Macroscopic fields on the interior cells only: index = (x-1) + nx * ((y-1) + ny * (z-1)), lattice units.
template <class T>
struct MomentView {
  T* rho;
  T* u[3];
};

/// Per-cell force density added to the uniform body force (lattice units; block layout, ghost layer included), from
/// two-way coupled particles. All null: no per-cell force.
template <class R>
struct ForceFieldView {
  const R* f[3] = {nullptr, nullptr, nullptr};
  EDDY_HOST_DEVICE bool present() const { return f[0] != nullptr; }
  /// Uniform `force` plus this cell's share.
  EDDY_HOST_DEVICE void add_to(std::int64_t cell, R (&force)[3]) const {
    if (!present()) return;
    for (int d = 0; d < 3; ++d) force[d] += f[d][cell];
  }
};

/// Velocity of each of the 6 faces' moving walls (lattice units), indexed by face (see cell_flags.hpp).
template <class R>
struct WallVelocities {
  R u[6][3];
};

}  // namespace eddy
