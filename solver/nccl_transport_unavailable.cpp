// Builds without NCCL: the nccl halo transport reports itself unavailable.
#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/nccl_transport.hpp"

namespace eddy {

std::unique_ptr<NcclTransport> NcclTransport::create(MPI_Comm /*comm*/) {
  // Every rank of the job runs the same build: all of them stop here alike.
  throw CollectiveInputError(std::string("parallel.transport = \"nccl\" is not available: this ") + backend::name() +
                   " build has no NCCL (build the cuda backend where NCCL is installed); use \"host\" or \"device\"");
}

}  // namespace eddy
