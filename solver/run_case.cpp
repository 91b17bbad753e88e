// The `eddy run` loop (solver/run_case.hpp): set-up, then chunks of steps with the checks, reports, snapshots and
// checkpoints due after each; what it prints is in solver/run_report.cpp, the files in solver/snapshot_writer.cpp,
// the physics guard in solver/stability_guard.cpp.
#include "solver/run_case.hpp"

#include <algorithm>
#include <ostream>

#include "kernels/backend.hpp"
#include "solver/checkpointing.hpp"
#include "solver/decomposition.hpp"
#include "solver/mpi_check.hpp"
#include "solver/output_directory.hpp"
#include "solver/rank_device.hpp"
#include "solver/reductions.hpp"
#include "solver/simulation.hpp"
#include "solver/snapshot_writer.hpp"
#include "solver/solid_forces.hpp"
#include "solver/stop_signal.hpp"
#include "solver/timing.hpp"

namespace eddy {

namespace {

/// The time loop checks for stop signals and the stability watch after chunks of at most kStabilityCheckSteps
/// steps, fewer when steps are slow: a chunk takes about this long, so a stop acts within about a second.
constexpr double kCheckSeconds = 0.25;

/// What the time loop learns after each chunk of steps, the same on every rank.
struct LoopCheck {
  int signal = 0;              ///< a stop signal received on any rank (0: none)
  std::int64_t unstable = -1;  ///< the first unstable step on any rank (Simulation::unstable_step), or -1
  double step_seconds = 0.0;   ///< wall seconds per step of the chunk, on the slowest rank
};

/// One reduction over the ranks of the stop signal, the stability watch and the chunk's speed. Collective.
LoopCheck check_loop(Simulation& sim, MPI_Comm comm, double chunk_seconds, std::int64_t chunk_steps) {
  const std::int64_t unstable = sim.unstable_step();
  // All as maxima: the smallest unstable step as INT64_MAX - step, none as -1; seconds in nanoseconds.
  std::int64_t values[3] = {stop_signal(MPI_COMM_NULL), unstable >= 0 ? INT64_MAX - unstable : -1,
                            std::int64_t(chunk_seconds / double(std::max<std::int64_t>(chunk_steps, 1)) * 1e9)};
  if (comm != MPI_COMM_NULL) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values, 3, MPI_INT64_T, MPI_MAX, comm));
  LoopCheck check;
  check.signal = int(values[0]);
  check.unstable = values[1] >= 0 ? INT64_MAX - values[1] : -1;
  check.step_seconds = double(values[2]) * 1e-9;
  return check;
}

/// Steps of the next chunk: about kCheckSeconds of them at the speed `check` measured, 1 to kStabilityCheckSteps.
std::int64_t next_chunk(const LoopCheck& check) {
  if (check.step_seconds <= 0) return kStabilityCheckSteps;
  return std::clamp<std::int64_t>(std::int64_t(kCheckSeconds / check.step_seconds), 1, kStabilityCheckSteps);
}

/// The first step after `t` at which a report, a snapshot, a checkpoint or the end is due (force samples are taken
/// inside the chunks, ForceSeries::advance).
std::int64_t next_due_step(const CaseConfig& config, std::int64_t t) {
  std::int64_t next = config.steps;
  next = std::min(next, (t / config.report_every + 1) * config.report_every);
  if (config.output_every > 0) next = std::min(next, (t / config.output_every + 1) * config.output_every);
  if (config.checkpoint_every > 0) {
    next = std::min(next, (t / config.checkpoint_every + 1) * config.checkpoint_every);
  }
  return next;
}

/// Reads the checkpoint `restart` into `sim` (collective) and says so.
void restore(const CaseConfig& config, Simulation& sim, const std::string& restart, std::ostream& log) {
  const auto begin = Clock::now();
  const std::string written_by = restore_state_checkpoint(config, sim, restart);
  print_restart(config, restart, sim.time_step(), seconds_since(begin), written_by, log);
}

/// Ends the run on stop signal `signal`: a run that is unstable already stops as one (exit 3) and keeps its last
/// good checkpoint; a sound one writes the snapshot due at this step (`output`), then the checkpoint to resume from.
void stop_by_signal(const CaseConfig& config, Simulation& sim, int signal, bool output, SnapshotWriter& snapshots,
                    CheckpointSeries& checkpoints, ForceSeries& forces, std::ostream& log) {
  sim.synchronize();
  guard_current_state(config, sim, snapshots, log);
  const std::int64_t now = sim.time_step();
  if (output && snapshots.last_step() != now) snapshots.write(sim, log);
  forces.flush();  // the samples up to the checkpoint's step are in the file before it exists
  const std::string path = checkpoints.last_step() == now ? checkpoints.newest() : checkpoints.write(config, sim, log);
  print_stop(config, signal, now, path, log);
}

}  // namespace

void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& rank0_log, const std::string& restart) {
  const Decomposition decomposition = decompose(config, world);
  std::ostream null_log(nullptr);
  std::ostream& log = decomposition.rank == 0 ? rank0_log : null_log;
  int device_index = 0;
  agree_on_failure(world, [&] { device_index = select_rank_device(config, world); });
  print_device_line(config, decomposition, backend::device_info(device_index).name, log);
  const StopSignalScope stop_signals(decomposition.rank == 0);  // a signal during the set-up stops at the first check
  // Paths checked, directories created, shared by all ranks and locked: found now, not at the first write.
  const OutputDirectories output_directories(config, world, log);
  const std::unique_ptr<Simulation> simulation = Simulation::create(config, decomposition);
  Simulation& sim = *simulation;
  print_run_summary(config, sim, log);
  if (!restart.empty()) restore(config, sim, restart, log);
  const MPI_Comm comm = decomposition.serial() ? MPI_COMM_NULL : decomposition.comm;

  SnapshotWriter snapshots(config);
  if (!restart.empty()) snapshots.resume(sim, log);
  snapshots.write_solid_surfaces(sim, log);  // rank 0; before the first snapshot lists it
  const Diagnostics initial = reduce_diagnostics(sim.diagnose(), decomposition);
  guard(config, initial, sim.thermal_diagnostics(), sim, snapshots, log);  // collective
  if (config.output_every > 0 && restart.empty()) snapshots.write(sim, log);
  CheckpointSeries checkpoints;
  ForceSeries forces(config, sim, log);  // rank 0 opens (or continues) the forces file
  ProgressReport progress(config, sim.time_step());
  log << std::flush;       // the set-up's lines before any progress or stop notice (written straight to stdout)
  std::int64_t chunk = 1;  // steps between checks: measured on the first, then about kCheckSeconds of them
  while (sim.time_step() < config.steps) {
    const std::int64_t t = sim.time_step();
    const std::int64_t next = std::min(next_due_step(config, t), t + chunk);
    const auto chunk_start = Clock::now();
    forces.advance(sim, next - t);  // sim.advance, with the force samples due on the way
    progress.add_steps(next - t);
    const LoopCheck check = check_loop(sim, comm, seconds_since(chunk_start), next - t);
    chunk = next_chunk(check);
    if (check.unstable >= 0) {
      sim.synchronize();  // on one rank the state went back to right after the first unstable step
      guard_current_state(config, sim, snapshots, log, check.unstable);  // throws
    }
    const std::int64_t now = sim.time_step();
    const bool output = config.output_every > 0 && now % config.output_every == 0;
    if (check.signal != 0) {
      return stop_by_signal(config, sim, check.signal, output, snapshots, checkpoints, forces, log);
    }
    const bool report = now % config.report_every == 0 || now == config.steps;
    const bool save = config.checkpoint_every > 0 && (now % config.checkpoint_every == 0 || now == config.steps);
    if (!report && !output && !save) continue;
    sim.synchronize();
    const Diagnostics d = reduce_diagnostics(sim.diagnose(), decomposition);
    const ThermalDiagnostics td = sim.thermal_diagnostics();  // collective; defaults without [thermal]
    if (report) {
      progress.print(sim, d, td, initial, log, forces.progress(sim));
      forces.flush();
    }
    guard(config, d, td, sim, snapshots, log);
    if (output) snapshots.write(sim, log);
    if (save) {
      forces.flush();  // the samples up to the checkpoint's step are in the file before it exists
      checkpoints.write(config, sim, log);
    }
  }
  sim.synchronize();
  const double total = progress.seconds();
  forces.flush();
  if (snapshots.last_step() != sim.time_step()) snapshots.write(sim, log);
  if (config.write_centerlines) write_centerlines(config, sim, log);
  progress.print_done(total, log);
  forces.print_summary(log);
}

}  // namespace eddy
