// NCCL point-to-point transport for the halo exchange and the ghost particles (GPU builds with NCCL; elsewhere create()
// throws InputError).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "kernels/backend.hpp"

namespace eddy {

class NcclTransport {
 public:
  /// Builds an NCCL communicator over the ranks of `comm` (collective; the unique id travels by MPI_Bcast).
  static std::unique_ptr<NcclTransport> create(MPI_Comm comm);
  virtual ~NcclTransport() = default;
  /// Queues on `stream`: send `bytes` to each existing neighbour (rank < 0: none) and receive as many.
  virtual void exchange(const void* send_low, void* recv_low, int low, const void* send_high, void* recv_high, int high,
                        std::size_t bytes, const backend::Stream& stream) = 0;
  /// Queues on `stream`: sends send_bytes[side] from send[side] to neighbour[side] (side 0 lower, 1 upper; rank < 0:
  /// none) and receives recv_bytes[side] into recv[side] from it; a side with 0 bytes posts nothing there (both ends
  /// know the sizes: they exchanged them first). When both neighbours are the same rank, pairs as exchange() does.
  virtual void exchange_sized(const void* const (&send)[2], const std::size_t (&send_bytes)[2], void* const (&recv)[2],
                              const std::size_t (&recv_bytes)[2], const int (&neighbour)[2],
                              const backend::Stream& stream) = 0;
};

}  // namespace eddy
