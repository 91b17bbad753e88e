// Ghost exchange of cell fields (one value per block cell, ghost layer included: kernels/field_launchers.hpp), for
// what lives beside the populations: the fluid velocity the particles interpolate, and the force they deposit.
//   fill_ghosts:        each ghost plane facing a neighbour (another rank, or this one across a periodic axis)
//                       receives the neighbour's boundary plane, axis by axis x, y, z over whole planes, so edges
//                       and corners arrive too; ghost planes on walls are left alone.
//   add_ghosts_to_owners: the reverse: what was deposited into a ghost plane is sent to the rank that owns those
//                       cells, added into its boundary plane, and the ghost plane is cleared (x, y, z in turn; a
//                       plane cleared after sending carries nothing twice to a diagonal neighbour).
// Messages are staged through host memory (any MPI); a periodic axis that one rank spans alone is copied in place.
#pragma once

#include <vector>

#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// Sends send[side] (`count` values of `type`, host memory) to this rank's neighbour on that side along `axis`
/// (side 0 lower, 1 upper) and receives recv[side] from it, skipping sides without one; blocking. Tag 2 axis + 1: a
/// message moving up the axis; 2 axis: moving down (as the population halo). Collective along the axis.
void exchange_with_neighbours(const Decomposition& decomposition, int axis, const void* const (&send)[2],
                              void* const (&recv)[2], int count, MPI_Datatype type);

/// V = float, double or unsigned long long (the fixed-point deposit).
template <class V>
class FieldHalo {
 public:
  /// Allocates message buffers for the largest plane of `shape`. Throws DeviceError when they do not fit.
  FieldHalo(const Decomposition& decomposition, const BlockShape& shape);

  /// Collective over the decomposition's ranks: every rank calls it for the same field in the same order.
  void fill_ghosts(V* field, const backend::Stream* stream = nullptr);
  /// Collective, like fill_ghosts.
  void add_ghosts_to_owners(V* field, const backend::Stream* stream = nullptr);

 private:
  enum class Mode { fill, add };
  void exchange_axis(V* field, int axis, Mode mode, const backend::Stream* stream);

  Decomposition decomposition_;
  BlockShape shape_;
  DeviceBuffer<V> send_[2], recv_[2];
  std::vector<V> host_send_[2], host_recv_[2];
};

}  // namespace eddy
