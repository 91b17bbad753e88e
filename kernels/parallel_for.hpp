// parallel_for over a box of cells: a GPU grid launch on cuda/hip, an OpenMP loop nest on cpu.
// Included only by kernel sources (kernels/*.cpp), which CMake compiles with the backend's device compiler.
//
// Launches go to `stream` (the default stream when null); on cpu they run at once.
// The functor is called as f(x, y, z) with block-local cell coordinates (ghost layer included, see
// kernels/block.hpp) for every cell of the half-open box [lo, hi). It is passed by value, so it must be a
// small struct of plain values and pointers (a "view").
#pragma once

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/fast_divisor.hpp"

// Sorting (sort_pairs below): CUB on cuda (CUDA toolkit), rocPRIM on hip (package librocprim-dev), the C++17
// parallel algorithms on cpu (libstdc++ runs them on TBB, linked by CMake where found; serially otherwise).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#if defined(EDDY_BACKEND_CUDA)
#include <cub/device/device_radix_sort.cuh>
#elif defined(EDDY_BACKEND_HIP)
#include <rocprim/device/device_radix_sort.hpp>
#else
#include <algorithm>
#include <execution>
#include <vector>
#endif

namespace eddy {

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

/// Register cap per thread of box_kernel and aligned_box_kernel: F::kMaxRegisters where the functor names one (a
/// per-kernel tuning choice, measured in docs/performance.md), else 128 (what a block of kMaxBlockSizeX threads
/// allows anyway). Fewer registers let more warps reside on an SM; too few spill to local memory. CUDA applies it
/// with __maxnreg__; hip leaves the choice to its compiler (not measured on AMD GPUs).
template <class F, class = void>
struct MaxRegisters {
  static constexpr int value = 128;
};
template <class F>
struct MaxRegisters<F, std::void_t<decltype(F::kMaxRegisters)>> {
  static constexpr int value = F::kMaxRegisters;
};
#if defined(EDDY_BACKEND_CUDA)
#define EDDY_MAX_REGISTERS(F) __maxnreg__(MaxRegisters<F>::value)
#else
#define EDDY_MAX_REGISTERS(F)
#endif

/// Threads per block along x: backend::block_size_x() (128 unless `eddy bench --block-x` sets it), at most
/// backend::kMaxBlockSizeX, the launch bound; y and z are covered by the grid (grid-stride beyond its limit).
template <class F>
__global__ void __launch_bounds__(backend::kMaxBlockSizeX) EDDY_MAX_REGISTERS(F) box_kernel(F f, Box box) {
  const int x = box.lo[0] + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= box.hi[0]) return;
  for (int z = box.lo[2] + static_cast<int>(blockIdx.z); z < box.hi[2]; z += static_cast<int>(gridDim.z)) {
    for (int y = box.lo[1] + static_cast<int>(blockIdx.y); y < box.hi[1]; y += static_cast<int>(gridDim.y)) {
      f(x, y, z);
    }
  }
}

/// Thin boxes (a few cells along x, e.g. an x-normal halo plane or shell slab) as one flat range of cells, so no
/// thread of a block idles; x, y, z are then recovered by division.
template <class F>
__global__ void __launch_bounds__(backend::kMaxBlockSizeX) flat_box_kernel(F f, Box box, std::int64_t cells) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= cells) return;
  const std::int64_t nx = box.hi[0] - box.lo[0], ny = box.hi[1] - box.lo[1];
  f(box.lo[0] + int(k % nx), box.lo[1] + int((k / nx) % ny), box.lo[2] + int(k / (nx * ny)));
}

/// Boxes narrower than this along x are launched flat.
inline constexpr int kFlatLaunchBelowX = 32;

template <class F>
void parallel_for(const Box& box, const F& f, const char* name, const backend::Stream* stream = nullptr) {
  if (box.empty()) return;
  const int nx = box.hi[0] - box.lo[0], ny = box.hi[1] - box.lo[1], nz = box.hi[2] - box.lo[2];
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const int width = backend::block_size_x();
  if (nx < kFlatLaunchBelowX) {
    const std::int64_t cells = box.cells();
    flat_box_kernel<<<unsigned((cells + width - 1) / width), width, 0, queue>>>(f, box, cells);
    backend::check_launch(name, __FILE__, __LINE__);
    return;
  }
  const dim3 block(width, 1, 1);
  const dim3 grid((nx + width - 1) / width, ny < 65535 ? ny : 65535, nz < 65535 ? nz : 65535);
  box_kernel<<<grid, block, 0, queue>>>(f, box);
  backend::check_launch(name, __FILE__, __LINE__);
}

/// Threads on consecutive cell indices from `start` (parallel_for_aligned): thread k takes cell start + k, finds
/// its (x, y, z) by two divisions and returns when the cell is outside the box.
template <class F>
__global__ void __launch_bounds__(backend::kMaxBlockSizeX) EDDY_MAX_REGISTERS(F)
    aligned_box_kernel(F f, Box box, std::uint32_t start, std::uint32_t cells, FastDivisor row, FastDivisor plane) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= cells) return;
  const std::uint32_t cell = start + k;
  const std::uint32_t z = plane.divide(cell);
  const std::uint32_t in_plane = cell - z * plane.d;
  const std::uint32_t y = row.divide(in_plane);
  const int x = int(in_plane - y * row.d);
  if (x < box.lo[0] || x >= box.hi[0] || int(y) < box.lo[1] || int(y) >= box.hi[1] || int(z) < box.lo[2]) return;
  f(x, int(y), int(z));
}

/// Like parallel_for, but each warp takes 32 consecutive cell indices of `shape` starting at a multiple of 32, so a
/// warp's access to an array of floats is one aligned 128-byte run (whole 32-byte sectors) wherever the box's rows
/// begin. parallel_for's threads start at box.lo[0] in every row, which puts almost every warp's access across one
/// extra sector (a block's rows are n + 2 cells long). On the H200 the fused stream-collide kernel in float gained
/// 9.8 % from aligned warps alone at 510^3 (rows of 512 cells), and 9.8 % / 13.6 % at 512^3 / 256^3 with the padded
/// rows of kernels/block.hpp (docs/performance.md). Threads of ghost, padding and out-of-box cells in the covered
/// rows return at once. Falls back to parallel_for where aligned_range says so.
template <class F>
void parallel_for_aligned(const BlockShape& shape, const Box& box, const F& f, const char* name,
                          const backend::Stream* stream = nullptr) {
  if (box.empty()) return;
  const AlignedRange range = aligned_range(shape, box);
  if (!range.used) {
    parallel_for(box, f, name, stream);
    return;
  }
  const std::int64_t first = range.first, cells = range.cells;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const int width = backend::block_size_x();
  const FastDivisor row(std::uint32_t(shape.pitch()));
  const FastDivisor plane(std::uint32_t(shape.pitch()) * std::uint32_t(shape.extent(1)));
  aligned_box_kernel<<<unsigned((cells + width - 1) / width), width, 0, queue>>>(f, box, std::uint32_t(first),
                                                                                std::uint32_t(cells), row, plane);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

template <class F>
void parallel_for(const Box& box, const F& f, const char* /*name*/, const backend::Stream* /*stream*/ = nullptr) {
  if (box.empty()) return;
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = box.lo[2]; z < box.hi[2]; ++z) {
    for (int y = box.lo[1]; y < box.hi[1]; ++y) {
      for (int x = box.lo[0]; x < box.hi[0]; ++x) f(x, y, z);
    }
  }
}

/// On cpu the same loop nest as parallel_for (rows are contiguous already).
template <class F>
void parallel_for_aligned(const BlockShape& /*shape*/, const Box& box, const F& f, const char* name,
                          const backend::Stream* stream = nullptr) {
  parallel_for(box, f, name, stream);
}

#endif

// ---- sort_pairs and for_each_target_tiled: the particle-pair primitives (kernels/particle_contacts.cpp,
// kernels/particle_pairs.cpp) ---------------------------------------------------------------------------------------

/// Threads per block of for_each_target_tiled on GPUs, and the number of sources one block stages in shared memory
/// per round.
inline constexpr int kPairTileSize = 128;

namespace detail {
/// Checks the arguments every backend's sort_pairs shares; throws std::length_error / std::invalid_argument.
inline void check_sort_pairs_arguments(std::int64_t n, int end_bit) {
  if (n < 0 || n > std::int64_t(0x7fffffff)) {
    throw std::length_error("sort_pairs: " + std::to_string(n) + " pairs (at most 2^31 - 1 are supported)");
  }
  if (end_bit < 1 || end_bit > 64) {
    throw std::invalid_argument("sort_pairs: end_bit must be in [1, 64] (got " + std::to_string(end_bit) + ")");
  }
}
inline void check_sort_pairs_scratch(std::size_t have, std::size_t need) {
  if (have < need) {
    throw std::invalid_argument("sort_pairs: scratch of " + std::to_string(have) + " bytes, " + std::to_string(need) +
                                " needed (sort_pairs_scratch_bytes)");
  }
}
}  // namespace detail

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

namespace detail {
/// One library call for the size query (scratch == nullptr) and the sort.
inline gpu(Error_t) radix_sort_pairs(void* scratch, std::size_t& bytes, const std::uint64_t* keys_in,
                                     std::uint64_t* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
                                     std::int64_t n, int end_bit, gpu(Stream_t) queue) {
#if defined(EDDY_BACKEND_CUDA)
  return cub::DeviceRadixSort::SortPairs(scratch, bytes, keys_in, keys_out, values_in, values_out, int(n), 0, end_bit,
                                         queue);
#else
  return rocprim::radix_sort_pairs(scratch, bytes, keys_in, keys_out, values_in, values_out, std::size_t(n), 0u,
                                   unsigned(end_bit), queue);
#endif
}
}  // namespace detail

/// Bytes of device scratch sort_pairs needs for `n` pairs with keys < 2^end_bit (a host-side query, no device
/// work; the GPU libraries size it by both). Throws std::length_error when n > 2^31 - 1.
inline std::size_t sort_pairs_scratch_bytes(std::int64_t n, int end_bit = 64) {
  detail::check_sort_pairs_arguments(n, end_bit);
  std::size_t bytes = 0;
  EDDY_GPU_CHECK(detail::radix_sort_pairs(
      nullptr, bytes, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
      static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), n, end_bit, nullptr));
  return bytes;
}

/// Sorts `n` (key, value) pairs by key, ascending: keys_out / values_out receive keys_in / values_in reordered
/// (device arrays of n entries; in and out must not overlap). Only bits [0, end_bit) of the keys are compared:
/// keys must be < 2^end_bit (fewer bits, fewer radix passes). Equal keys keep their input order (radix sorts are
/// stable); the cpu backend orders them by value instead, so both agree when the keys are unique or values_in is
/// ascending. `scratch`: device memory of at least sort_pairs_scratch_bytes(n, end_bit) bytes, else
/// std::invalid_argument. cub::DeviceRadixSort::SortPairs on cuda, rocprim::radix_sort_pairs on hip,
/// asynchronous in `stream`. Throws std::length_error when n > 2^31 - 1, DeviceError when the library call fails.
inline void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::int64_t n, int end_bit, void* scratch, std::size_t scratch_bytes,
                       const backend::Stream* stream = nullptr) {
  detail::check_sort_pairs_scratch(scratch_bytes, sort_pairs_scratch_bytes(n, end_bit));
  if (n == 0) return;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  std::size_t bytes = scratch_bytes;
  EDDY_GPU_CHECK(detail::radix_sort_pairs(scratch, bytes, keys_in, keys_out, values_in, values_out, n, end_bit, queue));
}

template <class F>
__global__ void __launch_bounds__(kPairTileSize)
    target_tiled_kernel(F f, std::int64_t n_targets, std::int64_t n_sources) {
  using Source = typename F::Source;
  __shared__ Source tile[kPairTileSize];
  const std::int64_t i = std::int64_t(blockIdx.x) * kPairTileSize + threadIdx.x;
  const bool active = i < n_targets;
  typename F::Accumulator acc{};
  if (active) acc = f.start(i);
  for (std::int64_t base = 0; base < n_sources; base += kPairTileSize) {
    const std::int64_t j = base + threadIdx.x;
    if (j < n_sources) tile[threadIdx.x] = f.source(j);
    __syncthreads();
    const int count = n_sources - base < kPairTileSize ? int(n_sources - base) : kPairTileSize;
    if (active) {
      for (int k = 0; k < count; ++k) f.interact(acc, i, tile[k]);
    }
    __syncthreads();
  }
  if (active) f.finish(i, acc);
}

/// All pairs (target i, source j): for every target i in [0, n_targets), acc = f.start(i); then
/// f.interact(acc, i, f.source(j)) for j = 0, 1, ..., n_sources - 1 in that order; then f.finish(i, acc).
/// The functor provides the types F::Source (what a target needs of a source: a small trivially copyable struct,
/// e.g. position and mass) and F::Accumulator, and EDDY_HOST_DEVICE members
///   Source source(std::int64_t j) const;
///   Accumulator start(std::int64_t i) const;
///   void interact(Accumulator& acc, std::int64_t i, const Source& s) const;
///   void finish(std::int64_t i, const Accumulator& acc) const;
/// On GPUs one thread per target; each block stages kPairTileSize sources at a time in shared memory and every
/// thread of the block reads them from there (n_sources / kPairTileSize global loads per block instead of n_sources
/// per thread). On cpu an OpenMP loop over targets. Every backend accumulates the sources in index order, so cpu and
/// GPU sum in the same order. Cost: n_targets * n_sources interactions.
template <class F>
void for_each_target_tiled(std::int64_t n_targets, std::int64_t n_sources, const F& f, const char* name,
                           const backend::Stream* stream = nullptr) {
  static_assert(std::is_trivially_default_constructible<typename F::Source>::value &&
                    std::is_trivially_copyable<typename F::Source>::value,
                "F::Source lives in shared memory: it must be a plain struct (no constructors, no initialisers)");
  if (n_targets <= 0) return;
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const std::int64_t blocks = (n_targets + kPairTileSize - 1) / kPairTileSize;
  target_tiled_kernel<<<unsigned(blocks), kPairTileSize, 0, queue>>>(f, n_targets, n_sources);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

namespace detail {
struct SortPair {
  std::uint64_t key;
  std::uint32_t value;
};
}  // namespace detail

inline std::size_t sort_pairs_scratch_bytes(std::int64_t n, int end_bit = 64) {
  detail::check_sort_pairs_arguments(n, end_bit);
  return std::size_t(n) * sizeof(detail::SortPair);
}

/// cpu: the pairs are packed into `scratch`, sorted with std::sort(std::execution::par_unseq) by (key, value) and
/// unpacked. Synchronous.
inline void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const std::uint32_t* values_in,
                       std::uint32_t* values_out, std::int64_t n, int end_bit, void* scratch, std::size_t scratch_bytes,
                       const backend::Stream* /*stream*/ = nullptr) {
  detail::check_sort_pairs_scratch(scratch_bytes, sort_pairs_scratch_bytes(n, end_bit));
  auto* pairs = static_cast<detail::SortPair*>(scratch);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) pairs[k] = detail::SortPair{keys_in[k], values_in[k]};
  std::sort(std::execution::par_unseq, pairs, pairs + n, [](const detail::SortPair& a, const detail::SortPair& b) {
    return a.key < b.key || (a.key == b.key && a.value < b.value);
  });
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    keys_out[k] = pairs[k].key;
    values_out[k] = pairs[k].value;
  }
}

template <class F>
void for_each_target_tiled(std::int64_t n_targets, std::int64_t n_sources, const F& f, const char* /*name*/,
                           const backend::Stream* /*stream*/ = nullptr) {
  static_assert(std::is_trivially_default_constructible<typename F::Source>::value &&
                    std::is_trivially_copyable<typename F::Source>::value,
                "F::Source lives in shared memory on GPUs: it must be a plain struct");
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n_targets; ++i) {
    typename F::Accumulator acc = f.start(i);
    for (std::int64_t j = 0; j < n_sources; ++j) f.interact(acc, i, f.source(j));
    f.finish(i, acc);
  }
}

#endif

// ---- parallel_for_tiled: box kernels that read each cell's neighbours from a tile staged once per block of cells
// (kernels/stencils.cpp; meant as well for other nearest-neighbour kernels, e.g. scalar transport) -----------------

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
  /// The staged value where contained, else f.load(x, y, z, c) (a read from the field itself, for stencils that
  /// reach further than one cell, e.g. one-sided differences at walls).
  template <class F>
  EDDY_HOST_DEVICE V get(const F& f, int x, int y, int z, int c) const {
    return contains(x, y, z) ? (*this)(x, y, z, c) : f.load(x, y, z, c);
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
