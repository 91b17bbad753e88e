// Launchers that move the populations crossing a block face between a plane and a contiguous message buffer.
#pragma once

#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/halo_plane.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// True when population i of the block cell at `p` streams from a fluid cell of the block: p - c_i lies inside the
/// block (ghost layer included) and is not solid. Out of the ghosts, only such slots are delivered.
EDDY_HOST_DEVICE inline bool upstream_is_fluid(const FlagView& flags, const BlockShape& shape, const int (&p)[3],
                                               int i) {
  int q[3];
  for (int a = 0; a < 3; ++a) {
    q[a] = p[a] - d3q19::c(i, a);
    if (q[a] < 0 || q[a] > shape.n[a] + 1) return false;
  }
  return !is_solid(flags.flag[shape.index(q[0], q[1], q[2])]);
}

/// D3Q19 has 5 directions with c_i[axis] = +1 and 5 with -1 on every axis.
inline constexpr int kCrossingDirections = 5;

struct CrossingDirections {
  int i[kCrossingDirections];
};

/// The 5 directions i with c_i[axis] == sign (sign = +1 or -1), ascending.
CrossingDirections crossing_directions(int axis, int sign);

/// Copies populations `dirs` of block plane `plane` (block-local index along `axis`) into `buffer`
/// (5 * plane_cells entries, buffer[k * plane_cells + plane_slot] for dirs.i[k], kernels/halo_plane.hpp), on `stream`
/// (default stream when null).
template <class T>
void pack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                const CrossingDirections& dirs, T* buffer, const backend::Stream* stream = nullptr);

/// The inverse of pack_plane: writes `buffer` into populations `dirs` of plane `plane`, skipping slots by the block's
/// `flags` (solver/halo_exchange.hpp):
///   - out of the ghosts (out_of_ghosts = true), a slot i of cell x is written only when upstream_is_fluid: where
///     x - c_i is solid, x itself put a bounced population there, and the buffer holds nothing;
///   - into the ghosts, the ghost nodes of open faces (is_open) are left alone: they hold the open-face pass's
///     populations, which a fill repeated after that pass must not overwrite (kernels/open_boundaries.hpp).
template <class T>
void unpack_plane(const PopulationView<T>& f, const BlockShape& shape, int axis, int plane,
                  const CrossingDirections& dirs, const T* buffer, const FlagView& flags, bool out_of_ghosts,
                  const backend::Stream* stream = nullptr);

}  // namespace eddy
