// NCCL point-to-point transport for the halo exchange (GPU builds with NCCL; elsewhere create() throws InputError).
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
  virtual void exchange(const void* send_low, void* recv_low, int low, const void* send_high, void* recv_high,
                        int high, std::size_t bytes, const backend::Stream& stream) = 0;
};

}  // namespace eddy
