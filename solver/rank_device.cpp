#include "solver/rank_device.hpp"

#include <string>

#include "kernels/backend.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

int select_rank_device(const CaseConfig& config, MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  EDDY_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local_rank = 0;
  EDDY_MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  EDDY_MPI_CHECK(MPI_Comm_free(&node));
  const int count = backend::device_count();
  if (count == 0) backend::device_info(0);  // throws the "no GPU visible" DeviceError
  if (config.parallel.device >= count) {
    throw InputError(source_prefix(config) + "parallel.device = " + std::to_string(config.parallel.device) +
                     " but only " + std::to_string(count) + " device(s) are visible (indices 0.." +
                     std::to_string(count - 1) + "); use -1 to pick by node-local rank");
  }
  const int index = config.parallel.device >= 0 ? config.parallel.device : local_rank % count;
  backend::select_device(index);
  return index;
}

const char* transport_name(HaloTransport transport) {
  switch (transport) {
    case HaloTransport::host: return "host";
    case HaloTransport::device: return "device";
    case HaloTransport::nccl: return "nccl";
  }
  return "?";
}

}  // namespace eddy
