#include "solver/stop_signal.hpp"

#include <csignal>

namespace eddy {

namespace {
volatile std::sig_atomic_t g_signal = 0;
extern "C" void record_signal(int signal) { g_signal = signal; }
}  // namespace

StopSignalScope::StopSignalScope() {
  g_signal = 0;
  previous_term_ = std::signal(SIGTERM, record_signal);
  previous_int_ = std::signal(SIGINT, record_signal);
}

StopSignalScope::~StopSignalScope() {
  std::signal(SIGTERM, previous_term_ == SIG_ERR ? SIG_DFL : previous_term_);
  std::signal(SIGINT, previous_int_ == SIG_ERR ? SIG_DFL : previous_int_);
}

int stop_signal(MPI_Comm comm) {
  int mine = g_signal, any = mine;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}

}  // namespace eddy
