// The out-of-core Simulation itself (solver/out_of_core_simulation.cpp), made by create_out_of_core
// (solver/out_of_core.cpp) once the slab plan is agreed and checked.
#pragma once

#include <memory>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/slab_plan.hpp"

namespace eddy {

/// The out-of-core Simulation of this rank's block for `plan` (made from `request`), in the storage of
/// config.precision. Allocates the pinned host state, the halo copies and the device buffers, and sets the initial
/// state slab by slab. Throws DeviceError when memory runs out.
std::unique_ptr<Simulation> make_out_of_core_simulation(const CaseConfig& config, const Decomposition& decomposition,
                                                       const SlabRequest& request, const SlabPlan& plan);

}  // namespace eddy
