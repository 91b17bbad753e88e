// The plain CPU reference of the mesh voxeliser (solver/mesh_voxeliser.hpp voxelise_mesh_reference): the same
// per-column predicate as the device (kernels/mesh_voxels.hpp ray_crossing) in straightforward loops, without tiles,
// atomics or bit tricks: per column the list of crossings, sorted, and for each sample the count of those at or
// before it.
#include <algorithm>

#include "solver/mesh_voxeliser.hpp"

namespace eddy {

MeshVoxels voxelise_mesh_reference(const std::vector<MeshTriangle>& triangles, const VoxelSamples& samples,
                                   bool repair) {
  MeshVoxels out;
  out.samples = samples;
  const auto& x = samples.axis[0].global;
  const auto& y = samples.axis[1].global;
  const auto& z = samples.axis[2].global;
  const std::size_t ny = y.size(), nz = z.size(), nx = x.size();
  out.words = std::int32_t((nx + 31) / 32);
  out.bits.assign(ny * nz * std::size_t(out.words), 0u);
  out.crossings.assign(ny * nz, 0ull);
  std::vector<std::vector<std::int64_t>> cells(ny * nz);
  for (const MeshTriangle& t : triangles) {
    // The sampled columns whose centres lie in the triangle's (y, z) bounding box.
    std::size_t first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
    for (int a = 1; a < 3; ++a) {
      const auto& list = a == 1 ? y : z;
      const std::int64_t lo = std::min({t.v[0][a], t.v[1][a], t.v[2][a]});
      const std::int64_t hi = std::max({t.v[0][a], t.v[1][a], t.v[2][a]});
      const auto centre = [](std::int32_t j) { return std::int64_t(j) * kMeshCell + kMeshHalfCell; };
      first[a] =
          std::size_t(std::partition_point(list.begin(), list.end(), [&](std::int32_t j) { return centre(j) < lo; }) -
                      list.begin());
      last[a] =
          std::size_t(std::partition_point(list.begin(), list.end(), [&](std::int32_t j) { return centre(j) <= hi; }) -
                      list.begin());
    }
    for (std::size_t iz = first[2]; iz < last[2]; ++iz) {
      const std::int64_t pv = std::int64_t(z[iz]) * kMeshCell + kMeshHalfCell;
      for (std::size_t iy = first[1]; iy < last[1]; ++iy) {
        const std::int64_t pu = std::int64_t(y[iy]) * kMeshCell + kMeshHalfCell;
        std::int64_t cell = 0;
        if (ray_crossing(t, pu, pv, cell)) cells[iy + ny * iz].push_back(cell);
      }
    }
  }
  const auto set_bit = [&](std::size_t c, std::size_t s, bool on) {
    std::uint32_t& word = out.bits[c * std::size_t(out.words) + s / 32];
    const std::uint32_t bit = 1u << (s % 32);
    word = on ? (word | bit) : (word & ~bit);
  };
  for (std::size_t c = 0; c < ny * nz; ++c) {
    std::vector<std::int64_t>& list = cells[c];
    std::sort(list.begin(), list.end());
    out.crossings[c] = list.size();
    std::size_t before = 0;  // crossings at or before sample s's centre: those with cell <= x[s]
    for (std::size_t s = 0; s < nx; ++s) {
      while (before < list.size() && list[before] <= x[s]) ++before;
      set_bit(c, s, before % 2 == 1);
    }
  }
  if (repair) {
    const std::vector<std::int32_t> y_near = repair_near_table(y), z_near = repair_near_table(z);
    const std::vector<std::uint32_t> parity = out.bits;  // the votes come from unrepaired (even) columns only
    for (std::size_t iz = 0; iz < nz; ++iz)
      for (std::size_t iy = 0; iy < ny; ++iy) {
        const std::size_t c = iy + ny * iz;
        if (out.crossings[c] % 2 == 0) continue;
        std::vector<std::size_t> voters;
        for (int dz = -2; dz <= 2; ++dz)
          for (int dy = -2; dy <= 2; ++dy) {
            const std::int32_t jy = y_near[iy * 5 + std::size_t(dy + 2)], jz = z_near[iz * 5 + std::size_t(dz + 2)];
            if (jy < 0 || jz < 0 || (dy == 0 && dz == 0)) continue;
            const std::size_t n = std::size_t(jy) + ny * std::size_t(jz);
            if (out.crossings[n] % 2 == 0) voters.push_back(n);
          }
        for (std::size_t s = 0; s < nx; ++s) {
          std::size_t solid = 0;
          for (std::size_t v : voters) solid += (parity[v * std::size_t(out.words) + s / 32] >> (s % 32)) & 1u;
          set_bit(c, s, 2 * solid > voters.size());
        }
      }
  }
  return out;
}

}  // namespace eddy
