// Launchers that move the populations crossing a block face between a plane and a contiguous message buffer.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// D3Q19 has 5 directions with c_i[axis] = +1 and 5 with -1 on every axis.
inline constexpr int kCrossingDirections = 5;

struct CrossingDirections {
  int i[kCrossingDirections];
};

/// The 5 directions i with c_i[axis] == sign (sign = +1 or -1), ascending.
CrossingDirections crossing_directions(int axis, int sign);

/// Cells of a plane normal to `axis` spanning the whole block (ghost layer included).
std::int64_t plane_cells(const BlockShape& shape, int axis);

/// Copies populations `dirs` of block plane `plane` (block-local index along `axis`) into `buffer`
/// (5 * plane_cells entries, layout in kernels/halo_pack.cpp), on `stream` (default stream when null).
template <class T>
void pack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                const CrossingDirections& dirs, T* buffer, const backend::Stream* stream = nullptr);

/// The inverse of pack_plane: writes `buffer` into populations `dirs` of plane `plane`. With `upstream_flags`
/// (out of the ghosts, see solver/halo_exchange.hpp), a slot i of cell x is written only when the cell it comes
/// from, x - c_i, is not solid: otherwise x itself put a bounced population there and the buffer holds nothing.
template <class T>
void unpack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                  const CrossingDirections& dirs, const T* buffer, const CellFlag* upstream_flags,
                  const backend::Stream* stream = nullptr);

}  // namespace eddy
