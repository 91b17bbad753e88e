// Turning a CaseConfig into what the kernels take: cell flags, wall velocities, relaxation rates, initial field.
#pragma once

#include <vector>

#include "io/case_config.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/collision.hpp"
#include "kernels/launchers.hpp"
#include "kernels/solid_forces.hpp"
#include "kernels/views.hpp"
#include "solver/block_solids.hpp"
#include "solver/decomposition.hpp"

namespace eddy {

/// Block shape of this rank's block (interior = decomposition.local_size).
BlockShape block_shape(const Decomposition& decomposition);

/// Flags of every cell of this rank's block (BlockShape::index order, ghost layer included), decided by the
/// cell's GLOBAL position, so a block's flags equal the one-rank flags on the same cells: ghost cells inside the
/// global domain or across a periodic face are fluid (they receive halo copies); cells beyond a wall face are
/// solid, with the precedence of kernels/cell_flags.hpp (a no-slip wall beats a moving wall, the lower face index
/// wins among moving walls). Cells that a [[solid]] body covers (solver/block_solids.hpp) are resting
/// walls (kWall), ghost cells too (a ghost across a periodic face as the cell it copies); cells beyond a wall face keep
/// the face's flag. Fluid cells with any solid neighbour among the 18 directions get kFluidNearSolid.
/// This form finds the block's solids itself (a BlockSolids: meshes voxelised on the device; collective over
/// decomposition.comm when it is not serial, throws what BlockSolids throws).
std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition);
/// The same with the block's solids already found (the simulations build them once for the flags and the cut links).
std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition,
                                  const BlockSolids& solids);

/// The cut links of the block's [[solid]] bodies (kernels/solid_forces.hpp): every interior fluid cell x and
/// direction i with x + c_i inside solid k (the same global rule as the flags, so a link's solid is the same on every
/// rank count), in cell order, then direction order. `flags`: build_flags' result. Face walls have none. The form
/// without `solids` builds a BlockSolids again (collective like build_flags; a mesh is voxelised again): pass the
/// one the flags were built from where there is one.
std::vector<CutLink> cut_links(const CaseConfig& config, const Decomposition& decomposition,
                               const std::vector<CellFlag>& flags);
std::vector<CutLink> cut_links(const CaseConfig& config, const Decomposition& decomposition,
                               const std::vector<CellFlag>& flags, const BlockSolids& solids);

/// Lattice velocity of each face's moving wall (zero for other faces).
template <class T>
WallVelocities<T> wall_velocities(const CaseConfig& config);

/// Relaxation rates: omega_plus = 1/tau; omega_minus = omega_plus (BGK) or from the TRT magic parameter.
template <class T>
Relaxation<T> relaxation(const CaseConfig& config);

/// Analytic initial field of the case on this rank's block (amplitude in lattice units, wave numbers 2 pi / N of
/// the global grid, block offset, tau = 1 / omega_plus for the non-equilibrium part of the populations).
InitialField initial_field(const CaseConfig& config, const Decomposition& decomposition);

}  // namespace eddy
