// Plain views passed by value to kernels: pointers, sizes and per-step constants. No ownership.
#pragma once

#include <cstdint>

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

/// Velocity of each of the 6 faces' moving walls (lattice units), indexed by face (see cell_flags.hpp).
template <class R>
struct WallVelocities {
  R u[6][3];
};

}  // namespace eddy
