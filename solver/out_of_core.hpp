// Out-of-core runs: the populations of a block live in pinned host memory and pass through the device slab by slab.
//
// The block is cut into slabs of z-planes (solver/slab_plan.hpp). A sweep carries each slab to a device buffer with
// time_block + 1 planes of its neighbours on each side that is not a wall, advances it time_block steps with the
// same fused kernel, periodic copies and rounding keys as an in-core run, and copies its own planes back. Two device
// buffers on two streams let one slab compute while the previous one's planes go back and the next one's arrive.
// Halo planes beyond the block come from copies taken at the start of the sweep: of the block's far end across a
// periodic z face, or from the z-neighbour ranks over MPI (out-of-core runs are split along z only). The fields stay
// bitwise identical to an in-core run of the same backend and storage (tests/physics/test_out_of_core.cpp).
//
// Fluid only: no particles, no temperature field (the case parser refuses them). Output, derived fields included, is
// the in-core output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Device bytes the slab buffers may take and how messages name that budget.
struct DeviceBudget {
  std::int64_t bytes = 0;
  std::string name;  ///< "numerics.device_memory_limit" or "the free device memory"
};

/// The budget of an out-of-core block: numerics.device_memory_limit when given, else 90 % of the free device memory.
DeviceBudget out_of_core_budget(const CaseConfig& config);

/// True when `config` runs out of core here: out_of_core = true, or "auto" on a GPU build when the block does not fit
/// the budget in core (`in_core_bytes`: what the in-core run needs), the case is fluid only and the decomposition
/// splits along z only.
bool runs_out_of_core(const CaseConfig& config, const Decomposition& decomposition, double in_core_bytes);

/// The out-of-core Simulation of this rank's block. Throws InputError (CollectiveInputError where every rank sees
/// it alike) when the budget cannot hold one slab (naming the minimum), the slab settings do not fit, or the
/// decomposition splits x or y, and
/// DeviceError (out_of_memory) when the host cannot hold the block in pinned memory.
std::unique_ptr<Simulation> create_out_of_core(const CaseConfig& config, const Decomposition& decomposition);

}  // namespace eddy
