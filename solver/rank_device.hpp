// Which GPU a rank uses: parallel.device when set, else its rank among the ranks of its node modulo the GPUs visible.
#pragma once

#include <mpi.h>

#include "io/case_config.hpp"

namespace eddy {

/// Selects and returns this rank's device (collective over `world`: the node-local rank comes from
/// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)). Throws DeviceError when a GPU build sees no GPU, InputError when
/// parallel.device names a GPU that is not visible.
int select_rank_device(const CaseConfig& config, MPI_Comm world);

/// "host", "device" or "nccl".
const char* transport_name(HaloTransport transport);

}  // namespace eddy
