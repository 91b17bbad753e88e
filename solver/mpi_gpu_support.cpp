// Whether the MPI library accepts device pointers (CUDA-aware MPI). Open MPI answers through its extension header;
// other MPIs cannot be asked, and the user's parallel.transport = "device" is then trusted.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "solver/mpi_gpu_support.hpp"

namespace eddy {

int mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() ? 1 : 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return 0;
#else
  return -1;
#endif
}

}  // namespace eddy
