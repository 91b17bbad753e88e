// Block geometry: a box of fluid cells plus one ghost layer on every side, stored x fastest.
//
// Block-local coordinates run from 0 to n+1 along each axis: 0 and n+1 are the ghost layer, 1..n the interior.
// Cell index: idx = x + P * (y + Y * z) with Y = ny + 2 and the row pitch P = nx + 2 rounded up to a multiple of
// 8 cells (64-bit: cells times populations can exceed 2^31). Population i of cell idx lives at
// f[i * n_cells + idx] (structure of arrays). The pitch makes every row, and every neighbour's row, start on a
// 32-byte sector of a float array, so the fused kernel's accesses to y and z neighbours are as aligned as its
// accesses to its own cell (measured on the H200, docs/performance.md). The padding cells x = nx + 2 .. P - 1 of a
// row belong to no box; they cost (P - nx - 2) / (nx + 2) of the memory, 1.2 % at nx = 512.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"

namespace eddy {

/// Half-open box of block-local cell coordinates [lo, hi).
struct Box {
  int lo[3];
  int hi[3];
  EDDY_HOST_DEVICE bool empty() const { return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]; }
  EDDY_HOST_DEVICE std::int64_t cells() const {
    return empty() ? 0 : std::int64_t(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  }
};

/// Extents of a block with one ghost layer. `n` = interior cells per axis.
struct BlockShape {
  int n[3];

  /// Row pitches are multiples of this many cells.
  static constexpr int kRowAlignment = 8;

  /// Cells along `axis`, ghost layer included (padding excluded).
  EDDY_HOST_DEVICE int extent(int axis) const { return n[axis] + 2; }
  /// Index distance from one row (x = 0 .. extent(0) - 1) to the next: extent(0) rounded up to kRowAlignment.
  EDDY_HOST_DEVICE int pitch() const { return (n[0] + 2 + kRowAlignment - 1) / kRowAlignment * kRowAlignment; }
  /// Cells stored, ghost layer and row padding included: the length of every per-cell array.
  EDDY_HOST_DEVICE std::int64_t n_cells() const { return std::int64_t(pitch()) * (n[1] + 2) * (n[2] + 2); }
  EDDY_HOST_DEVICE std::int64_t interior_cells() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  EDDY_HOST_DEVICE std::int64_t index(int x, int y, int z) const {
    return x + std::int64_t(pitch()) * (y + std::int64_t(n[1] + 2) * z);
  }
  /// Index offset of the neighbour at (dx, dy, dz).
  EDDY_HOST_DEVICE std::int64_t offset(int dx, int dy, int dz) const {
    return dx + std::int64_t(pitch()) * (dy + std::int64_t(n[1] + 2) * dz);
  }
  /// Interior box [1, n+1) on every axis.
  EDDY_HOST_DEVICE Box interior() const { return Box{{1, 1, 1}, {n[0] + 1, n[1] + 1, n[2] + 1}}; }
  /// Whole block, ghost layer included.
  EDDY_HOST_DEVICE Box whole() const { return Box{{0, 0, 0}, {n[0] + 2, n[1] + 2, n[2] + 2}}; }
};

/// The cells parallel_for_aligned's threads cover on GPUs: `cells` consecutive cell indices from `first` (a multiple
/// of 32) through the box's last cell. `used` is false, and parallel_for runs instead, when more than 1/8 of them
/// lie outside the box (thin slabs along x, few rows) or the block has 2^32 cells or more.
struct AlignedRange {
  std::int64_t first;
  std::int64_t cells;
  bool used;
};
inline AlignedRange aligned_range(const BlockShape& shape, const Box& box) {
  const std::int64_t first = shape.index(box.lo[0], box.lo[1], box.lo[2]) / 32 * 32;
  const std::int64_t cells = shape.index(box.hi[0] - 1, box.hi[1] - 1, box.hi[2] - 1) + 1 - first;
  const bool used = !box.empty() && shape.n_cells() <= std::int64_t(UINT32_MAX) && box.cells() * 8 >= cells * 7;
  return {first, cells, used};
}

}  // namespace eddy
