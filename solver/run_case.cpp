// The `eddy run` loop (solver/run_case.hpp): CaseRun's set-up, then chunks of steps with the checks, reports,
// snapshots and checkpoints due after each; what it prints is in solver/run_report.cpp, the files in
// solver/snapshot_writer.cpp, the physics guard in solver/stability_guard.cpp.
#include "solver/run_case.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <ostream>

#include "io/checkpoint.hpp"
#include "kernels/backend.hpp"
#include "solver/checkpointing.hpp"
#include "solver/decomposition.hpp"
#include "solver/mpi_check.hpp"
#include "solver/output_directory.hpp"
#include "solver/probes.hpp"
#include "solver/rank_device.hpp"
#include "solver/energy_series.hpp"
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

/// The first step after `t` at which a report, a snapshot, a checkpoint or the end is due.
std::int64_t next_due_step(const CaseConfig& config, std::int64_t t) {
  std::int64_t next = config.steps;
  next = std::min(next, (t / config.report_every + 1) * config.report_every);
  next = std::min(next, next_snapshot_step(config, t));
  if (config.checkpoint_every > 0) {
    next = std::min(next, (t / config.checkpoint_every + 1) * config.checkpoint_every);
  }
  return next;
}

/// Advances `steps` steps with the force samples (ForceSeries::advance) and the probe samples due on the way.
void advance_sampled(Simulation& sim, std::int64_t steps, ForceSeries& forces, ProbeSeries& probes,
                     EnergySeries& energy) {
  while (steps > 0) {
    const std::int64_t t = sim.time_step();
    const std::int64_t due = std::min(probes.next_due(t), energy.next_due(t));
    const std::int64_t n = std::min(steps, due - t);
    forces.advance(sim, n);
    steps -= n;
    if (sim.time_step() != due) continue;
    if (probes.next_due(t) == due) probes.sample(sim);
    energy.sample(sim);  // nothing unless due
  }
}

/// Reads the checkpoint `restart` into `sim` (collective) and says so.
void restore(const CaseConfig& config, Simulation& sim, const std::string& restart, std::ostream& log) {
  const auto begin = Clock::now();
  const std::string written_by = restore_state_checkpoint(config, sim, restart);
  print_restart(config, restart, sim.time_step(), seconds_since(begin), written_by, log);
  const std::vector<CheckpointField> fields = read_checkpoint_manifest(restart).fields;
  const bool stored =
      std::any_of(fields.begin(), fields.end(), [](const CheckpointField& f) { return f.name == "statistics"; });
  print_statistics_restart(config, sim, stored, log);
}

/// Ends the run on stop signal `signal`: a run that is unstable already stops as one (exit 3) and keeps its last
/// good checkpoint; a sound one writes the snapshot due at this step (`output`), then the checkpoint to resume from.
void stop_by_signal(const CaseConfig& config, Simulation& sim, int signal, bool output, SnapshotWriter& snapshots,
                    CheckpointSeries& checkpoints, ForceSeries& forces, ProbeSeries& probes, EnergySeries& energy,
                    std::ostream& log) {
  sim.synchronize();
  guard_current_state(config, sim, snapshots, log);
  const std::int64_t now = sim.time_step();
  if (output) snapshots.write(sim, log, SnapshotDue::scheduled);
  snapshots.complete(sim, log);  // every file of the run complete and listed before the checkpoint
  checkpoints.complete(sim, log);  // a background checkpoint of this very step serves as the one to resume from
  forces.flush();  // the samples up to the checkpoint's step are in the file before it exists
  probes.flush();
  energy.flush();
  const std::string path = checkpoints.last_step() == now ? checkpoints.newest() : checkpoints.write(config, sim, log);
  print_stop(config, signal, now, path, log);
}

/// At a step with a snapshot due: stages it (SnapshotWriter::stage_scheduled, its write held for start_staged) and
/// returns this rank's diagnostics from the same read-out, or from sim.diagnose() when nothing was staged. If the
/// previous snapshot's background write failed, the state is checked first (an instability is what the run
/// reports, the write's failure after it), as when the check came before staging. Collective.
Diagnostics stage_snapshot_and_diagnose(const CaseConfig& config, Simulation& sim, SnapshotWriter& snapshots,
                                        std::ostream& log) {
  Diagnostics local;
  try {
    if (snapshots.stage_scheduled(sim, log, local)) return local;
  } catch (const OutputError& failed) {
    try {
      guard_current_state(config, sim, snapshots, log);
    } catch (const InstabilityError& unstable) {
      throw InstabilityError(std::string(unstable.what()) +
                             "; an earlier snapshot's write had failed: " + failed.what());
    }
    throw;
  }
  return sim.diagnose();
}

}  // namespace

/// Everything one run holds, in the order it is set up (and destroyed in reverse: the locks last).
struct CaseRun::State {
  State(const CaseConfig& case_config, MPI_Comm world, std::ostream& rank0_log)
      : config(case_config),
        decomposition(decompose(config, world)),
        log(decomposition.rank == 0 ? rank0_log : null_log),
        comm(decomposition.serial() ? MPI_COMM_NULL : decomposition.comm),
        snapshots(config) {}

  const CaseConfig config;
  const Decomposition decomposition;
  std::ostream null_log{nullptr};
  std::ostream& log;
  const MPI_Comm comm;
  std::unique_ptr<OutputDirectories> output_directories;
  std::unique_ptr<Simulation> simulation;
  SnapshotWriter snapshots;
  CheckpointSeries checkpoints;
  std::unique_ptr<ForceSeries> forces;
  std::unique_ptr<ProbeSeries> probes;
  std::unique_ptr<EnergySeries> energy;
  std::unique_ptr<ProgressReport> progress;
  Diagnostics initial;
  std::int64_t chunk = 1;      // steps between checks: measured on the first, then about kCheckSeconds of them
  std::int64_t unwatched = 0;  // steps taken by advance() since the stability watch was last asked
};

CaseRun::CaseRun(const CaseConfig& config, MPI_Comm world, std::ostream& rank0_log, const std::string& restart)
    : state_(std::make_unique<State>(config, world, rank0_log)) {
  const auto begin = Clock::now();
  State& s = *state_;
  int device_index = 0;
  agree_on_failure(world, [&] { device_index = select_rank_device(s.config, world); });
  print_device_line(s.config, s.decomposition, backend::device_info(device_index).name, s.log);
  // Paths checked, directories created, shared by all ranks and locked: found now, not at the first write.
  s.output_directories = std::make_unique<OutputDirectories>(s.config, world, s.log);
  const auto set_up = Clock::now();
  s.simulation = Simulation::create(s.config, s.decomposition);
  Simulation& sim = *s.simulation;
  sim.synchronize();
  StartUpTimes times;
  times.set_up = seconds_since(set_up);
  print_run_summary(s.config, sim, s.log);
  if (!restart.empty()) {
    const auto restoring = Clock::now();
    restore(s.config, sim, restart, s.log);
    times.restart = seconds_since(restoring);
  }

  if (!restart.empty()) s.snapshots.resume(sim, s.log);
  s.snapshots.write_solid_surfaces(sim, s.log);  // rank 0; before the first snapshot lists it
  const auto checking = Clock::now();
  s.initial = reduce_diagnostics(sim.diagnose(), s.decomposition);
  guard(s.config, s.initial, sim.thermal_diagnostics(), sim, s.snapshots, s.log);  // collective
  times.check = seconds_since(checking);
  if (restart.empty() && snapshot_due(s.config, 0)) {  // step 0 of what is scheduled
    const auto writing = Clock::now();
    s.snapshots.write(sim, s.log, SnapshotDue::scheduled);
    times.output = seconds_since(writing);
  }
  s.forces = std::make_unique<ForceSeries>(s.config, sim, s.log);  // rank 0 opens (or continues) the forces file
  s.probes = std::make_unique<ProbeSeries>(s.config, sim, s.log);  // and the probes' files
  s.energy = std::make_unique<EnergySeries>(s.config, sim, s.log);  // and the kinetic energy's
  if (restart.empty()) s.energy->sample(sim);                        // E_k(0)
  s.progress = std::make_unique<ProgressReport>(s.config, sim.time_step());
  times.total = seconds_since(begin);
  print_start_up(times, s.log);
  s.log << std::flush;  // the set-up's lines before any progress or stop notice (written straight to stdout)
}

CaseRun::~CaseRun() = default;

Simulation& CaseRun::simulation() { return *state_->simulation; }
const CaseConfig& CaseRun::config() const { return state_->config; }
std::ostream& CaseRun::log() { return state_->log; }

bool CaseRun::run_to(std::int64_t end, std::int64_t every, const std::function<void()>& callback) {
  State& s = *state_;
  const CaseConfig& config = s.config;
  Simulation& sim = *s.simulation;
  end = std::min(end, config.steps);
  try {
    while (sim.time_step() < end) {
      const std::int64_t t = sim.time_step();
      std::int64_t next = std::min({next_due_step(config, t), t + s.chunk, end});
      if (every > 0) next = std::min(next, (t / every + 1) * every);
      const auto chunk_start = Clock::now();
      advance_sampled(sim, next - t, *s.forces, *s.probes, *s.energy);  // sim.advance, with the samples due on the way
      s.progress->add_steps(next - t);
      const LoopCheck check = check_loop(sim, s.comm, seconds_since(chunk_start), next - t);
      s.chunk = next_chunk(check);
      s.unwatched = 0;
      if (check.unstable >= 0) {
        sim.synchronize();  // on one rank the state went back to right after the first unstable step
        guard_current_state(config, sim, s.snapshots, s.log, check.unstable);  // throws
      }
      const std::int64_t now = sim.time_step();
      const bool output = snapshot_due(config, now);
      if (check.signal != 0) {
        stop_by_signal(config, sim, check.signal, output, s.snapshots, s.checkpoints, *s.forces, *s.probes, *s.energy,
                       s.log);
        return false;
      }
      const bool report = now % config.report_every == 0 || now == config.steps;
      const bool save = config.checkpoint_every > 0 && (now % config.checkpoint_every == 0 || now == config.steps);
      if (report || output || save) {
        sim.synchronize();
        if (report) s.snapshots.poll(sim, s.log);  // a background write that has finished is listed, its error reported
        // A snapshot's read-out of rho and u gives the diagnostics too: one pass over the populations, not two. Its
        // files are written once the guard has passed the state (or, if it stops the run, before it throws).
        const Diagnostics d = reduce_diagnostics(
            output ? stage_snapshot_and_diagnose(config, sim, s.snapshots, s.log) : sim.diagnose(), s.decomposition);
        const ThermalDiagnostics td = sim.thermal_diagnostics();  // collective; defaults without [thermal]
        if (report) {
          s.checkpoints.poll(sim, s.log);
          s.progress->print(sim, d, td, s.initial, s.log, s.forces->progress(sim));
          s.forces->flush();
          s.probes->flush();
          s.energy->flush();
        }
        guard(config, d, td, sim, s.snapshots, s.log);
        if (output) s.snapshots.start_staged(sim, s.log);
        if (save) {
          s.forces->flush();  // the samples up to the checkpoint's step are in the file before it exists
          s.probes->flush();
          s.energy->flush();
          if (now == config.steps) {
            s.checkpoints.write(config, sim, s.log);  // the last: nothing left to overlap it with
          } else {
            s.checkpoints.start(config, sim, s.log);  // in the background with output.asynchronous
          }
        }
      }
      if (every > 0 && now % every == 0 && callback) callback();
    }
  } catch (const InstabilityError&) {
    // A checkpoint still being written in the background holds an earlier, sound step: completed, logged and kept
    // as the in-line writer would have; a failure of it is not reported over the instability.
    try {
      s.checkpoints.complete(sim, s.log);
    } catch (const OutputError&) {
    }
    throw;
  }
  s.snapshots.complete(sim, s.log);  // what run_to wrote is complete and listed when it returns
  s.checkpoints.complete(sim, s.log);
  return true;
}

void CaseRun::finish() {
  State& s = *state_;
  Simulation& sim = *s.simulation;
  sim.synchronize();
  const double total = s.progress->seconds();
  s.forces->flush();
  s.probes->flush();
  s.energy->flush();
  s.snapshots.write(sim, s.log);  // what is not written at this step yet
  if (s.config.write_centerlines) write_centerlines(s.config, sim, s.log);
  s.progress->print_done(total, s.log);
  s.forces->print_summary(s.log);
}

void CaseRun::advance(std::int64_t steps) {
  State& s = *state_;
  Simulation& sim = *s.simulation;
  while (steps > 0) {
    const std::int64_t chunk = std::min(steps, kStabilityCheckSteps - s.unwatched);
    advance_sampled(sim, chunk, *s.forces, *s.probes, *s.energy);
    s.progress->add_steps(chunk);
    steps -= chunk;
    s.unwatched += chunk;
    if (s.unwatched < kStabilityCheckSteps) continue;
    s.unwatched = 0;
    const LoopCheck check = check_loop(sim, s.comm, 0.0, 1);
    if (check.unstable >= 0) {
      sim.synchronize();
      guard_current_state(s.config, sim, s.snapshots, s.log, check.unstable);  // throws
    }
  }
}

void CaseRun::write_snapshot() {
  State& s = *state_;
  s.simulation->synchronize();
  s.snapshots.write(*s.simulation, s.log);
}

std::string CaseRun::write_checkpoint(const std::string& directory) {
  State& s = *state_;
  s.simulation->synchronize();
  s.forces->flush();  // the samples up to the checkpoint's step are in the file before it exists
  s.probes->flush();
  s.energy->flush();
  if (directory.empty()) return s.checkpoints.write(s.config, *s.simulation, s.log);
  s.checkpoints.complete(*s.simulation, s.log);  // one staged state in host memory at a time
  CaseConfig config = s.config;
  config.checkpoint_directory = directory;
  return CheckpointSeries().write(config, *s.simulation, s.log);
}

void CaseRun::release_output() { state_->output_directories.reset(); }

void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& rank0_log, const std::string& restart) {
  int rank = 0;
  EDDY_MPI_CHECK(MPI_Comm_rank(world, &rank));
  const StopSignalScope stop_signals(rank == 0);  // a signal during the set-up stops at the first check
  CaseRun run(config, world, rank0_log, restart);
  if (run.run_to(config.steps)) run.finish();
}

}  // namespace eddy
