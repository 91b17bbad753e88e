// OutOfCoreSimulation<T> (solver/out_of_core_simulation.cpp), made by create_out_of_core (solver/out_of_core.cpp)
// once the slab plan is agreed and checked: the populations of a block live in pinned host memory and pass through
// the device slab by slab.
//
// The block is cut into slabs of z-planes (solver/slab_plan.hpp). A sweep carries each slab to a device buffer with
// time_block + 1 planes of its neighbours on each side that is not a wall, advances it time_block steps with the
// same fused kernel, periodic copies and rounding keys as an in-core run, and copies its own planes back. Two device
// buffers on two streams let one slab compute while the previous one's planes go back and the next one's arrive.
// Halo planes beyond the block come from copies taken at the start of the sweep: of the block's far end across a
// periodic z face, or from the z-neighbour ranks over MPI (out-of-core runs are split along z only). The fields stay
// bitwise identical to an in-core run of the same backend and storage (tests/physics/test_out_of_core.cpp).
//
// With [thermal] the temperature travels with the populations: T of every cell on the host, its halo planes beside
// theirs, each slab buffer holding T twice and the velocity the fused kernel writes for it, and a deeper halo
// (solver/slab_plan.hpp: the sub-steps move T further per step). No particles (the case parser refuses them: they
// couple to the whole block at every step). The read-outs are the in-core ones
// (solver/simulation.cpp) over this class's moment and velocity slabs, so the output, derived fields included, is
// the in-core output.
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
