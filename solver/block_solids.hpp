// solver/block_solids.hpp: which [[solid]] body covers each cell of one rank's block (ghost layer included), decided
// by the cell's global position: analytic shapes at the cell centre (solver/solid_shapes.hpp), meshes voxelised on
// the device (solver/mesh_voxeliser.hpp), voxel files looked up (voxel (i, j, k) covers cell offset + (i, j, k)).
// The first solid in file order that holds a cell owns it. A ghost across a periodic face takes the answer of the
// cell it copies, one across a rank boundary that of its owner's cell, one beyond a wall face none: every
// decomposition gives the same answer. build_flags and cut_links (solver/lattice_setup.hpp) take it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/mesh_voxeliser.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {

/// What the set-up found about one solid, over the whole domain (summed over the ranks).
struct SolidSummary {
  std::int64_t cells = 0;        ///< interior cells of the domain whose centre it holds (whatever other solids hold)
  std::int64_t triangles = 0;    ///< mesh: triangles of the file (after splitting polygons)
  std::int64_t columns = 0;      ///< mesh: rays along x through the domain's cell centres, ny nz
  std::int64_t odd_columns = 0;  ///< mesh: those that cross the mesh an odd number of times (before any repair)
  double volume = 0.0;           ///< mesh: enclosed volume (TriangleMesh::volume, cells^3); voxels: solid voxels
  double seconds = 0.0;          ///< mesh: the device voxelisation, on the slowest rank
  double host_seconds = 0.0;     ///< mesh: its preparation on the host (fixed point, selection), slowest rank
};

class BlockSolids {
 public:
  BlockSolids() = default;
  /// The solids of `config` (finalized; mesh and voxel files loaded, else loaded here) on the block of
  /// `decomposition`. Collective over decomposition.comm when it is not serial (the summary's sums). Cells within
  /// `count_margin_z` planes of the block's z ends are left out of the summary's counts (an out-of-core block
  /// extended by its neighbours' planes). Throws CollectiveInputError when a mesh without repair has rays with an odd
  /// crossing count (naming their number), or when the solids leave no fluid cell; CaseFileError / InputError from
  /// load_solid_files; DeviceError from the voxeliser.
  BlockSolids(const CaseConfig& config, const Decomposition& decomposition, int count_margin_z = 0);

  /// The solid (index into config.solids) that owns block cell (x, y, z), or -1; `g` receives the cell's global
  /// index (wrapped across periodic faces).
  int solid_at(int x, int y, int z, std::array<std::int64_t, 3>& g) const;
  /// The reference point of solid k's torque (lattice coordinates): a sphere's centre, a cylinder's axis midpoint,
  /// a box's centre, a mesh's volume centroid (TriangleMesh::centroid), the centroid of a voxel grid's solid voxels.
  Point3 centre(int k) const;
  /// Whether solid k holds block cell (x, y, z) at global (wrapped) index g, whatever the other solids hold.
  bool holds(int k, int x, int y, int z, const std::array<std::int64_t, 3>& g) const;
  /// The wall distance q of the cut link from interior fluid cell (x, y, z) along c (lattice units): the first
  /// solid surface that the segment from the fluid node to the solid node at (x, y, z) + c meets, over every solid
  /// (they may overlap), or 1/2 when rounding leaves the segment in none. Global coordinates of the image whose solid
  /// node lies in the domain, the solids repeated across the periodic axes as the cells see them (a part outside the
  /// domain covers nothing): shapes by wall_distance (solver/solid_shapes.hpp); a voxel body's surface lies on the
  /// faces between cells, so 1/2 where it holds the solid node; a mesh from its triangles (the segment's crossings,
  /// Moeller & Trumbore 1997, "Fast, minimum storage ray-triangle intersection", J. Graphics Tools 2(1), 21-28, in
  /// double): where the solid node is inside it, the last crossing before it (or where the segment enters the domain),
  /// and from a fluid node in the domain the first crossing. The same doubles on every rank: the same bits.
  double link_wall_distance(int x, int y, int z, const int (&c)[3]) const;
  bool empty() const { return solids_.empty(); }
  const std::vector<SolidSummary>& summary() const { return summary_; }

 private:
  std::vector<SolidConfig> solids_;
  std::array<bool, 3> periodic_{};  ///< axes whose faces are periodic
  Decomposition decomposition_;
  std::vector<CellRange> ranges_;
  std::vector<Matrix3> rotations_;
  std::vector<MeshVoxels> meshes_;  ///< per solid; empty for the others
  /// Per mesh solid, the triangles near the block's cells (and the cells its periodic ghosts copy), by unit cell of
  /// the lattice: sorted ((z, y, x) cell, triangle) pairs, built by the first link_wall_distance that needs them
  /// (index_triangles; not thread-safe: cut_links asks from one thread).
  mutable std::vector<std::vector<std::pair<std::array<std::int64_t, 3>, std::int32_t>>> triangle_cells_;
  mutable std::vector<bool> indexed_;
  std::vector<VoxelSamples> samples_;  ///< per mesh solid: the cells its voxelisation sampled
  /// Lists mesh solid k's triangles in triangle_cells_ (block_solids.cpp says which cells).
  void index_triangles(int k) const;
  /// The crossings t in [0, 1] of the segment a + t c with mesh solid k's triangles (Moeller & Trumbore, in double).
  void mesh_crossings(int k, const Point3& a, const Point3& c, std::vector<double>& t) const;
  double mesh_wall_distance(int k, const Point3& p, const Point3& c, bool solid_node_inside) const;
  std::vector<SolidSummary> summary_;
};

}  // namespace eddy
