// Graceful stop: SIGTERM, SIGINT, SIGHUP and SIGUSR1 (what batch schedulers send before the wall-time limit, Slurm's
// --signal=USR1 among them, Ctrl-C, a closed terminal) only set a flag; the time loop checks it between chunks of
// steps short enough to act within about a second (solver/run_case.cpp), on every rank together, then writes the
// snapshot due at that step and a checkpoint, and ends the run normally.
#pragma once

#include <mpi.h>

namespace eddy {

/// Installs the handlers for its lifetime and restores the previous ones afterwards. With `announce` (rank 0), the
/// first signal prints at once, on standard output, that the stop is under way; later ones change nothing.
class StopSignalScope {
 public:
  explicit StopSignalScope(bool announce);
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;

 private:
  void (*previous_[4])(int);
};

/// The first signal received on any rank of `comm` (MPI_COMM_NULL: this process), 0 if none. Collective.
int stop_signal(MPI_Comm comm);

/// "SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1" (or "signal N").
const char* stop_signal_name(int signal);

}  // namespace eddy
