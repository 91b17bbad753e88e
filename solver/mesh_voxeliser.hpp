// solver/mesh_voxeliser.hpp: the cells a [[solid]] mesh covers on one rank's block, voxelised on the device by ray
// parity along x (the rule, its exactness and its sources: kernels/mesh_voxels.hpp), and the plain CPU reference the
// device passes are checked against (tests, eddy bench --voxelise).
//
// Which cells are sampled: per axis the global cells of the block's cells, ghost layer included, as build_flags
// decides them (solver/lattice_setup.hpp): a ghost across a periodic face samples the cell it copies, one beyond a
// wall face nothing; with the repair of open meshes also the columns within two cells in y and z (the rays next to
// them in space, unwrapped), whose votes the repair takes. Every cell is decided by its global position alone, so
// any decomposition and the out-of-core blocks give the same bits.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/mesh_voxels.hpp"
#include "solver/decomposition.hpp"

namespace eddy {

struct TriangleMesh;

/// The sampled global cells along one axis and where each block-local cell finds its sample.
struct AxisSamples {
  std::vector<std::int32_t> global;         ///< ascending, unique global cell indices
  std::vector<std::int32_t> slot_of_local;  ///< block-local 0 .. n + 1 -> index into global, -1 beyond a wall face
};

/// The three axes' samples of one voxelisation: cell (x, y, z) of the block is sample (slot_of_local per axis).
struct VoxelSamples {
  std::array<AxisSamples, 3> axis;
  /// Cells within this many columns of the block's ones in y and z are sampled too (2 with the repair, else 0).
  int margin = 0;
};

/// The samples of the block of `decomposition` (ghost layer included) for `config`'s faces; `margin` extra columns
/// in y and z (kernels/mesh_voxels.hpp repair_odd_columns takes 2).
VoxelSamples block_samples(const CaseConfig& config, const Decomposition& decomposition, int margin);

/// The inside bits of one mesh on its samples, on the host (the layout of kernels/mesh_voxels.hpp VoxelSampleView:
/// column c = iy + ny iz, slot s of the x list), and each column's crossing count.
struct MeshVoxels {
  VoxelSamples samples;
  std::int32_t words = 0;
  std::vector<std::uint32_t> bits;
  std::vector<unsigned long long> crossings;
  double seconds = 0.0;  ///< device voxelisation: upload, passes and download (0 for the reference)

  std::int32_t columns_y() const { return std::int32_t(samples.axis[1].global.size()); }
  bool inside_sample(std::int32_t sx, std::int32_t sy, std::int32_t sz) const {
    const std::int64_t c = sy + std::int64_t(columns_y()) * sz;
    return (bits[std::size_t(c * words + sx / 32)] >> (sx % 32)) & 1u;
  }
  /// Whether block-local cell (x, y, z) is inside (false beyond a wall face).
  bool inside(int x, int y, int z) const {
    const std::int32_t sx = samples.axis[0].slot_of_local[std::size_t(x)];
    const std::int32_t sy = samples.axis[1].slot_of_local[std::size_t(y)];
    const std::int32_t sz = samples.axis[2].slot_of_local[std::size_t(z)];
    return sx >= 0 && sy >= 0 && sz >= 0 && inside_sample(sx, sy, sz);
  }
  /// Crossings of the column of block-local (y, z) (0 beyond a wall face).
  unsigned long long column_crossings(int y, int z) const {
    const std::int32_t sy = samples.axis[1].slot_of_local[std::size_t(y)];
    const std::int32_t sz = samples.axis[2].slot_of_local[std::size_t(z)];
    return sy >= 0 && sz >= 0 ? crossings[std::size_t(sy + std::int64_t(columns_y()) * sz)] : 0ull;
  }
};

/// The mesh's triangles in fixed point (kernels/mesh_voxels.hpp: round(x 2^16), global lattice coordinates) that can
/// cross a ray of the domain `size` or of the repair's margin (their (y, z) bounding box reaches [-3, size + 3)).
/// Throws CollectiveInputError, starting with `where`, when a coordinate lies beyond 2^40 cells or such a triangle
/// spans 32768 cells or more along an axis (the limit of the exact integer arithmetic).
std::vector<MeshTriangle> fixed_point_triangles(const TriangleMesh& mesh, const std::array<int, 3>& size,
                                                const std::string& where);

/// The triangles whose (y, z) bounding box reaches a sampled column of `samples` (the rest cross none of them).
std::vector<MeshTriangle> triangles_for(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples);

/// The neighbour table of kernels/mesh_voxels.hpp repair_odd_columns for one ascending list: [i * 5 + d + 2] = the
/// index of list[i] + d (d in -2..2), or -1 when that cell is not in the list.
std::vector<std::int32_t> repair_near_table(const std::vector<std::int32_t>& list);

/// Voxelises `triangles` at `samples` on the device (kernels/mesh_voxels.hpp: tiles, crossings, parity fill; with
/// `repair`, odd columns by the majority of their neighbours). Device memory: 72 B per triangle, 8 B per work
/// item, a bit per sample and 8 B per column, freed on return. Throws DeviceError when it does not fit.
MeshVoxels voxelise_mesh(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples, bool repair);

/// The same by plain host loops (solver/mesh_voxeliser_reference.cpp): per triangle and column of its bounding box
/// the crossing (kernels/mesh_voxels.hpp ray_crossing), per column the sorted crossings and a parity count for each
/// sample, then the repair by the same vote. Bitwise equal to voxelise_mesh on every backend.
MeshVoxels voxelise_mesh_reference(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples,
                                   bool repair);

}  // namespace eddy
