// The device voxelisation of one mesh on one block (solver/mesh_voxeliser.hpp): samples, fixed point, the passes of
// kernels/mesh_voxels.hpp and the download.
#include "solver/mesh_voxeliser.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "io/solid_files.hpp"
#include "kernels/backend.hpp"
#include "solver/device_buffer.hpp"
#include "solver/errors.hpp"
#include "solver/timing.hpp"

namespace eddy {

VoxelSamples block_samples(const CaseConfig& config, const Decomposition& d, int margin) {
  VoxelSamples samples;
  samples.margin = margin;
  for (int a = 0; a < 3; ++a) {
    AxisSamples& axis = samples.axis[std::size_t(a)];
    const std::int64_t n = d.global_size[a];
    const int extra = a == 0 ? 0 : margin;
    std::set<std::int32_t> cells;
    std::vector<std::int64_t> global_of_local(std::size_t(d.local_size[a] + 2), -1);
    for (int l = 0; l < d.local_size[a] + 2; ++l) {
      std::int64_t g = std::int64_t(d.offset[a]) + l - 1;
      if (g < 0 || g >= n) {
        if (config.faces[std::size_t(2 * a)].kind != FaceKind::periodic) continue;  // beyond a wall: no solid
        g = ((g % n) + n) % n;                                                      // the cell this ghost copies
      }
      global_of_local[std::size_t(l)] = g;
      for (int e = -extra; e <= extra; ++e) cells.insert(std::int32_t(g + e));
    }
    axis.global.assign(cells.begin(), cells.end());
    axis.slot_of_local.assign(global_of_local.size(), -1);
    for (std::size_t l = 0; l < global_of_local.size(); ++l) {
      if (global_of_local[l] < 0) continue;
      axis.slot_of_local[l] =
          std::int32_t(std::lower_bound(axis.global.begin(), axis.global.end(), std::int32_t(global_of_local[l])) -
                       axis.global.begin());
    }
  }
  return samples;
}

std::vector<MeshTriangle> fixed_point_triangles(const TriangleMesh& mesh, const std::array<int, 3>& size,
                                                const std::string& where) {
  const double limit = std::ldexp(1.0, 40);
  std::vector<MeshTriangle> out;
  out.reserve(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    MeshTriangle f{};
    bool reaches = true;
    for (int k = 0; k < 3; ++k) {
      const std::array<double, 3>& v = mesh.vertices[std::size_t(mesh.triangles[t][std::size_t(k)])];
      for (int a = 0; a < 3; ++a) {
        if (!(std::abs(v[std::size_t(a)]) < limit)) {
          char at[32];
          std::snprintf(at, sizeof at, "%.6g", v[std::size_t(a)]);
          throw CollectiveInputError(where + ": vertex " + std::to_string(mesh.triangles[t][std::size_t(k)]) +
                                     " lies at " + at + " cells along " + "xyz"[a] +
                                     ", beyond the 2^40 cells the voxeliser takes: check scale and translate");
        }
        f.v[k][a] = std::llround(std::ldexp(v[std::size_t(a)], kMeshFractionBits));
      }
    }
    for (int a = 1; a < 3; ++a) {  // y and z: the columns a triangle can cross
      const std::int64_t lo = std::min({f.v[0][a], f.v[1][a], f.v[2][a]});
      const std::int64_t hi = std::max({f.v[0][a], f.v[1][a], f.v[2][a]});
      if (hi < -3 * kMeshCell || lo >= (std::int64_t(size[std::size_t(a)]) + 3) * kMeshCell) reaches = false;
    }
    if (!reaches) continue;
    for (int a = 0; a < 3; ++a) {
      const std::int64_t lo = std::min({f.v[0][a], f.v[1][a], f.v[2][a]});
      const std::int64_t hi = std::max({f.v[0][a], f.v[1][a], f.v[2][a]});
      if (hi - lo >= kMeshTriangleSpan) {
        char span[32];
        std::snprintf(span, sizeof span, "%.6g", double(hi - lo) / double(kMeshCell));
        throw CollectiveInputError(where + ": triangle " + std::to_string(t) + " spans " + span + " cells along " +
                                   "xyz"[a] +
                                   ", more than the 32768 the voxeliser's exact arithmetic takes: refine "
                                   "the mesh "
                                   "(split its large triangles)");
      }
    }
    out.push_back(f);
  }
  return out;
}

std::vector<MeshTriangle> triangles_for(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples) {
  std::vector<MeshTriangle> out;
  const auto& y = samples.axis[1].global;
  const auto& z = samples.axis[2].global;
  if (y.empty() || z.empty() || samples.axis[0].global.empty()) return out;
  // Columns j with centre j S + S/2 in [lo, hi] (kernels/mesh_voxels.hpp triangle_columns); a coarse test suffices.
  const auto reaches = [](const MeshTriangle& t, int a, const std::vector<std::int32_t>& list) {
    const std::int64_t lo = std::min({t.v[0][a], t.v[1][a], t.v[2][a]});
    const std::int64_t hi = std::max({t.v[0][a], t.v[1][a], t.v[2][a]});
    const std::int64_t j_lo = -floor_div(kMeshHalfCell - lo, kMeshCell);
    const std::int64_t j_hi = floor_div(hi - kMeshHalfCell, kMeshCell);
    const auto first = std::lower_bound(list.begin(), list.end(), j_lo,
                                        [](std::int32_t v, std::int64_t key) { return std::int64_t(v) < key; });
    return first != list.end() && std::int64_t(*first) <= j_hi;
  };
  for (const MeshTriangle& t : triangles) {
    if (reaches(t, 1, y) && reaches(t, 2, z)) out.push_back(t);
  }
  return out;
}

namespace {

template <class T>
DeviceBuffer<T> uploaded(const std::vector<T>& host) {
  DeviceBuffer<T> buffer(std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) backend::copy_to_device(buffer.data(), host.data(), host.size() * sizeof(T));
  return buffer;
}

}  // namespace

std::vector<std::int32_t> repair_near_table(const std::vector<std::int32_t>& list) {
  std::vector<std::int32_t> near(list.size() * 5, -1);
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (int d = -2; d <= 2; ++d) {
      const auto it = std::lower_bound(list.begin(), list.end(), list[i] + d);
      if (it != list.end() && *it == list[i] + d) near[i * 5 + std::size_t(d + 2)] = std::int32_t(it - list.begin());
    }
  }
  return near;
}

MeshVoxels voxelise_mesh(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples, bool repair) {
  const auto begin = Clock::now();
  MeshVoxels out;
  out.samples = samples;
  const auto& x = samples.axis[0].global;
  const auto& y = samples.axis[1].global;
  const auto& z = samples.axis[2].global;
  out.words = std::int32_t((x.size() + 31) / 32);
  const std::int64_t columns = std::int64_t(y.size()) * std::int64_t(z.size());
  out.bits.assign(std::size_t(columns * out.words), 0u);
  out.crossings.assign(std::size_t(columns), 0ull);
  if (columns == 0 || x.empty()) return out;

  backend::synchronize();
  DeviceBuffer<std::int32_t> dx = uploaded(x), dy = uploaded(y), dz = uploaded(z);
  DeviceBuffer<std::uint32_t> bits(out.bits.size());
  DeviceBuffer<unsigned long long> crossings(out.crossings.size());
  const VoxelSampleView view{dx.data(),       std::int32_t(x.size()), dy.data(), std::int32_t(y.size()),
                             dz.data(),       std::int32_t(z.size()), out.words, bits.data(),
                             crossings.data()};
  clear_voxel_samples(view);
  const std::int64_t n = std::int64_t(triangles.size());
  if (n > 0) {
    DeviceBuffer<MeshTriangle> device_triangles = uploaded(triangles);
    DeviceBuffer<std::uint32_t> tiles{std::size_t(n)};
    DeviceBuffer<unsigned long long> counters = uploaded(std::vector<unsigned long long>{0ull, 0ull});
    count_mesh_tiles(device_triangles.data(), n, view, tiles.data(), counters.data());
    unsigned long long total = 0;
    backend::synchronize();
    backend::copy_to_host(&total, counters.data(), sizeof total);
    if (total > 0) {
      DeviceBuffer<TileItem> items{std::size_t(total)};
      list_mesh_tiles(n, tiles.data(), counters.data() + 1, items.data());
      toggle_mesh_crossings(device_triangles.data(), items.data(), std::int64_t(total), view);
      backend::synchronize();  // the work list is freed here
    }
  }
  fill_voxel_parity(view);
  if (repair) {
    DeviceBuffer<std::int32_t> y_near = uploaded(repair_near_table(y)), z_near = uploaded(repair_near_table(z));
    repair_odd_columns(view, y_near.data(), z_near.data());
    backend::synchronize();
  }
  backend::synchronize();
  backend::copy_to_host(out.bits.data(), bits.data(), out.bits.size() * sizeof(std::uint32_t));
  backend::copy_to_host(out.crossings.data(), crossings.data(), out.crossings.size() * sizeof(unsigned long long));
  out.seconds = seconds_since(begin);
  return out;
}

}  // namespace eddy
