// parallel_for_tiled: box kernels that read each cell's neighbours from a tile staged once per block of cells
// (kernels/stencils.cpp; meant as well for other nearest-neighbour kernels, e.g. scalar transport). Included only by
// kernel sources (kernels/*.cpp), which CMake compiles with the backend's device compiler.
// Memory traffic: each tile loads its cells and its one-cell halo once, (34 * 6 * 4) / (32 * 4 * 2) = 3.2 loads per
// cell and component for a full tile, mostly from cache; the functor writes what it writes.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"

namespace eddy {

/// Cells of one tile along x, y, z: one GPU thread block (256 threads) on cuda/hip, one unit of OpenMP work on cpu.
inline constexpr int kStencilTileX = 32;
inline constexpr int kStencilTileY = 4;
inline constexpr int kStencilTileZ = 2;
inline constexpr int kStencilTileThreads = kStencilTileX * kStencilTileY * kStencilTileZ;
/// A tile with its one-cell halo on every side.
inline constexpr int kStencilHaloX = kStencilTileX + 2;
inline constexpr int kStencilHaloY = kStencilTileY + 2;
inline constexpr int kStencilHaloZ = kStencilTileZ + 2;
inline constexpr int kStencilHaloCells = kStencilHaloX * kStencilHaloY * kStencilHaloZ;

/// The staged values of one tile: components [0, C) of every cell of the tile and its one-cell halo that lies in
/// `loaded` (the box of parallel_for_tiled grown by one cell on every side, clipped to the tile plus halo).
/// Coordinates are block-local, as everywhere; `data` is shared memory on GPUs, a per-thread array on cpu.
template <class V, int C>
struct TileView {
  const V* data;  ///< data[c * kStencilHaloCells + (x - origin[0]) + kStencilHaloX * ((y - origin[1]) + ...)]
  int origin[3];  ///< block-local coordinates of the tile's first halo cell (tile start - 1 on each axis)
  Box loaded;     ///< cells whose values are staged

  EDDY_HOST_DEVICE bool contains(int x, int y, int z) const {
    return x >= loaded.lo[0] && x < loaded.hi[0] && y >= loaded.lo[1] && y < loaded.hi[1] && z >= loaded.lo[2] &&
           z < loaded.hi[2];
  }
  /// Component c of cell (x, y, z), which must be contained.
  EDDY_HOST_DEVICE V operator()(int x, int y, int z, int c) const {
    return data[c * kStencilHaloCells + (x - origin[0]) +
                kStencilHaloX * ((y - origin[1]) + kStencilHaloY * (z - origin[2]))];
  }
};

namespace detail {
/// Cells of `box` grown by one on every side that lie in the tile starting at (x0, y0, z0) plus its halo.
EDDY_HOST_DEVICE inline Box tile_loaded_box(const Box& box, int x0, int y0, int z0) {
  const int start[3] = {x0, y0, z0};
  const int size[3] = {kStencilTileX, kStencilTileY, kStencilTileZ};
  Box b{};
  for (int a = 0; a < 3; ++a) {
    const int lo = start[a] - 1, hi = start[a] + size[a] + 1;
    b.lo[a] = lo > box.lo[a] - 1 ? lo : box.lo[a] - 1;
    b.hi[a] = hi < box.hi[a] + 1 ? hi : box.hi[a] + 1;
  }
  return b;
}
template <class F>
constexpr void check_tiled_functor() {
  static_assert(std::is_trivially_default_constructible<typename F::Value>::value &&
                    std::is_trivially_copyable<typename F::Value>::value,
                "F::Value lives in shared memory on GPUs: it must be a plain type");
  static_assert(F::kComponents >= 1 &&
                    F::kComponents * kStencilHaloCells * sizeof(typename F::Value) <= std::size_t(32) * 1024,
                "parallel_for_tiled stages at most 32 KiB per tile");
}
}  // namespace detail

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

template <class F>
__global__ void __launch_bounds__(kStencilTileThreads) tiled_box_kernel(F f, Box box) {
  using V = typename F::Value;
  constexpr int C = F::kComponents;
  __shared__ V staged[C * kStencilHaloCells];
  const int t = int(threadIdx.x) + kStencilTileX * (int(threadIdx.y) + kStencilTileY * int(threadIdx.z));
  const int x0 = box.lo[0] + int(blockIdx.x) * kStencilTileX;
  // Every thread of a block runs the same tiles (the loop bounds depend on blockIdx only), so the barriers match.
  for (int z0 = box.lo[2] + int(blockIdx.z) * kStencilTileZ; z0 < box.hi[2]; z0 += int(gridDim.z) * kStencilTileZ) {
    for (int y0 = box.lo[1] + int(blockIdx.y) * kStencilTileY; y0 < box.hi[1];
         y0 += int(gridDim.y) * kStencilTileY) {
      const TileView<V, C> tile{staged, {x0 - 1, y0 - 1, z0 - 1}, detail::tile_loaded_box(box, x0, y0, z0)};
      for (int k = t; k < kStencilHaloCells; k += kStencilTileThreads) {
        const int x = x0 - 1 + k % kStencilHaloX;
        const int y = y0 - 1 + (k / kStencilHaloX) % kStencilHaloY;
        const int z = z0 - 1 + k / (kStencilHaloX * kStencilHaloY);
        if (tile.contains(x, y, z)) {
          for (int c = 0; c < C; ++c) staged[c * kStencilHaloCells + k] = f.load(x, y, z, c);
        }
      }
      __syncthreads();
      const int x = x0 + int(threadIdx.x), y = y0 + int(threadIdx.y), z = z0 + int(threadIdx.z);
      if (x < box.hi[0] && y < box.hi[1] && z < box.hi[2]) f(x, y, z, tile);
      __syncthreads();  // before the next tile overwrites the staged values
    }
  }
}

/// For every cell of `box`: f(x, y, z, tile), where `tile` (a TileView<F::Value, F::kComponents>) holds f.load of
/// every cell within one cell of (x, y, z) that lies in `box` grown by one cell. The functor provides
///   using Value = ...;                  a plain type (float, double, ...)
///   static constexpr int kComponents;   values per cell
///   EDDY_HOST_DEVICE Value load(int x, int y, int z, int c) const;   valid on `box` grown by one cell
///   EDDY_HOST_DEVICE void operator()(int x, int y, int z, const TileView<Value, kComponents>& tile) const;
/// On cuda/hip one thread block of kStencilTileX x kStencilTileY x kStencilTileZ threads per tile: the block
/// stages the tile plus its one-cell halo (all components) in shared memory, synchronises, and each thread computes
/// its cell (tiles beyond the grid's limit of 65535 along y and z are visited grid-stride). On cpu each OpenMP
/// thread fills the same tile in a local array and runs the same functor, so both backends execute the same
/// per-cell code on the same values. Asynchronous in `stream` on GPUs.
template <class F>
void parallel_for_tiled(const Box& box, const F& f, const char* name, const backend::Stream* stream = nullptr) {
  detail::check_tiled_functor<F>();
  if (box.empty()) return;
  const int tx = (box.hi[0] - box.lo[0] + kStencilTileX - 1) / kStencilTileX;
  const int ty = (box.hi[1] - box.lo[1] + kStencilTileY - 1) / kStencilTileY;
  const int tz = (box.hi[2] - box.lo[2] + kStencilTileZ - 1) / kStencilTileZ;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const dim3 block(kStencilTileX, kStencilTileY, kStencilTileZ);
  const dim3 grid(tx, ty < 65535 ? ty : 65535, tz < 65535 ? tz : 65535);
  tiled_box_kernel<<<grid, block, 0, queue>>>(f, box);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

template <class F>
void parallel_for_tiled(const Box& box, const F& f, const char* /*name*/, const backend::Stream* /*stream*/ = nullptr) {
  detail::check_tiled_functor<F>();
  if (box.empty()) return;
  using V = typename F::Value;
  constexpr int C = F::kComponents;
  const int tx = (box.hi[0] - box.lo[0] + kStencilTileX - 1) / kStencilTileX;
  const int ty = (box.hi[1] - box.lo[1] + kStencilTileY - 1) / kStencilTileY;
  const int tz = (box.hi[2] - box.lo[2] + kStencilTileZ - 1) / kStencilTileZ;
#pragma omp parallel
  {
    // On the heap: three double components of a tile and its halo are 19.6 KB, more than a small OMP_STACKSIZE.
    std::vector<V> staged_values(std::size_t(C) * kStencilHaloCells);
    V* const staged = staged_values.data();
#pragma omp for collapse(3) schedule(static)
    for (int bz = 0; bz < tz; ++bz) {
      for (int by = 0; by < ty; ++by) {
        for (int bx = 0; bx < tx; ++bx) {
          const int x0 = box.lo[0] + bx * kStencilTileX, y0 = box.lo[1] + by * kStencilTileY,
                    z0 = box.lo[2] + bz * kStencilTileZ;
          const TileView<V, C> tile{staged, {x0 - 1, y0 - 1, z0 - 1}, detail::tile_loaded_box(box, x0, y0, z0)};
          for (int z = tile.loaded.lo[2]; z < tile.loaded.hi[2]; ++z) {
            for (int y = tile.loaded.lo[1]; y < tile.loaded.hi[1]; ++y) {
              for (int x = tile.loaded.lo[0]; x < tile.loaded.hi[0]; ++x) {
                const int k = (x - x0 + 1) + kStencilHaloX * ((y - y0 + 1) + kStencilHaloY * (z - z0 + 1));
                for (int c = 0; c < C; ++c) staged[c * kStencilHaloCells + k] = f.load(x, y, z, c);
              }
            }
          }
          const int x1 = x0 + kStencilTileX < box.hi[0] ? x0 + kStencilTileX : box.hi[0];
          const int y1 = y0 + kStencilTileY < box.hi[1] ? y0 + kStencilTileY : box.hi[1];
          const int z1 = z0 + kStencilTileZ < box.hi[2] ? z0 + kStencilTileZ : box.hi[2];
          for (int z = z0; z < z1; ++z) {
            for (int y = y0; y < y1; ++y) {
              for (int x = x0; x < x1; ++x) f(x, y, z, tile);
            }
          }
        }
      }
    }
  }
}

#endif

}  // namespace eddy
