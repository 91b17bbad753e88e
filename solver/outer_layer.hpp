// The outer layer of a block's velocity field (kernels/stencil_launchers.hpp, OuterLayerView): the second plane of
// cells beyond each face whose ghost plane comes from a neighbour (another rank, or this block across a periodic
// face). Below plane 0 along an axis lies the lower neighbour's plane n - 1, above plane n + 1 the upper neighbour's
// plane 2. With it, the one-sided differences that the velocity stencils take next to a solid cell at the block's
// edge plane read the cell two out, as they would inside one block, so vorticity, Q and |S| do not depend on the
// rank count or on where a periodic face falls (in core and, along x and y, out of core; out of core along z the
// slabs hold those planes themselves: solver/out_of_core_simulation.cpp).
// Messages: 3 components of one whole plane per face (kernels/halo_plane.hpp), staged through host memory (any
// MPI); a periodic axis that one rank spans alone is packed in place. Only the derived-field read-outs use it.
#pragma once

#include <vector>

#include "kernels/block.hpp"
#include "kernels/stencil_launchers.hpp"
#include "kernels/views.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// R = float or double (the velocity field's arithmetic type).
template <class R>
class OuterLayer {
 public:
  /// Allocates the faces of the axes that exchange, for a block of `shape` (ghost layer included). Throws
  /// DeviceError when they do not fit.
  OuterLayer(const Decomposition& decomposition, const BlockShape& shape);

  /// Fills the faces from the velocity `u` (3 cell fields of `shape`, valid on the interior cells, ghost planes
  /// filled by the field ghost exchange) and `flags` (NaN where a cell is not fluid). Collective over the
  /// decomposition's ranks.
  void fill(const R* const (&u)[3], const FlagView& flags, const backend::Stream* stream);

  /// The faces for the stencil launchers (null where the block has no neighbour).
  OuterLayerView<R> view() const;

 private:
  Decomposition decomposition_;
  BlockShape shape_;
  DeviceBuffer<R> face_[6], send_[2];
  std::vector<R> host_send_[2], host_recv_[2];
};

}  // namespace eddy
