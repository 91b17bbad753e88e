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
/// solid, cells beyond an open face its ghost nodes (kOpen + face), with the precedence of kernels/cell_flags.hpp
/// where faces meet (boundary_flag: walls first, solid_flag among them; then velocity_inlet, pressure_outlet,
/// outflow, free_slip). Cells that a [[solid]] body covers (solver/block_solids.hpp) are resting walls (kWall), ghost
/// cells too (a ghost across a periodic face as the cell it copies); cells beyond a wall or open face keep the face's
/// flag. Fluid cells with any neighbour among the 18 directions that is not fluid (solid, or a ghost node) get
/// kFluidNearSolid.
/// This form finds the block's solids itself (a BlockSolids: meshes voxelised on the device; collective over
/// decomposition.comm when it is not serial, throws what BlockSolids throws).
std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition);
/// The same with the block's solids already found (the simulations build them once for the flags and the cut links).
std::vector<CellFlag> build_flags(const CaseConfig& config, const Decomposition& decomposition,
                                  const BlockSolids& solids);

/// The cut links of a block's [[solid]] bodies (kernels/cut_links.hpp), in three groups, each in cell order, then
/// direction order:
///   [0, early_interpolated):             links of interpolated walls whose x_b = x_f - c_i is an interior cell and
///                                        whose x_f lies kOpenPassReach layers or more from every open face (their
///                                        pass may run before the halo exchange and the open-face pass);
///   [early_interpolated, interpolated):  the other interpolated links, after both: x_b a ghost cell (they read what
///                                        the exchange delivers, or what the open-face pass sets at an open face's
///                                        ghost node), or x_f next to an open face (the open-face pass reads its wall
///                                        slot first; docs/boundaries.md, "The order of the passes within a step");
///   [interpolated, links.size()):        half-way links.
/// Which group a link is in follows from its global position and the case's faces, so the passes do the same
/// operations in the same order on every slot on any rank count.
struct CutLinkList {
  std::vector<CutLink> links;
  std::int64_t early_interpolated = 0;
  std::int64_t interpolated = 0;
};

/// The cut links of the block's [[solid]] bodies: every interior fluid cell x_f and direction i with x_f + c_i inside
/// solid k (the first that holds it, by the same global rule as the flags, so a link's solid is the same on every
/// rank count). Face walls have none. Each link's wall distance q is that of the first solid surface the segment from
/// x_f to x_f + c_i meets (BlockSolids::link_wall_distance: a shape's by solver/solid_shapes.hpp, wall_distance, a
/// mesh's from its triangles, a voxel body's 1/2; by global coordinates: the same bits on every rank), and it is
/// interpolated (kernels/boundary_rules.hpp) when its solid has wall = "interpolated", except
///   - q = 1/2 exactly (interpolation gives half-way bounce-back exactly: the link stays half-way);
///   - x_b = x_f - c_i is solid (a gap one node wide along c_i, or x_b beyond a wall face): the interpolation has no
///     second fluid node, and the link is half-way (its q then counts for the torque arm only).
/// `flags`: build_flags' result, `solids` the BlockSolids they were built from. The form without `solids` builds a
/// BlockSolids again (collective like build_flags; a mesh is voxelised again): pass the one the flags were built
/// from where there is one.
CutLinkList cut_links(const CaseConfig& config, const Decomposition& decomposition, const std::vector<CellFlag>& flags,
                      const BlockSolids& solids);
CutLinkList cut_links(const CaseConfig& config, const Decomposition& decomposition, const std::vector<CellFlag>& flags);

/// The solid each interior cell of this rank's block belongs to, for the `solid` output field: 0 in fluid, 1 + k in
/// a cell of config.solids[k] (the first solid that holds it, as build_flags marks it), MacroscopicFields order
/// (x fastest, interior cells only). Decided by global position: every rank count, in core and out of core, gives
/// the same labels. BlockSolids is the one place that says which solid holds a cell (mark_solids and cut_links ask
/// it the same question). This form builds a BlockSolids (collective like build_flags).
std::vector<std::int32_t> solid_labels(const CaseConfig& config, const Decomposition& decomposition);
/// The same from the block's `solids`, for its interior cells `n` (local_size), leaving out `margin_z` planes at the
/// start of z (an out-of-core block extended by its neighbours' planes).
std::vector<std::int32_t> solid_labels(const BlockSolids& solids, const std::array<int, 3>& n, int margin_z);

/// Lattice velocity of each face's moving wall (zero for other faces).
template <class T>
WallVelocities<T> wall_velocities(const CaseConfig& config);

/// Relaxation rates: omega_plus = 1/tau; omega_minus = omega_plus (BGK) or from the TRT magic parameter.
template <class T>
Relaxation<T> relaxation(const CaseConfig& config);

/// The Smagorinsky model's parameters for the fused kernel (kernels/smagorinsky.hpp): off (factor 0) without
/// [numerics] les; tau0 = config.tau, factor = 18 sqrt(2) C_S^2, magic = the TRT Lambda (0 with BGK). A case with
/// sponge layers but no LES gets tau0 and magic with factor 0: the kernel with local rates then relaxes at the
/// layers' tau0(x) (kernels/sponge_layers.hpp).
template <class T>
Smagorinsky<T> smagorinsky(const CaseConfig& config);

/// The sponge layers of the case's open faces (boundary.<face>.sponge, kernels/sponge_layers.hpp) on this rank's
/// block: thickness and tau_f - tau per face, the block's offset and the domain's size. None (present() false)
/// without a layer.
template <class T>
SpongeLayers<T> sponge_layers(const CaseConfig& config, const Decomposition& decomposition);

/// Analytic initial field of the case on this rank's block (amplitude in lattice units, wave numbers 2 pi / N of
/// the global grid, block offset, tau = 1 / omega_plus for the non-equilibrium part of the populations).
InitialField initial_field(const CaseConfig& config, const Decomposition& decomposition);

}  // namespace eddy
