// Joining output pieces of a decomposed run: point data of adjacent VTK pieces must share one layer of nodes, so
// each rank appends the first node plane of its upper neighbour along every axis where it has one (not across a
// periodic wrap: the global grid has N nodes, not N + 1).
#pragma once

#include <array>
#include <vector>

#include "solver/decomposition.hpp"

namespace eddy {

/// `fields` holds `components` arrays of this rank's local_size nodes each (x fastest), back to back. Returns them
/// extended by one node plane towards each upper neighbour inside the grid (x, then y, then z, so edges and
/// corners come along), and sets `size` to the extended node counts. Collective over decomposition.comm.
template <class T>
std::vector<T> extend_to_upper_neighbours(const Decomposition& decomposition, const std::vector<T>& fields,
                                          int components, std::array<int, 3>& size);

/// True when the block at `coords` gets an extra node plane along `axis` (it has an upper neighbour in the grid).
inline bool extends_along(const Decomposition& d, const std::array<int, 3>& coords, int axis) {
  return coords[axis] < d.dims[axis] - 1;
}

}  // namespace eddy
