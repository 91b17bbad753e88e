// Block geometry: a box of fluid cells plus one ghost layer on every side, stored x fastest.
//
// Block-local coordinates run from 0 to n+1 along each axis: 0 and n+1 are the ghost layer, 1..n the interior.
// Cell index: idx = x + X * (y + Y * z) with X = nx + 2, Y = ny + 2 (64-bit: cells times populations can exceed
// 2^31). Population i of cell idx lives at f[i * n_cells + idx] (structure of arrays).
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

  EDDY_HOST_DEVICE int extent(int axis) const { return n[axis] + 2; }
  EDDY_HOST_DEVICE std::int64_t n_cells() const {
    return std::int64_t(n[0] + 2) * (n[1] + 2) * (n[2] + 2);
  }
  EDDY_HOST_DEVICE std::int64_t interior_cells() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  EDDY_HOST_DEVICE std::int64_t index(int x, int y, int z) const {
    return x + std::int64_t(n[0] + 2) * (y + std::int64_t(n[1] + 2) * z);
  }
  /// Index offset of the neighbour at (dx, dy, dz).
  EDDY_HOST_DEVICE std::int64_t offset(int dx, int dy, int dz) const {
    return dx + std::int64_t(n[0] + 2) * (dy + std::int64_t(n[1] + 2) * dz);
  }
  /// Interior box [1, n+1) on every axis.
  EDDY_HOST_DEVICE Box interior() const { return Box{{1, 1, 1}, {n[0] + 1, n[1] + 1, n[2] + 1}}; }
  /// Whole block, ghost layer included.
  EDDY_HOST_DEVICE Box whole() const { return Box{{0, 0, 0}, {n[0] + 2, n[1] + 2, n[2] + 2}}; }
};

}  // namespace eddy
