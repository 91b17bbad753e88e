// The `eddy run` driver: time loop with progress reports, output, physics guards and the final summary.
#pragma once

#include <mpi.h>

#include <iosfwd>

#include "io/case_config.hpp"

namespace eddy {

/// Thrown when the flow blows up (NaN, or |u| above kMaxLatticeSpeed); main() exits with kExitUnstable (3).
class InstabilityError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Largest lattice speed accepted during a run: beyond it the lattice Boltzmann model is meaningless.
inline constexpr double kMaxLatticeSpeed = 0.5;
/// Largest particle speed accepted (cells per step): the velocity interpolation and the hand-over between ranks
/// assume a particle crosses at most half a cell per step.
inline constexpr double kMaxParticleSpeed = 0.5;

/// Runs the (finalized) case: prints the parameter table, advances config.steps steps, reports progress every
/// config.report_every steps, writes VTK every config.output_every steps and at the end, and the centreline CSV
/// when asked. On NaN or |u| > 0.5 it writes the current fields, then throws InstabilityError naming the step and
/// cell. Throws OutputError, DeviceError as they arise.
/// Collective over `world`: the case is decomposed over its ranks (one rank: the whole grid); only rank 0 writes to
/// `log`. Throws InputError (every rank alike) when the rank count does not fit the grid.
void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& log);

/// Prints the start-of-run table: grid, tau, omega, nu, Re, Ma, collision, precision, memory per cell and the
/// device bytes of rank 0's block (`device_bytes`, Simulation::device_bytes) out of `ranks`.
void print_case_summary(const CaseConfig& config, std::size_t bytes_per_cell, std::size_t device_bytes, int ranks,
                        std::ostream& log);

}  // namespace eddy
