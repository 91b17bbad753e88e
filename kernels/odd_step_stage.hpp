// The odd step's x-shifted stores through shared memory: a GPU launch helper of the fused kernel
// (kernels/stream_collide.cpp) that makes every global store of the odd step sector-aligned.
//
// Why: in the odd step (kernels/streaming.hpp) a cell writes f*_i to slot (i, x + c_i). For the 10 directions with
// c_x != 0 that is one cell off in x, so a warp of 32 consecutive cells writes a 128-byte run (float) that straddles
// five 32-byte sectors instead of four, with partial sectors at both ends (docs/performance.md: 19 % more L2 write
// sectors than the even step, 63 % of DRAM bandwidth against 78 %). The y and z offsets are multiples of the row
// pitch (8 cells, kernels/block.hpp) and stay aligned.
//
// How: one thread block of B threads takes B consecutive cells c0 .. c0 + B - 1 (c0 a multiple of 32, as
// parallel_for_aligned).
//   1. Each thread loads its cell's 19 populations (the plain path's reads, all in flight at once) into registers;
//      the block synchronises.
//   2. Each thread collides its cell as in the direct launch, but leaves its x-shifted results whose slot lies in
//      the block's aligned write window (slots v .. v + B - 1 of direction i, v = write_offset[i] - c_ix + c0) in
//      `out` (shared memory; the one edge thread whose slot lies in the neighbouring block's window stores it
//      directly), and marks in `wrote` that it did.
//   3. The block synchronises and stores `out` as aligned runs, each slot only where the cell that owns it (the
//      thread p - c_ix of position p) marked it.
// Cells next to a wall leave no mark: they gather and scatter directly with their bounce-backs (gather_swapped /
// scatter_own), as in the direct launch; solid and frozen cells write nothing. The block does not touch their
// slots. Every slot keeps its one writer, so the populations are bitwise those of the direct launch
// (tests/physics/test_odd_step_stage.cpp).
//
// Variants measured and left out (docs/performance.md, thirteenth session): the reads staged as well (an aligned
// window plus one apron slot per direction, taken from shared memory) was slower; without step 1's loads and
// barrier (the functor loading as usual) the gain at 256^3 was a third, and double lost; fp16 lost 15-22 % with
// reads and stores staged (its y and z neighbours are half a sector apart) and runs directly, as do blocks of
// other widths.
// Memory traffic per block and x-shifted direction: B stores in B/8 sectors with one partial sector at each block
// edge, against B/8 + B/32 sectors with 2 B/32 partial ones in the direct launch. Shared memory: 10 B sizeof(T) + B
// bytes per block (5.2 KB for float, 10.4 KB for double at B = 128).
//
// On cpu there are no warps to align: the functor runs without a stage (parallel_for_aligned; NoStage,
// kernels/streaming.hpp).
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/fast_divisor.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {

/// The D3Q19 directions with c_x != 0 (1, 2, 7 .. 14) as rows 0 .. 9 of a stage; -1 for the other nine.
inline constexpr int kXShifted = 10;
EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE constexpr int x_shifted_row(int i) {
  return d3q19::c(i, 0) == 0 ? -1 : (i <= 2 ? i - 1 : i - 5);
}

/// The shared memory of one thread block of B threads: the write windows of the x-shifted directions.
template <class T, int B>
struct XShiftStage {
  T out[kXShifted][B];     ///< position p of direction row j: slot v + p (v as in the file's head)
  unsigned char wrote[B];  ///< thread t took the plain path and left its x-shifted results in `out`
};

/// One thread's view of its block's stage: thread t of the block.
template <class T, int B>
struct BlockStage {
  static constexpr bool kUsed = true;
  XShiftStage<T, B>* stage;
  int t;
  T loaded[d3q19::Q];  ///< the cell's 19 populations as the plain path reads them (slot read_offset[i] + cell)

  /// The population the cell collides as direction i, loaded before the block's first barrier.
  EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE T read(int i) const { return loaded[i]; }

  /// Takes the thread's f*_i into the stage where it belongs there: an x-shifted direction (c_x != 0) whose window
  /// position p = t + c_ix lies in 0 <= p < B (returns true after leaving it there). False for the other nine
  /// directions and for the edge thread whose slot lies in the neighbouring block's window: those store directly.
  EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE bool write(int i, T value) const {
    if (x_shifted_row(i) < 0) return false;
    const int p = t + d3q19::c(i, 0);
    if (p < 0 || p >= B) return false;
    stage->out[x_shifted_row(i)][p] = value;
    return true;
  }
  /// Marks the thread's results as left in `out`.
  EDDY_HOST_DEVICE EDDY_ALWAYS_INLINE void mark_written() const { stage->wrote[t] = 1; }
};

#if defined(EDDY_BACKEND_CUDA) || defined(EDDY_BACKEND_HIP)

/// The staged odd step: thread k takes cell start + k (as aligned_box_kernel) and calls f(x, y, z, stage) for the
/// cells of `box`. F provides `slots` (StepSlots<T, Index>: slots.read(i, cell) and slots.write(i, cell) are the odd
/// step's slots of direction i for a cell without solid neighbours), `using Population = T` and `using SlotIndex =
/// Index` (32- or 64-bit offsets; the cell indices themselves fit 32 bits wherever aligned_range is used).
template <class F, int B>
__global__ void __launch_bounds__(B) EDDY_MAX_REGISTERS(F)
    staged_odd_kernel(F f, Box box, std::uint32_t start, std::uint32_t cells, FastDivisor row, FastDivisor plane) {
  using T = typename F::Population;
  using Index = typename F::SlotIndex;
  __shared__ XShiftStage<T, B> stage;
  const int t = int(threadIdx.x);
  const std::uint32_t first = blockIdx.x * std::uint32_t(B);
  const std::uint32_t c0 = start + first;  // the block's first cell
  const bool active = first + std::uint32_t(t) < cells;
  // 1. The loads, all 19 of each cell at once, then a barrier (neither is needed for correctness: only thread t
  //    writes wrote[t] before the second barrier; both measured faster, docs/performance.md).
  stage.wrote[t] = 0;
  BlockStage<T, B> view{&stage, t, {}};
  if (active) {
EDDY_UNROLL
    for (int i = 0; i < d3q19::Q; ++i) view.loaded[i] = f.slots.read(i, Index(c0 + std::uint32_t(t)));
  }
  __syncthreads();
  // 2. The cells.
  int x, y, z;
  if (active && aligned_cell_in_box(c0 + std::uint32_t(t), row, plane, box, x, y, z)) f(x, y, z, view);
  __syncthreads();
  // 3. The write windows: position p = t of direction i is slot v + p, v = write_offset[i] - c_ix + c0, the slot
  //    that thread p - c_ix (cell c0 + p - c_ix) writes, where that thread marked it.
EDDY_UNROLL
  for (int i = 1; i < d3q19::Q; ++i) {
    const int j = x_shifted_row(i);
    if (j < 0) continue;
    const int cx = d3q19::c(i, 0);
    const int writer = t - cx;
    if (writer >= 0 && writer < B && stage.wrote[writer]) {
      f.slots.write(i, Index(c0 + std::uint32_t(writer))) = stage.out[j][t];
    }
  }
}

/// The odd step of functor f over `box`, staged where it can be: an aligned range (aligned_range) and blocks of
/// backend::kOddStepStageWidth threads; otherwise parallel_for_aligned with f(x, y, z).
template <class F>
void parallel_for_odd_staged(const BlockShape& shape, const Box& box, const F& f, const char* name,
                             const backend::Stream* stream) {
  if (box.empty()) return;
  const AlignedRange range = aligned_range(shape, box);
  constexpr int B = backend::kOddStepStageWidth;
  if (!range.used || backend::block_size_x() != B) {
    parallel_for_aligned(shape, box, f, name, stream);
    return;
  }
  const auto queue = stream ? static_cast<gpu(Stream_t)>(stream->handle()) : nullptr;
  const FastDivisor row(std::uint32_t(shape.pitch()));
  const FastDivisor plane(std::uint32_t(shape.pitch()) * std::uint32_t(shape.extent(1)));
  const unsigned blocks = unsigned((range.cells + B - 1) / B);
  staged_odd_kernel<F, B><<<blocks, B, 0, queue>>>(f, box, std::uint32_t(range.first), std::uint32_t(range.cells), row,
                                                   plane);
  backend::check_launch(name, __FILE__, __LINE__);
}

#else

template <class F>
void parallel_for_odd_staged(const BlockShape& shape, const Box& box, const F& f, const char* name,
                             const backend::Stream* stream) {
  parallel_for_aligned(shape, box, f, name, stream);
}

#endif

}  // namespace eddy
