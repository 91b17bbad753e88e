// io/solid_files.cpp: raw voxel files, the mesh transform and load_solid_files (io/solid_files.hpp). No VTK here:
// the VTK readers are io/solid_readers.cpp.
#include "io/solid_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/file_kind.hpp"
#include "solver/errors.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {

void require_readable_file(const std::string& path, const std::string& what) {
  const std::string why = not_a_regular_file(path);
  if (!why.empty()) throw CaseFileError(blank_control_characters("cannot read " + what + " '" + path + "': " + why));
  std::ifstream probe(path, std::ios::binary);
  if (!probe) {
    throw CaseFileError(blank_control_characters("cannot read " + what + " '" + path + "': " + std::strerror(errno)));
  }
}

namespace {

/// count and centroid of the solid voxels.
void finish_grid(VoxelGrid& grid) {
  double sum[3] = {0.0, 0.0, 0.0};
  grid.count = 0;
  const std::int64_t nx = grid.dims[0], ny = grid.dims[1], nz = grid.dims[2];
  for (std::int64_t k = 0; k < nz; ++k)
    for (std::int64_t j = 0; j < ny; ++j)
      for (std::int64_t i = 0; i < nx; ++i) {
        if (!grid.solid[std::size_t(i + nx * (j + ny * k))]) continue;
        ++grid.count;
        sum[0] += double(i) + 0.5;
        sum[1] += double(j) + 0.5;
        sum[2] += double(k) + 0.5;
      }
  for (int a = 0; a < 3; ++a) grid.centroid[std::size_t(a)] = grid.count > 0 ? sum[a] / double(grid.count) : 0.0;
}

}  // namespace

VoxelGrid read_raw_voxels(const std::string& path, const std::array<std::int64_t, 3>& dims) {
  require_readable_file(path, "voxel file");
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw CaseFileError(blank_control_characters("cannot read voxel file '" + path + "': " + ec.message()));
  const std::uintmax_t expected = std::uintmax_t(dims[0]) * std::uintmax_t(dims[1]) * std::uintmax_t(dims[2]);
  if (bytes != expected) {
    throw InputError(blank_control_characters("voxel file '" + path + "' has " + std::to_string(bytes) +
                                              " bytes, but dimensions = [" + std::to_string(dims[0]) + ", " +
                                              std::to_string(dims[1]) + ", " + std::to_string(dims[2]) + "] need " +
                                              std::to_string(expected) + " (one uint8 per voxel, x fastest)"));
  }
  VoxelGrid grid;
  grid.dims = dims;
  grid.solid.resize(std::size_t(expected));
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(grid.solid.data()), std::streamsize(expected));
  if (!in || std::uintmax_t(in.gcount()) != expected) {
    throw CaseFileError(blank_control_characters("cannot read voxel file '" + path + "': read " +
                                                 std::to_string(in.gcount()) + " of " + std::to_string(expected) +
                                                 " bytes"));
  }
  for (std::uint8_t& v : grid.solid) v = v != 0 ? 1 : 0;
  finish_grid(grid);
  return grid;
}

VoxelGrid finished_voxel_grid(VoxelGrid grid) {
  finish_grid(grid);
  return grid;
}

TriangleMesh transformed_mesh(TriangleMesh mesh, const SolidConfig& s) {
  const Matrix3 r = rotation_matrix(s.rotate);
  for (auto& v : mesh.vertices) {
    const Point3 scaled = {v[0] * s.scale[0], v[1] * s.scale[1], v[2] * s.scale[2]};
    const Point3 turned = rotate_point(r, scaled);
    for (int a = 0; a < 3; ++a) v[std::size_t(a)] = turned[std::size_t(a)] + s.translate[std::size_t(a)];
  }
  mesh.lower = mesh.upper = mesh.vertices.empty() ? std::array<double, 3>{} : mesh.vertices[0];
  for (const auto& v : mesh.vertices) {
    for (std::size_t a = 0; a < 3; ++a) {
      mesh.lower[a] = std::min(mesh.lower[a], v[a]);
      mesh.upper[a] = std::max(mesh.upper[a], v[a]);
    }
  }
  // Signed volume and centroid by the divergence theorem over tetrahedra (o, a, b, c), o the bounding box centre
  // (fewer cancelling digits than the origin): V = sum (a - o) . ((b - o) x (c - o)) / 6, and the centroid the
  // V-weighted mean of the tetrahedra's centroids o + (a + b + c - 3 o) / 4.
  const Point3 o = {0.5 * (mesh.lower[0] + mesh.upper[0]), 0.5 * (mesh.lower[1] + mesh.upper[1]),
                    0.5 * (mesh.lower[2] + mesh.upper[2])};
  double volume = 0.0, moment[3] = {0.0, 0.0, 0.0};
  for (const auto& t : mesh.triangles) {
    double p[3][3];
    for (int k = 0; k < 3; ++k)
      for (int a = 0; a < 3; ++a) p[k][a] = mesh.vertices[std::size_t(t[std::size_t(k)])][std::size_t(a)] - o[a];
    const double cross[3] = {p[1][1] * p[2][2] - p[1][2] * p[2][1], p[1][2] * p[2][0] - p[1][0] * p[2][2],
                             p[1][0] * p[2][1] - p[1][1] * p[2][0]};
    const double v = (p[0][0] * cross[0] + p[0][1] * cross[1] + p[0][2] * cross[2]) / 6.0;
    volume += v;
    for (int a = 0; a < 3; ++a) moment[a] += v * (p[0][a] + p[1][a] + p[2][a]) / 4.0;
  }
  mesh.volume = std::abs(volume);
  for (int a = 0; a < 3; ++a) mesh.centroid[std::size_t(a)] = volume != 0.0 ? o[a] + moment[a] / volume : o[a];
  return mesh;
}

void load_solid_files(CaseConfig& config) {
  for (std::size_t n = 0; n < config.solids.size(); ++n) {
    SolidConfig& s = config.solids[n];
    const bool mesh = s.shape == SolidShape::mesh, voxels = s.shape == SolidShape::voxels;
    if ((!mesh || s.surface) && (!voxels || s.voxel_grid)) continue;
    const std::string where = source_prefix(config) + "solid[" + std::to_string(n) + "]." + (mesh ? "mesh" : "voxels") +
                              " ('" + s.name + "'): ";
    try {
      if (mesh) {
        s.surface = std::make_shared<const TriangleMesh>(transformed_mesh(read_mesh_file(s.file), s));
      } else {
        std::string ext = std::filesystem::path(s.file).extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        const bool vti = ext == ".vti";
        s.voxel_grid = std::make_shared<const VoxelGrid>(vti ? read_vti_voxels(s.file, s.array)
                                                             : read_raw_voxels(s.file, s.dimensions));
      }
    } catch (const CaseFileError& e) {
      throw CaseFileError(where + e.what());
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
  }
}

}  // namespace eddy
