// Whole-block planes, the unit of every halo message (the populations' in solver/halo_exchange.hpp, the cell fields'
// in solver/field_halo.hpp). A plane normal to `axis` spans the two other axes entirely, ghost layer included, so
// exchanging x, y, z in turn also carries edges and corners without diagonal messages. A message holds, per
// component, one value per plane cell at slot p = b + extent_b * c, where (b, c) are the plane's two other axes in
// x, y, z order. Index arithmetic only: no memory traffic of its own.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"

namespace eddy {

/// The plane's two other axes (b, c), in x, y, z order, of a plane normal to `axis`.
EDDY_HOST_DEVICE inline int plane_axis_b(int axis) { return axis == 0 ? 1 : 0; }
EDDY_HOST_DEVICE inline int plane_axis_c(int axis) { return axis == 2 ? 1 : 2; }

/// Cells of one whole-block plane normal to `axis` (the other two extents, ghosts included): the values per
/// component of a plane's message.
EDDY_HOST_DEVICE inline std::int64_t plane_cells(const BlockShape& shape, int axis) {
  return std::int64_t(shape.extent(plane_axis_b(axis))) * shape.extent(plane_axis_c(axis));
}

/// Slot of block cell (x, y, z) (block-local coordinates) in the message of its plane normal to `axis`.
EDDY_HOST_DEVICE inline std::int64_t plane_slot(const BlockShape& shape, int axis, int x, int y, int z) {
  const int b = axis == 0 ? y : x;  // coordinate along plane_axis_b
  const int c = axis == 2 ? y : z;  // coordinate along plane_axis_c
  const int extent_b = axis == 0 ? shape.extent(1) : shape.extent(0);
  return b + std::int64_t(extent_b) * c;
}

/// Plane `plane` (block-local coordinate along `axis`, 0..n+1) of the whole block, as a box for parallel_for.
inline Box plane_box(const BlockShape& shape, int axis, int plane) {
  Box box = shape.whole();
  box.lo[axis] = plane;
  box.hi[axis] = plane + 1;
  return box;
}

}  // namespace eddy
