// Turning a CaseConfig into what the kernels take: cell flags, wall velocities, relaxation rates, initial field.
#pragma once

#include <vector>

#include "io/case_config.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/collision.hpp"
#include "kernels/launchers.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// Block shape of the whole domain (one block: interior = config.size).
BlockShape domain_shape(const CaseConfig& config);

/// Flags of every cell of the block (BlockShape::index order, ghost layer included).
/// Ghost cells on a periodic axis are fluid (they receive copies); ghost cells outside a wall face are solid,
/// with the precedence of kernels/cell_flags.hpp: a no-slip wall beats a moving wall, lower face index wins
/// among moving walls. Fluid cells with any solid neighbour among the 18 directions get kFluidNearSolid.
std::vector<CellFlag> build_flags(const CaseConfig& config, const BlockShape& shape);

/// Lattice velocity of each face's moving wall (zero for other faces).
template <class T>
WallVelocities<T> wall_velocities(const CaseConfig& config);

/// Relaxation rates: omega_plus = 1/tau; omega_minus = omega_plus (BGK) or from the TRT magic parameter.
template <class T>
Relaxation<T> relaxation(const CaseConfig& config);

/// Analytic initial field of the case (amplitude in lattice units, wave numbers 2 pi / n).
InitialField initial_field(const CaseConfig& config);

}  // namespace eddy
