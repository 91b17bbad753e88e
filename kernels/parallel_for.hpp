// Box launches: parallel_for over a box of cells, a GPU grid launch on cuda/hip, an OpenMP loop nest on cpu; and
// parallel_for_aligned, the same with warps aligned to the cell index (the fused kernel's launch). The other launch
// primitives have their own headers: kernels/sort_pairs.hpp, kernels/pair_tiles.hpp (tiled all-pairs),
// kernels/stencil_tiles.hpp (stencil tiles). Included only by kernel sources (kernels/*.cpp), which CMake compiles
// with the backend's device compiler.
//
// Launches go to `stream` (the default stream when null); on cpu they run at once.
// The functor is called as f(x, y, z) with block-local cell coordinates (ghost layer included, see
// kernels/block.hpp) for every cell of the half-open box [lo, hi). It is passed by value, so it must be a
// small struct of plain values and pointers (a "view").
// Memory traffic: none of their own beyond the kernel parameters; the functor's is its kernel's.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/fast_divisor.hpp"

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

#endif

// ---- parallel_for ------------------------------------------------------------------------------------------------

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

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

#endif

// ---- parallel_for_aligned ----------------------------------------------------------------------------------------

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

/// The coordinates (x, y, z) of cell index `cell` of a block with row pitch `row` and plane size `plane` (two
/// divisions); whether the cell lies in `box`. Cells at or after the box's start, as parallel_for_aligned's threads
/// take them, so z >= box.hi[2] never arises.
__device__ inline bool aligned_cell_in_box(std::uint32_t cell, const FastDivisor& row, const FastDivisor& plane,
                                           const Box& box, int& x, int& y, int& z) {
  const std::uint32_t zz = plane.divide(cell);
  const std::uint32_t in_plane = cell - zz * plane.d;
  const std::uint32_t yy = row.divide(in_plane);
  x = int(in_plane - yy * row.d);
  y = int(yy);
  z = int(zz);
  return x >= box.lo[0] && x < box.hi[0] && y >= box.lo[1] && y < box.hi[1] && z >= box.lo[2];
}

/// Threads on consecutive cell indices from `start` (parallel_for_aligned): thread k takes cell start + k, finds
/// its (x, y, z) by two divisions and returns when the cell is outside the box.
template <class F>
__global__ void __launch_bounds__(backend::kMaxBlockSizeX) EDDY_MAX_REGISTERS(F)
    aligned_box_kernel(F f, Box box, std::uint32_t start, std::uint32_t cells, FastDivisor row, FastDivisor plane) {
  const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= cells) return;
  int x, y, z;
  if (aligned_cell_in_box(start + k, row, plane, box, x, y, z)) f(x, y, z);
}

/// Like parallel_for, but each warp takes 32 consecutive cell indices of `shape` starting at a multiple of 32, so a
/// warp's access to an array of floats is one aligned 128-byte run (whole 32-byte sectors) wherever the box's rows
/// begin. parallel_for's threads start at box.lo[0] in every row, which puts almost every warp's access across one
/// extra sector (a block's rows are n + 2 cells long; measured gains: docs/performance.md, "Tuning notes"). Threads
/// of ghost, padding and out-of-box cells in the covered rows return at once. Falls back to parallel_for where
/// aligned_range says so.
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

/// On cpu the same loop nest as parallel_for (rows are contiguous already).
template <class F>
void parallel_for_aligned(const BlockShape& /*shape*/, const Box& box, const F& f, const char* name,
                          const backend::Stream* stream = nullptr) {
  parallel_for(box, f, name, stream);
}

#endif

}  // namespace eddy
