// io/solid_files.hpp: the files of [[solid]] meshes and voxel grids (host only). Meshes (.stl binary or ASCII, .obj,
// .ply) and .vti images are read with VTK's readers (io/solid_readers.cpp; a build without VTK refuses them,
// io/solid_readers_unavailable.cpp); raw uint8 voxel files with plain reads (io/solid_files.cpp). load_solid_files
// reads every file a case names and puts a mesh into global lattice coordinates.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {

/// A triangle surface. From read_mesh_file in the file's coordinates; in a SolidConfig (load_solid_files) in global
/// lattice coordinates (cells: the domain spans [0, nx) x [0, ny) x [0, nz)), transformed by scale, rotate and
/// translate. Polygons of the file are split into triangles; points and lines are dropped.
struct TriangleMesh {
  std::vector<std::array<double, 3>> vertices;
  std::vector<std::array<std::int32_t, 3>> triangles;  ///< indices into vertices
  // Set by load_solid_files (lattice coordinates):
  std::array<double, 3> lower{}, upper{};  ///< bounding box of the vertices
  /// |sum over triangles of a . (b x c)| / 6 (divergence theorem; cells^3): the enclosed volume of a closed mesh
  /// whose triangles all face outwards (or all inwards); not meaningful otherwise.
  double volume = 0.0;
  /// Centroid of that volume (the sum of the tetrahedra's centroids weighted by their signed volumes), or the
  /// centre of the bounding box when the volume is zero. The reference point of a mesh solid's torque.
  std::array<double, 3> centroid{};
};

/// A voxel grid: dims voxels per axis, solid[i + nx (j + ny k)] = 1 where the file's value is nonzero, else 0.
struct VoxelGrid {
  std::array<std::int64_t, 3> dims{};
  std::vector<std::uint8_t> solid;
  std::int64_t count = 0;            ///< solid voxels
  std::array<double, 3> centroid{};  ///< mean centre of the solid voxels, voxel units (voxel i's centre is i + 0.5)
};

/// Throws CaseFileError "cannot read <what> '<path>': <why>" unless `path` is a regular file (or a link to one)
/// that opens for reading.
void require_readable_file(const std::string& path, const std::string& what);

/// `grid` with count and centroid set from its solid voxels.
VoxelGrid finished_voxel_grid(VoxelGrid grid);

/// Reads a surface mesh (.stl binary or ASCII, .obj, .ply: by the lower-case extension) with VTK's readers. Throws
/// CaseFileError (exit status 8) naming the file when it is missing, not a regular file or unreadable; InputError
/// (exit status 2) when it is malformed (VTK's reason), holds no triangle, has a non-finite coordinate, or when this
/// build has no VTK.
TriangleMesh read_mesh_file(const std::string& path);

/// Reads a raw voxel file: dims[0] dims[1] dims[2] bytes, x fastest, nonzero = solid. CaseFileError as
/// read_mesh_file; InputError naming the file and both sizes when its size is not that product.
VoxelGrid read_raw_voxels(const std::string& path, const std::array<std::int64_t, 3>& dims);

/// Reads the mask array `array` of a .vti image (VTK XML ImageData) with VTK's reader: a point array (one value per
/// point of the extent) or a cell array (one per cell), one component, any numeric type, nonzero = solid; the image's
/// origin and spacing are ignored (one voxel per cell). `array` empty: the image's only array. CaseFileError as
/// read_mesh_file; InputError when the file is malformed, the array is missing (the message lists the arrays) or has
/// several components, or this build has no VTK.
VoxelGrid read_vti_voxels(const std::string& path, const std::string& array);

/// The mesh in lattice coordinates: x = R (scale * x_file) + translate for every vertex (s finalized: scale and
/// translate in cells, R = rotation_matrix(s.rotate)), with the bounding box, volume and centroid set.
TriangleMesh transformed_mesh(TriangleMesh mesh, const SolidConfig& s);

/// Reads the file of every mesh and voxels solid of `config` (finalized) into its surface / voxel_grid, the mesh
/// transformed (transformed_mesh). Solids already loaded are left alone. Errors name the case file, the solid's key
/// and the file: CaseFileError (missing or unreadable file, exit status 8), InputError (malformed, empty, a size
/// mismatch, no VTK: exit status 2).
void load_solid_files(CaseConfig& config);

}  // namespace eddy
