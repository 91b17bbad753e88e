// Whether and how a block runs out of core (solver/out_of_core.cpp): the device budget, the choice on "auto", and
// the set-up of the slab plan every rank agrees on. The scheme itself: solver/out_of_core_simulation.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Arithmetic values per cell a slab buffer holds beside the populations with [thermal]: T twice (the sub-steps
/// swap them) and the three velocity components the fused kernel writes for the scalar transport.
inline constexpr int kSlabThermalValues = 5;

/// Device bytes the slab buffers may take and how messages name that budget.
struct DeviceBudget {
  std::int64_t bytes = 0;
  std::string name;  ///< "numerics.device_memory_limit" or "the free device memory"
};

/// The budget of an out-of-core block: numerics.device_memory_limit when given, else 90 % of the free device memory.
DeviceBudget out_of_core_budget(const CaseConfig& config);

/// True when `config` runs out of core here: out_of_core = true, or "auto" on a GPU build when the block does not fit
/// the budget in core (`in_core_bytes`: what the in-core run needs), the case has no particles, no open boundaries,
/// no [statistics] and no [[solid]] with wall = "interpolated" ([thermal] is fine) and the decomposition splits along
/// z only.
bool runs_out_of_core(const CaseConfig& config, const Decomposition& decomposition, double in_core_bytes);

/// The out-of-core Simulation of this rank's block. Throws InputError (CollectiveInputError where every rank sees
/// it alike) when the budget cannot hold one slab (naming the minimum; with [thermal] the slab buffers hold T and u
/// too, kSlabThermalValues values per cell), the slab settings do not fit, or the
/// decomposition splits x or y or a [[solid]] has wall = "interpolated" (in core only), and
/// DeviceError (out_of_memory) when the host cannot hold the block in pinned memory.
std::unique_ptr<Simulation> create_out_of_core(const CaseConfig& config, const Decomposition& decomposition);

}  // namespace eddy
