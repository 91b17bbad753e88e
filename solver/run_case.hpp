// The `eddy run` driver: the time loop with progress reports, output, physics guards and the final summary
// (solver/run_report.hpp prints, solver/snapshot_writer.hpp writes, solver/stability_guard.hpp stops).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iosfwd>
#include <string>

#include "io/case_config.hpp"
#include "solver/errors.hpp"
#include "solver/run_report.hpp"
#include "solver/stability_guard.hpp"

namespace eddy {

/// Runs the (finalized) case: prints the parameter table, advances config.steps steps, reports progress every
/// config.report_every steps, writes VTK every config.output_every steps and at the end, and the centreline CSV
/// when asked. On NaN or |u| > 0.5 (found by the fused kernel within kStabilityCheckSteps steps, whatever
/// report_every, or at a report) it writes the fields (on one rank those right after the first unstable step,
/// Simulation::unstable_step), then throws InstabilityError naming the step and cell (solver/stability_guard.hpp).
/// Throws OutputError, DeviceError as they arise. Collective over `world`: the case is decomposed over its ranks (one
/// rank: the whole grid); only rank 0 writes to `log`. Throws InputError (every rank alike) when the rank count does
/// not fit the grid. With checkpoint.every > 0 it writes a checkpoint every that many steps and at the end
/// (solver/checkpointing.hpp); `restart` (a checkpoint's manifest) continues that state up to config.steps, bit for bit
/// as if uninterrupted. SIGTERM, SIGINT, SIGHUP or SIGUSR1 ends the run after the current chunk of steps (at most
/// kStabilityCheckSteps, fewer when steps take long: about a quarter of a second of work) with the snapshot due
/// at that step, a checkpoint and a line saying how to resume (no exception: the exit code is 0); a run found
/// unstable then throws InstabilityError instead, writing no checkpoint. Throws CheckpointError for an unusable
/// `restart`.
void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& log, const std::string& restart = "");

}  // namespace eddy
