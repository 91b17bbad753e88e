// Whether the MPI library can take device pointers (for parallel.transport = "device").
#pragma once

namespace eddy {

/// 1: the MPI library reports CUDA support at run time; 0: it reports none; -1: it cannot tell.
int mpi_cuda_aware();

}  // namespace eddy
