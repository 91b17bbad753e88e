// LatticeSimulation<T>: the in-core Simulation of one block (solver/lattice_simulation.cpp): populations, flags and
// the optional particles and temperature field on the device, T = storage precision chosen by the case.
#pragma once

#include <memory>

#include "io/case_config.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Device bytes an in-core block of `decomposition` takes: populations and flags of every cell (ghosts included),
/// the output slab of 4 fields for at most 2^24 cells, the derived fields' velocity and results when the case asks
/// for them, the particles and the thermal fields.
double in_core_device_bytes(const CaseConfig& config, const Decomposition& decomposition);

/// The in-core Simulation of this rank's block, in the storage of config.precision, with its initial state.
/// Throws DeviceError (out_of_memory) naming the bytes needed when the block (or its particles) does not fit the
/// free device memory (on cpu: host memory, read-outs included), and InputError for a bad particle positions file.
std::unique_ptr<Simulation> create_in_core(const CaseConfig& config, const Decomposition& decomposition);

}  // namespace eddy
