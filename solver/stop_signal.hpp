// Graceful stop: SIGTERM and SIGINT (what batch schedulers send before the wall-time limit, and Ctrl-C) only set a
// flag; the time loop checks it between chunks of steps, on every rank together, then writes a checkpoint and ends
// the run normally (solver/run_case.cpp).
#pragma once

#include <mpi.h>

namespace eddy {

/// Installs the handlers for its lifetime and restores the previous ones afterwards.
class StopSignalScope {
 public:
  StopSignalScope();
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;

 private:
  void (*previous_term_)(int);
  void (*previous_int_)(int);
};

/// The signal received on any rank of `comm` (MPI_COMM_NULL: this process), 0 if none. Collective.
int stop_signal(MPI_Comm comm);

}  // namespace eddy
