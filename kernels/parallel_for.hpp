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

namespace eddy {

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

/// Minimum resident blocks (of kMaxBlockSizeX threads) per SM asked of the compiler: a register cap (CMake
/// EDDY_GPU_MIN_BLOCKS_PER_SM, a tuning knob; 1 leaves registers to the compiler).
#ifndef EDDY_GPU_MIN_BLOCKS_PER_SM
#define EDDY_GPU_MIN_BLOCKS_PER_SM 1
#endif

/// Threads per block along x: backend::block_size_x() (128 unless `eddy bench --block-x` sets it), at most
/// backend::kMaxBlockSizeX, the launch bound; y and z are covered by the grid (grid-stride beyond its limit).
template <class F>
__global__ void __launch_bounds__(backend::kMaxBlockSizeX, EDDY_GPU_MIN_BLOCKS_PER_SM) box_kernel(F f, Box box) {
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

}  // namespace eddy
