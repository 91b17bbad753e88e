// Which solid covers each cell of a block (solver/block_solids.hpp): the mesh voxelisation, the voxel lookups, the
// summary over the ranks and the checks that need every rank's cells (open meshes, no fluid left).
#include "solver/block_solids.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

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
  samples_.resize(n);
  triangle_cells_.resize(n);
  indexed_.assign(n, false);
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
    samples_[k] = samples;
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

namespace {

/// The lattice cell holding coordinate v (floor), v clamped to [lo, hi] first (vertices may lie far away).
std::int64_t cell_of(double v, std::int64_t lo = -(std::int64_t(1) << 40), std::int64_t hi = std::int64_t(1) << 40) {
  return std::int64_t(std::floor(std::clamp(v, double(lo), double(hi))));
}

/// Per axis, the cells within 2 of a sampled cell (`global`, ascending): near[c - lo] for lo <= c <= hi.
struct NearCells {
  std::int64_t lo = 0, hi = -1;
  std::vector<bool> near;
  explicit NearCells(const std::vector<std::int32_t>& global) {
    if (global.empty()) return;
    lo = std::int64_t(global.front()) - 2;
    hi = std::int64_t(global.back()) + 2;
    near.assign(std::size_t(hi - lo + 1), false);
    for (const std::int32_t g : global)
      for (std::int64_t c = g - 2; c <= g + 2; ++c) near[std::size_t(c - lo)] = true;
  }
  bool has(std::int64_t c) const { return c >= lo && c <= hi && near[std::size_t(c - lo)]; }
};

}  // namespace

void BlockSolids::index_triangles(int k) const {
  // Every cut link's segment, in the coordinates of any of its periodic images that mesh_wall_distance asks about,
  // runs between a sampled cell's centre and a neighbour's, so it lies in cells within 1 of a sampled cell on each
  // axis: a triangle is listed in the cells near a sampled cell (NearCells) that its plane passes through (within
  // 1e-7 cells), inside its bounding box. A crossing point lies in the triangle, in a cell of the segment's bounding
  // box, so that cell lists the triangle. A triangle's cells are found column by column along its dominant normal
  // axis w: over the unit square of each (u, v) column the plane spans the w of its four corners. Work and memory
  // grow with the triangles' areas near the block, not with their bounding boxes' volumes.
  const SolidConfig& s = solids_[std::size_t(k)];
  const TriangleMesh& mesh = *s.surface;
  const VoxelSamples& samples = samples_[std::size_t(k)];
  const NearCells near[3] = {NearCells(samples.axis[0].global), NearCells(samples.axis[1].global),
                             NearCells(samples.axis[2].global)};
  auto& cells = triangle_cells_[std::size_t(k)];
  for (std::size_t n = 0; n < mesh.triangles.size(); ++n) {
    const Point3& v0 = mesh.vertices[std::size_t(mesh.triangles[n][0])];
    const Point3& v1 = mesh.vertices[std::size_t(mesh.triangles[n][1])];
    const Point3& v2 = mesh.vertices[std::size_t(mesh.triangles[n][2])];
    std::int64_t lo[3], hi[3];
    bool reaches = true;
    for (int ax = 0; ax < 3 && reaches; ++ax) {
      const double a = std::min({v0[ax], v1[ax], v2[ax]}), b = std::max({v0[ax], v1[ax], v2[ax]});
      lo[ax] = std::max(cell_of(a, near[ax].lo, near[ax].hi), near[ax].lo);
      hi[ax] = std::min(cell_of(b, near[ax].lo, near[ax].hi), near[ax].hi);
      reaches = a <= double(near[ax].hi + 1) && b >= double(near[ax].lo) && lo[ax] <= hi[ax];
    }
    if (!reaches) continue;
    const double e1[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
    const double e2[3] = {v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]};
    const double normal[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                              e1[0] * e2[1] - e1[1] * e2[0]};
    int w = 0;
    for (int ax = 1; ax < 3; ++ax) w = std::abs(normal[ax]) > std::abs(normal[w]) ? ax : w;
    if (normal[w] == 0.0) continue;  // degenerate: no segment crosses it (mesh_crossings skips it too)
    const int u = (w + 1) % 3, v = (w + 2) % 3;
    const double level = normal[0] * v0[0] + normal[1] * v0[1] + normal[2] * v0[2];
    for (std::int64_t cu = lo[u]; cu <= hi[u]; ++cu) {
      if (!near[u].has(cu)) continue;
      for (std::int64_t cv = lo[v]; cv <= hi[v]; ++cv) {
        if (!near[v].has(cv)) continue;
        // The plane's w at the column's four corners: w = (level - n_u x_u - n_v x_v) / n_w.
        double wmin = HUGE_VAL, wmax = -HUGE_VAL;
        for (int corner = 0; corner < 4; ++corner) {
          const double xu = double(cu + (corner & 1)), xv = double(cv + (corner >> 1));
          const double at = (level - normal[u] * xu - normal[v] * xv) / normal[w];
          wmin = std::min(wmin, at);
          wmax = std::max(wmax, at);
        }
        const std::int64_t first = std::max(lo[w], cell_of(wmin - 1e-7, near[w].lo - 1, near[w].hi + 1));
        const std::int64_t last = std::min(hi[w], cell_of(wmax + 1e-7, near[w].lo - 1, near[w].hi + 1));
        for (std::int64_t cw = first; cw <= last; ++cw) {
          if (!near[w].has(cw)) continue;
          std::array<std::int64_t, 3> key{};
          key[std::size_t(2 - u)] = cu;  // keys are (z, y, x)
          key[std::size_t(2 - v)] = cv;
          key[std::size_t(2 - w)] = cw;
          cells.push_back({key, std::int32_t(n)});
        }
      }
    }
  }
  std::sort(cells.begin(), cells.end());
  indexed_[std::size_t(k)] = true;
}

void BlockSolids::mesh_crossings(int k, const Point3& a, const Point3& c, std::vector<double>& t) const {
  t.clear();
  const SolidConfig& s = solids_[std::size_t(k)];
  const TriangleMesh& mesh = *s.surface;
  if (!indexed_[std::size_t(k)]) index_triangles(k);
  const auto& cells = triangle_cells_[std::size_t(k)];
  // The triangles of the cells the segment's bounding box touches, each once.
  std::vector<std::int32_t> candidates;
  std::int64_t lo[3], hi[3];
  for (int ax = 0; ax < 3; ++ax) {
    lo[ax] = cell_of(std::min(a[ax], a[ax] + c[ax]));
    hi[ax] = cell_of(std::max(a[ax], a[ax] + c[ax]));
  }
  for (std::int64_t kk = lo[2]; kk <= hi[2]; ++kk)
    for (std::int64_t jj = lo[1]; jj <= hi[1]; ++jj)
      for (std::int64_t ii = lo[0]; ii <= hi[0]; ++ii) {
        const std::array<std::int64_t, 3> key = {kk, jj, ii};
        auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(key, std::int32_t(-1)));
        for (; it != cells.end() && it->first == key; ++it) candidates.push_back(it->second);
      }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (const std::int32_t n : candidates) {
    const auto& tri = mesh.triangles[std::size_t(n)];
    const Point3& v0 = mesh.vertices[std::size_t(tri[0])];
    const Point3& v1 = mesh.vertices[std::size_t(tri[1])];
    const Point3& v2 = mesh.vertices[std::size_t(tri[2])];
    const double e1[3] = {v1[0] - v0[0], v1[1] - v0[1], v1[2] - v0[2]};
    const double e2[3] = {v2[0] - v0[0], v2[1] - v0[1], v2[2] - v0[2]};
    const double pv[3] = {c[1] * e2[2] - c[2] * e2[1], c[2] * e2[0] - c[0] * e2[2], c[0] * e2[1] - c[1] * e2[0]};
    const double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (det == 0.0) continue;  // the segment is parallel to the triangle
    const double tv[3] = {a[0] - v0[0], a[1] - v0[1], a[2] - v0[2]};
    const double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) / det;
    if (u < 0.0 || u > 1.0) continue;
    const double qv[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
    const double v = (c[0] * qv[0] + c[1] * qv[1] + c[2] * qv[2]) / det;
    if (v < 0.0 || u + v > 1.0) continue;
    const double along = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    if (along >= 0.0 && along <= 1.0) t.push_back(along);
  }
}

double BlockSolids::mesh_wall_distance(int k, const Point3& p, const Point3& c, bool solid_node_inside) const {
  const std::array<int, 3>& size = decomposition_.global_size;
  const auto in_domain = [&](const Point3& x) {
    for (int ax = 0; ax < 3; ++ax) {
      if (!(x[ax] >= 0.0 && x[ax] < double(size[ax]))) return false;
    }
    return true;
  };
  double first = HUGE_VAL;
  std::vector<double> t;
  for (int image = 0; image < 27; ++image) {
    const int shift[3] = {image % 3 - 1, (image / 3) % 3 - 1, image / 9 - 1};
    bool allowed = true;
    for (int ax = 0; ax < 3; ++ax) allowed = allowed && (shift[ax] == 0 || periodic_[std::size_t(ax)]);
    if (!allowed) continue;
    Point3 a{}, b{};
    for (int ax = 0; ax < 3; ++ax) {
      a[ax] = p[ax] + double(shift[ax]) * double(size[ax]);
      b[ax] = a[ax] + c[ax];
    }
    const bool a_in = in_domain(a), b_in = in_domain(b);  // b_in: this image's solid node is the link's own
    if (!a_in && !b_in) continue;                         // the segment touches the domain at one point at most
    LineInterval box;
    for (int ax = 0; ax < 3; ++ax) box &= slab_interval(a[ax], c[ax], 0.0, double(size[ax]));
    mesh_crossings(k, a, c, t);
    if (b_in && solid_node_inside) {
      // Inside from the last crossing before the solid node on (or from where the segment enters the domain).
      double last = a_in ? -1.0 : box.lo;
      for (double x : t) last = std::max(last, x);
      if (last >= 0.0) first = std::min(first, last);
    } else if (a_in) {
      // From a fluid node (outside): the first crossing, inside the domain.
      for (double x : t) {
        if (x <= box.hi) first = std::min(first, x);
      }
    }
  }
  return first <= 1.0 ? first : -1.0;
}

double BlockSolids::link_wall_distance(int x, int y, int z, const int (&c)[3]) const {
  std::array<std::int64_t, 3> g{};
  solid_at(x + c[0], y + c[1], z + c[2], g);  // the solid node's global (wrapped) index
  const Point3 solid_cell = cell_centre(g);
  const Point3 step = {double(c[0]), double(c[1]), double(c[2])};
  // The fluid node seen from the solid's (wrapped) cell: across a periodic face, the image next to it.
  const Point3 fluid = {solid_cell[0] - step[0], solid_cell[1] - step[1], solid_cell[2] - step[2]};
  double q = 2.0;
  for (std::size_t k = 0; k < solids_.size(); ++k) {
    const SolidConfig& s = solids_[k];
    double t = -1.0;
    if (analytic_shape(s)) {
      t = wall_distance(s, fluid, step, decomposition_.global_size, periodic_);
    } else if (s.shape == SolidShape::voxels) {
      t = holds(int(k), x + c[0], y + c[1], z + c[2], g) ? 0.5 : -1.0;
    } else {
      t = mesh_wall_distance(int(k), fluid, step, holds(int(k), x + c[0], y + c[1], z + c[2], g));
    }
    if (t >= 0.0 && t < q) q = t;
  }
  return q <= 1.0 ? q : 0.5;
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
