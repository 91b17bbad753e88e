// The `eddy run` driver: the time loop with progress reports, output, physics guards and the final summary
// (solver/run_report.hpp prints, solver/snapshot_writer.hpp writes, solver/stability_guard.hpp stops). CaseRun holds
// one run in its parts, so that the command line (run_case) and the Python module (python/) share one loop.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "io/case_config.hpp"
#include "solver/errors.hpp"
#include "solver/run_report.hpp"
#include "solver/stability_guard.hpp"

namespace eddy {

class Simulation;

/// One `eddy run` of a (finalized) case, in parts: the constructor does its set-up, run_to() its time loop up to a
/// step, finish() its end; run_case() is one CaseRun from start to finish. Collective over `world` (the case is
/// decomposed over its ranks; one rank: the whole grid); only rank 0 writes to `log`, which must outlive the run.
/// Stop signals are those a StopSignalScope of the caller records (solver/stop_signal.hpp): without one, none.
class CaseRun {
 public:
  /// The set-up of `eddy run`: the device line, the output and checkpoint directories checked, created and locked
  /// (solver/output_directory.hpp), the simulation and its parameter table, the checkpoint `restart` (a manifest;
  /// "" for none) read back, the initial state checked and, without a restart and with output.every > 0, its
  /// snapshot written. Throws RankCountError when the rank count does not fit the grid, CollectiveOutputError for
  /// the directories, CheckpointError for an unusable `restart`, DeviceError / OutOfMemoryError, InstabilityError
  /// for an initial state that is not sound.
  CaseRun(const CaseConfig& config, MPI_Comm world, std::ostream& log, const std::string& restart = "");
  ~CaseRun();
  CaseRun(const CaseRun&) = delete;
  CaseRun& operator=(const CaseRun&) = delete;

  /// The time loop of `eddy run` from the current step to step `end` (at most config.steps; nothing when the
  /// simulation is there already): chunks of at most kStabilityCheckSteps steps (fewer when steps are slow: about a
  /// quarter of a second of work), each followed by the stability watch and the stop signals, then the progress
  /// line, snapshot and checkpoint due at that step (run.report_every, output.every, checkpoint.every, and at
  /// config.steps). With `every` > 0 `callback` is called after each step that is a multiple of it, after what is
  /// due there. On NaN or |u| > 0.5 it writes the fields (on one rank those right after the first unstable step,
  /// Simulation::unstable_step) and throws InstabilityError naming the step and cell. A stop signal ends the loop
  /// with the snapshot due at that step, a checkpoint and a line saying how to resume, and returns false (a run
  /// found unstable then throws InstabilityError instead, writing no checkpoint); otherwise it returns true.
  /// Throws OutputError, DeviceError as they arise, and what `callback` throws. Collective.
  bool run_to(std::int64_t end, std::int64_t every = 0, const std::function<void()>& callback = {});
  /// The end of `eddy run`: the snapshot of the current step (unless written already), the centreline CSV when
  /// asked, and the "done:" line. Collective.
  void finish();

  /// Advances `steps` steps with nothing else due: no report, snapshot or checkpoint. The stability watch is
  /// asked after every kStabilityCheckSteps steps taken this way (collective then), and a blow-up throws
  /// InstabilityError as in run_to().
  void advance(std::int64_t steps);
  /// Writes the snapshot of the current step now, unless it is written already (collective). Throws OutputError.
  void write_snapshot();
  /// Writes a checkpoint of the current step into `directory` ("": the case's checkpoint directory) and returns its
  /// manifest's path (collective). Throws CollectiveOutputError.
  std::string write_checkpoint(const std::string& directory = "");
  /// Ends the writing: the output directories' locks are released (solver/output_directory.hpp). Nothing may be
  /// written afterwards; stepping still works.
  void release_output();

  Simulation& simulation();
  const CaseConfig& config() const;
  std::ostream& log();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

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
/// `restart`. One CaseRun from start to finish, under a StopSignalScope.
void run_case(const CaseConfig& config, MPI_Comm world, std::ostream& log, const std::string& restart = "");

}  // namespace eddy
