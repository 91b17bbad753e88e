#include "solver/stop_signal.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace eddy {

namespace {

constexpr int kStopSignals[4] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_announce = 0;

/// The announcement of the first signal: async-signal-safe (constant texts and write(2)). SIGINT's starts on a
/// new line, after the terminal's "^C".
void announce(int signal) {
#define EDDY_STOP_TEXT(name) "eddy: " name " received: stopping after the current steps, with a checkpoint (another signal changes nothing)\n"
  const char* text = signal == SIGINT    ? "\n" EDDY_STOP_TEXT("SIGINT")
                     : signal == SIGHUP  ? EDDY_STOP_TEXT("SIGHUP")
                     : signal == SIGUSR1 ? EDDY_STOP_TEXT("SIGUSR1")
                                         : EDDY_STOP_TEXT("SIGTERM");
#undef EDDY_STOP_TEXT
  const ssize_t ignored = ::write(STDOUT_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void record_signal(int signal) {
  if (g_signal != 0) return;  // the stop is under way already
  g_signal = signal;
  if (g_announce) announce(signal);
}

}  // namespace

StopSignalScope::StopSignalScope(bool announce_first) {
  g_signal = 0;
  g_announce = announce_first ? 1 : 0;
  for (int k = 0; k < 4; ++k) previous_[k] = std::signal(kStopSignals[k], record_signal);
}

StopSignalScope::~StopSignalScope() {
  for (int k = 0; k < 4; ++k) std::signal(kStopSignals[k], previous_[k] == SIG_ERR ? SIG_DFL : previous_[k]);
}

int stop_signal(MPI_Comm comm) {
  int mine = g_signal, any = mine;
  if (comm != MPI_COMM_NULL) MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}

const char* stop_signal_name(int signal) {
  switch (signal) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    default: return "a signal";
  }
}

}  // namespace eddy
