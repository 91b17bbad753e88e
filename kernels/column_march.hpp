// parallel_for_columns: box kernels that walk each (x, y) column of a box along z, carrying a small state from one
// cell to the next, for nearest-neighbour kernels (the scalar transport, kernels/scalar_transport.hpp): the values
// of the cell below and of the cell itself come from the previous cell's visit, so each cell's z neighbours are
// read once, as the cell above, instead of three times. Included only by kernel sources (kernels/*.cpp), which
// CMake compiles with the backend's device compiler.
//
// The functor provides
//   struct Column { ... };                                   a plain state (a few values)
//   EDDY_HOST_DEVICE Column begin(int x, int y, int z) const;   the state on arrival at cell (x, y, z)
//   EDDY_HOST_DEVICE void operator()(Column& c, int x, int y, int z) const;   visits (x, y, z), then leaves c as
//                                                              begin(x, y, z + 1) would return it
// and is called for every cell of the half-open box [lo, hi) once, in increasing z within each column chunk.
// Memory traffic: none of its own beyond the kernel parameters; the functor's is its kernel's.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"

namespace eddy {

/// Cells of one column a thread walks (a chunk along z): long enough that the start, which loads the state afresh,
/// is a small share of the walk; short enough that a 256^3 box gives ten threads per resident GPU thread slot.
inline constexpr int kColumnChunk = 16;

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

/// Threads of a block: 32 columns along x (one warp, one aligned run of a row) times 4 rows along y, whose y
/// neighbours are mostly the block's own rows (cache hits).
inline constexpr int kColumnBlockX = 32;
inline constexpr int kColumnBlockY = 4;

template <class F>
__global__ void __launch_bounds__(kColumnBlockX* kColumnBlockY) column_kernel(F f, Box box, int x_first) {
  const int x = x_first + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = box.lo[1] + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < box.lo[0] || x >= box.hi[0] || y >= box.hi[1]) return;
  const int z0 = box.lo[2] + int(blockIdx.z) * kColumnChunk;
  const int z1 = z0 + kColumnChunk < box.hi[2] ? z0 + kColumnChunk : box.hi[2];
  typename F::Column c = f.begin(x, y, z0);
  for (int z = z0; z < z1; ++z) f(c, x, y, z);
}

/// One GPU thread per column chunk of kColumnChunk cells; warps start on a multiple of BlockShape::kRowAlignment
/// cells (a row start), so a warp's access to a float array is aligned 32-byte sectors wherever the box begins
/// (the threads left of box.lo[0] return at once). Asynchronous in `stream`.
template <class F>
void parallel_for_columns(const Box& box, const F& f, const char* name, const backend::Stream* stream = nullptr) {
  if (box.empty()) return;
  const int x_first = box.lo[0] / BlockShape::kRowAlignment * BlockShape::kRowAlignment;
  const int nx = box.hi[0] - x_first, ny = box.hi[1] - box.lo[1], nz = box.hi[2] - box.lo[2];
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const dim3 block(kColumnBlockX, kColumnBlockY, 1);
  const dim3 grid((nx + kColumnBlockX - 1) / kColumnBlockX, (ny + kColumnBlockY - 1) / kColumnBlockY,
                  (nz + kColumnChunk - 1) / kColumnChunk);
  if (grid.y > 65535u || grid.z > 65535u) {
    throw std::invalid_argument(std::string(name) + ": box too large for one column launch (" + std::to_string(ny) +
                                " rows, " + std::to_string(nz) + " planes)");
  }
  column_kernel<<<grid, block, 0, queue>>>(f, box, x_first);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

/// Cells along x whose column states one cpu thread carries at once (x stays the fastest loop, as in memory).
inline constexpr int kColumnRunX = 64;

/// On cpu each OpenMP task takes one row y of one chunk along z, in runs of kColumnRunX cells along x: the run's
/// column states are kept in a local array and the cells are visited plane by plane, x fastest. Each cell sees the
/// same state as on GPUs, so both backends compute the same values.
template <class F>
void parallel_for_columns(const Box& box, const F& f, const char* /*name*/,
                          const backend::Stream* /*stream*/ = nullptr) {
  if (box.empty()) return;
  const int chunks = (box.hi[2] - box.lo[2] + kColumnChunk - 1) / kColumnChunk;
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < chunks; ++k) {
    for (int y = box.lo[1]; y < box.hi[1]; ++y) {
      const int z0 = box.lo[2] + k * kColumnChunk;
      const int z1 = z0 + kColumnChunk < box.hi[2] ? z0 + kColumnChunk : box.hi[2];
      for (int x0 = box.lo[0]; x0 < box.hi[0]; x0 += kColumnRunX) {
        const int x1 = x0 + kColumnRunX < box.hi[0] ? x0 + kColumnRunX : box.hi[0];
        typename F::Column run[kColumnRunX];
        for (int x = x0; x < x1; ++x) run[x - x0] = f.begin(x, y, z0);
        for (int z = z0; z < z1; ++z) {
          for (int x = x0; x < x1; ++x) f(run[x - x0], x, y, z);
        }
      }
    }
  }
}

#endif

}  // namespace eddy
