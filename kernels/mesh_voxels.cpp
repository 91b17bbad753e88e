// Device passes of the mesh voxeliser (kernels/mesh_voxels.hpp: the rule, its exactness and its sources): tiles
// per triangle, the work list, the crossings (atomic toggles and counts), the parity fill and the repair of odd
// columns. Flat one-dimensional launches through parallel_for, kRowLength threads per row.
#include "kernels/mesh_voxels.hpp"

#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

constexpr int kRowLength = 1024;

/// A box covering [0, n) as rows of kRowLength: f(x, y, 0) handles index y kRowLength + x.
Box flat_range(std::int64_t n) {
  const int width = n < kRowLength ? static_cast<int>(n) : kRowLength;
  const int rows = static_cast<int>((n + kRowLength - 1) / kRowLength);
  return Box{{0, 0, 0}, {width, rows, 1}};
}

EDDY_HOST_DEVICE inline std::int64_t flat_index(int x, int y) { return std::int64_t(y) * kRowLength + x; }

struct ClearSamples {
  VoxelSampleView s;
  std::int64_t columns;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t c = flat_index(x, y);
    if (c >= columns) return;
    s.crossings[c] = 0ull;
    for (std::int32_t w = 0; w < s.words; ++w) s.bits[c * s.words + w] = 0u;
  }
};

struct CountTiles {
  const MeshTriangle* triangles;
  std::int64_t n;
  VoxelSampleView s;
  std::uint32_t* tiles;
  unsigned long long* total;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t t = flat_index(x, y);
    if (t >= n) return;
    const std::int64_t count = triangle_columns(triangles[t], s).tiles();
    tiles[t] = std::uint32_t(count);
    if (count > 0) atomic_add(total, static_cast<unsigned long long>(count));
  }
};

struct ListTiles {
  std::int64_t n;
  const std::uint32_t* tiles;
  unsigned long long* cursor;
  TileItem* items;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t t = flat_index(x, y);
    if (t >= n || tiles[t] == 0u) return;
    const unsigned long long first = atomic_fetch_add(cursor, tiles[t]);
    for (std::uint32_t k = 0; k < tiles[t]; ++k) items[first + k] = TileItem{std::uint32_t(t), k};
  }
};

struct ToggleCrossings {
  const MeshTriangle* triangles;
  const TileItem* items;
  std::int64_t n_items;
  VoxelSampleView s;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t k = flat_index(x, y);
    if (k >= n_items) return;
    const TileItem item = items[k];
    const MeshTriangle t = triangles[item.triangle];
    const TileRange r = triangle_columns(t, s);
    const std::int32_t tiles_y = (r.y1 - r.y0 + kTileColumns - 1) / kTileColumns;
    const std::int32_t y0 = r.y0 + std::int32_t(item.tile % std::uint32_t(tiles_y)) * kTileColumns;
    const std::int32_t z0 = r.z0 + std::int32_t(item.tile / std::uint32_t(tiles_y)) * kTileColumns;
    const std::int32_t y1 = y0 + kTileColumns < r.y1 ? y0 + kTileColumns : r.y1;
    const std::int32_t z1 = z0 + kTileColumns < r.z1 ? z0 + kTileColumns : r.z1;
    for (std::int32_t iz = z0; iz < z1; ++iz) {
      const std::int64_t pv = std::int64_t(s.z[iz]) * kMeshCell + kMeshHalfCell;
      for (std::int32_t iy = y0; iy < y1; ++iy) {
        const std::int64_t pu = std::int64_t(s.y[iy]) * kMeshCell + kMeshHalfCell;
        std::int64_t cell = 0;
        if (!ray_crossing(t, pu, pv, cell)) continue;
        const std::int64_t c = iy + std::int64_t(s.ny) * iz;
        atomic_add(&s.crossings[c], 1ull);
        const std::int32_t slot = lower_bound_index(s.x, s.nx, cell);
        if (slot < s.nx) atomic_xor(&s.bits[c * s.words + slot / 32], 1u << (slot % 32));
      }
    }
  }
};

struct FillParity {
  VoxelSampleView s;
  std::int64_t columns;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t c = flat_index(x, y);
    if (c >= columns) return;
    std::uint32_t carry = 0u;  // all ones when the parity before this word is odd
    for (std::int32_t w = 0; w < s.words; ++w) {
      std::uint32_t m = s.bits[c * s.words + w];
      m ^= m << 1;  // prefix exclusive or within the word: bit b = xor of bits 0..b
      m ^= m << 2;
      m ^= m << 4;
      m ^= m << 8;
      m ^= m << 16;
      m ^= carry;
      carry = (m >> 31) != 0u ? 0xffffffffu : 0u;
      const std::int32_t used = s.nx - w * 32;
      if (used < 32) m &= (1u << used) - 1u;
      s.bits[c * s.words + w] = m;
    }
  }
};

struct RepairOddColumns {
  VoxelSampleView s;
  const std::int32_t* y_near;
  const std::int32_t* z_near;
  std::int64_t columns;
  EDDY_HOST_DEVICE void operator()(int x, int y, int) const {
    const std::int64_t c = flat_index(x, y);
    if (c >= columns || (s.crossings[c] & 1ull) == 0ull) return;
    const std::int32_t iy = std::int32_t(c % s.ny), iz = std::int32_t(c / s.ny);
    std::int64_t voters[24];
    int n_voters = 0;
    for (int dz = -2; dz <= 2; ++dz) {
      const std::int32_t jz = z_near[iz * 5 + dz + 2];
      if (jz < 0) continue;
      for (int dy = -2; dy <= 2; ++dy) {
        const std::int32_t jy = y_near[iy * 5 + dy + 2];
        if (jy < 0 || (dy == 0 && dz == 0)) continue;
        const std::int64_t n = jy + std::int64_t(s.ny) * jz;
        if ((s.crossings[n] & 1ull) == 0ull) voters[n_voters++] = n;
      }
    }
    for (std::int32_t w = 0; w < s.words; ++w) {
      std::uint32_t m = 0u;
      for (int b = 0; b < 32 && w * 32 + b < s.nx; ++b) {
        int solid = 0;
        for (int v = 0; v < n_voters; ++v) solid += int((s.bits[voters[v] * s.words + w] >> b) & 1u);
        if (2 * solid > n_voters) m |= 1u << b;
      }
      s.bits[c * s.words + w] = m;  // odd columns are never voters: no other thread reads this word
    }
  }
};

}  // namespace

void clear_voxel_samples(const VoxelSampleView& s, const backend::Stream* stream) {
  const std::int64_t columns = std::int64_t(s.ny) * s.nz;
  if (columns > 0) parallel_for(flat_range(columns), ClearSamples{s, columns}, "clear_voxel_samples", stream);
}

void count_mesh_tiles(const MeshTriangle* triangles, std::int64_t n, const VoxelSampleView& s, std::uint32_t* tiles,
                      unsigned long long* total, const backend::Stream* stream) {
  if (n > 0) parallel_for(flat_range(n), CountTiles{triangles, n, s, tiles, total}, "count_mesh_tiles", stream);
}

void list_mesh_tiles(std::int64_t n, const std::uint32_t* tiles, unsigned long long* cursor, TileItem* items,
                     const backend::Stream* stream) {
  if (n > 0) parallel_for(flat_range(n), ListTiles{n, tiles, cursor, items}, "list_mesh_tiles", stream);
}

void toggle_mesh_crossings(const MeshTriangle* triangles, const TileItem* items, std::int64_t n_items,
                           const VoxelSampleView& s, const backend::Stream* stream) {
  if (n_items > 0) {
    parallel_for(flat_range(n_items), ToggleCrossings{triangles, items, n_items, s}, "toggle_mesh_crossings", stream);
  }
}

void fill_voxel_parity(const VoxelSampleView& s, const backend::Stream* stream) {
  const std::int64_t columns = std::int64_t(s.ny) * s.nz;
  if (columns > 0) parallel_for(flat_range(columns), FillParity{s, columns}, "fill_voxel_parity", stream);
}

void repair_odd_columns(const VoxelSampleView& s, const std::int32_t* y_near, const std::int32_t* z_near,
                        const backend::Stream* stream) {
  const std::int64_t columns = std::int64_t(s.ny) * s.nz;
  if (columns > 0) {
    parallel_for(flat_range(columns), RepairOddColumns{s, y_near, z_near, columns}, "repair_odd_columns", stream);
  }
}

}  // namespace eddy
