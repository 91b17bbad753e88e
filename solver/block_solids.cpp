// Which solid covers each cell of a block (solver/block_solids.hpp): the mesh voxelisation, the voxel lookups, the
// summary over the ranks and the checks that need every rank's cells (open meshes, no fluid left).
#include "solver/block_solids.hpp"

#include <algorithm>
#include <cstdio>

#include "io/solid_files.hpp"
#include "kernels/block.hpp"
#include "solver/errors.hpp"
#include "solver/mpi_check.hpp"
#include "solver/timing.hpp"

namespace eddy {

namespace {

std::string number_text(double value, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

BlockSolids::BlockSolids(const CaseConfig& config, const Decomposition& decomposition, int count_margin_z)
    : solids_(config.solids), decomposition_(decomposition) {
  if (solids_.empty()) return;
  bool unloaded = false;
  for (const SolidConfig& s : solids_) {
    unloaded |= (s.shape == SolidShape::mesh && !s.surface) || (s.shape == SolidShape::voxels && !s.voxel_grid);
  }
  if (unloaded) {  // a case built in code (tests, bench): read the files now
    CaseConfig loaded = config;
    load_solid_files(loaded);
    solids_ = loaded.solids;
  }
  for (int a = 0; a < 3; ++a) periodic_[std::size_t(a)] = config.faces[std::size_t(2 * a)].kind == FaceKind::periodic;
  const std::size_t n = solids_.size();
  ranges_.resize(n);
  rotations_.resize(n);
  meshes_.resize(n);
  summary_.assign(n, SolidSummary{});
  for (std::size_t k = 0; k < n; ++k) {
    const SolidConfig& s = solids_[k];
    ranges_[k] = solid_cell_range(s, decomposition.global_size);
    rotations_[k] = rotation_matrix(s.rotate);
    if (s.shape != SolidShape::mesh) continue;
    const std::string where =
        source_prefix(config) + "solid[" + std::to_string(k) + "].mesh ('" + s.name + "', " + s.file + ")";
    const auto begin = Clock::now();
    const std::vector<MeshTriangle> triangles = fixed_point_triangles(*s.surface, decomposition.global_size, where);
    const VoxelSamples samples = block_samples(config, decomposition, s.repair == MeshRepair::fill ? 2 : 0);
    const std::vector<MeshTriangle> selected = triangles_for(triangles, samples);
    summary_[k].host_seconds = seconds_since(begin);
    meshes_[k] = voxelise_mesh(selected, samples, s.repair == MeshRepair::fill);
    summary_[k].triangles = std::int64_t(s.surface->triangles.size());
    summary_[k].columns = std::int64_t(decomposition.global_size[1]) * decomposition.global_size[2];
    summary_[k].volume = s.surface->volume;
    summary_[k].seconds = meshes_[k].seconds;
  }

  // Counts over this rank's own interior cells (less the out-of-core margin), then over all ranks.
  const BlockShape shape{{decomposition.local_size[0], decomposition.local_size[1], decomposition.local_size[2]}};
  Box counted = shape.interior();
  counted.lo[2] += count_margin_z;
  counted.hi[2] -= count_margin_z;
  const bool any_file =
      std::any_of(solids_.begin(), solids_.end(), [](const SolidConfig& s) { return !analytic_shape(s); });
  std::vector<long long> counts(2 * n + 1, 0);  // cells per solid, odd columns per solid, cells held by any solid
  for (std::size_t k = 0; k < n; ++k) {
    const SolidConfig& s = solids_[k];
    if (s.shape == SolidShape::voxels) summary_[k].volume = double(s.voxel_grid->count);
    long long cells = 0;
#pragma omp parallel for reduction(+ : cells) schedule(static)
    for (int z = counted.lo[2]; z < counted.hi[2]; ++z)
      for (int y = counted.lo[1]; y < counted.hi[1]; ++y)
        for (int x = counted.lo[0]; x < counted.hi[0]; ++x) {
          std::array<std::int64_t, 3> g{};
          for (int a = 0; a < 3; ++a)
            g[std::size_t(a)] = std::int64_t(decomposition.offset[a]) + (a == 0 ? x : a == 1 ? y : z) - 1;
          cells += holds(int(k), x, y, z, g) ? 1 : 0;
        }
    counts[k] = cells;
    if (s.shape == SolidShape::mesh &&
        decomposition.offset[0] == 0) {  // each ray counted once: by the first rank along x
      long long odd = 0;
      for (int z = counted.lo[2]; z < counted.hi[2]; ++z)
        for (int y = counted.lo[1]; y < counted.hi[1]; ++y) odd += (meshes_[k].column_crossings(y, z) & 1ull) ? 1 : 0;
      counts[n + k] = odd;
    }
  }
  if (any_file) {
    long long held = 0;
#pragma omp parallel for reduction(+ : held) schedule(static)
    for (int z = counted.lo[2]; z < counted.hi[2]; ++z)
      for (int y = counted.lo[1]; y < counted.hi[1]; ++y)
        for (int x = counted.lo[0]; x < counted.hi[0]; ++x) {
          std::array<std::int64_t, 3> g{};
          held += solid_at(x, y, z, g) >= 0 ? 1 : 0;
        }
    counts[2 * n] = held;
  }
  std::vector<double> seconds(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    seconds[k] = summary_[k].seconds;
    seconds[n + k] = summary_[k].host_seconds;
  }
  if (!decomposition.serial()) {
    EDDY_MPI_CHECK(
        MPI_Allreduce(MPI_IN_PLACE, counts.data(), int(counts.size()), MPI_LONG_LONG, MPI_SUM, decomposition.comm));
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, seconds.data(), int(2 * n), MPI_DOUBLE, MPI_MAX, decomposition.comm));
  }
  for (std::size_t k = 0; k < n; ++k) {
    summary_[k].cells = counts[k];
    summary_[k].odd_columns = counts[n + k];
    summary_[k].seconds = seconds[k];
    summary_[k].host_seconds = seconds[n + k];
  }

  // The checks every rank makes alike, from the sums.
  for (std::size_t k = 0; k < n; ++k) {
    const SolidConfig& s = solids_[k];
    if (s.shape != SolidShape::mesh || summary_[k].odd_columns == 0 || s.repair == MeshRepair::fill) continue;
    throw CollectiveInputError(
        source_prefix(config) + "solid[" + std::to_string(k) + "].mesh ('" + s.name + "', " + s.file +
        "): " + std::to_string(summary_[k].odd_columns) + " of the " + std::to_string(summary_[k].columns) +
        " rays along x through the domain's cell centres cross the mesh an odd number of times: the mesh is not "
        "closed (holes, missing or overlapping faces); repair the mesh, or set solid[" +
        std::to_string(k) + "].repair = \"fill\" (such rays then take the majority of their closed neighbours)");
  }
  const double total =
      double(decomposition.global_size[0]) * decomposition.global_size[1] * decomposition.global_size[2];
  if (any_file && double(counts[2 * n]) >= total) {
    throw CollectiveInputError(source_prefix(config) + "the solids cover every cell of the domain (domain.size = [" +
                               std::to_string(decomposition.global_size[0]) + ", " +
                               std::to_string(decomposition.global_size[1]) + ", " +
                               std::to_string(decomposition.global_size[2]) + "], " + number_text(total, "%.0f") +
                               " cells): no fluid cell is left");
  }
}

bool BlockSolids::holds(int k, int x, int y, int z, const std::array<std::int64_t, 3>& g) const {
  const SolidConfig& s = solids_[std::size_t(k)];
  switch (s.shape) {
    case SolidShape::mesh:
      return meshes_[std::size_t(k)].inside(x, y, z);
    case SolidShape::voxels: {
      const VoxelGrid& grid = *s.voxel_grid;
      std::int64_t i[3];
      for (int a = 0; a < 3; ++a) {
        i[a] = g[std::size_t(a)] - std::int64_t(s.offset[std::size_t(a)]);
        if (i[a] < 0 || i[a] >= grid.dims[std::size_t(a)]) return false;
      }
      return grid.solid[std::size_t(i[0] + grid.dims[0] * (i[1] + grid.dims[1] * i[2]))] != 0;
    }
    default: {
      const CellRange& r = ranges_[std::size_t(k)];
      for (int a = 0; a < 3; ++a) {
        if (g[std::size_t(a)] < r.lo[a] || g[std::size_t(a)] >= r.hi[a]) return false;
      }
      return inside_solid(s, cell_centre(g), rotations_[std::size_t(k)]);
    }
  }
}

int BlockSolids::solid_at(int x, int y, int z, std::array<std::int64_t, 3>& g) const {
  if (solids_.empty()) return -1;
  const int p[3] = {x, y, z};
  bool beyond_wall = false;
  for (int a = 0; a < 3; ++a) {
    const std::int64_t n = decomposition_.global_size[a];
    g[std::size_t(a)] = std::int64_t(decomposition_.offset[a]) + p[a] - 1;
    if (g[std::size_t(a)] >= 0 && g[std::size_t(a)] < n) continue;
    if (!periodic_[std::size_t(a)]) beyond_wall = true;
    g[std::size_t(a)] = ((g[std::size_t(a)] % n) + n) % n;
  }
  if (beyond_wall) return -1;
  for (std::size_t k = 0; k < solids_.size(); ++k) {
    if (holds(int(k), x, y, z, g)) return int(k);
  }
  return -1;
}

Point3 BlockSolids::centre(int k) const {
  const SolidConfig& s = solids_[std::size_t(k)];
  switch (s.shape) {
    case SolidShape::sphere:
      return s.center;
    case SolidShape::cylinder:
      return {0.5 * (s.start[0] + s.end[0]), 0.5 * (s.start[1] + s.end[1]), 0.5 * (s.start[2] + s.end[2])};
    case SolidShape::box:
      return {0.5 * (s.min[0] + s.max[0]), 0.5 * (s.min[1] + s.max[1]), 0.5 * (s.min[2] + s.max[2])};
    case SolidShape::mesh:
      return s.surface->centroid;
    case SolidShape::voxels:
      return {s.offset[0] + s.voxel_grid->centroid[0], s.offset[1] + s.voxel_grid->centroid[1],
              s.offset[2] + s.voxel_grid->centroid[2]};
  }
  return {0.0, 0.0, 0.0};
}

}  // namespace eddy
