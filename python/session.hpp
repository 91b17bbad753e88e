// Session: one run of a case driven from Python (python/module.cpp): the solver's CaseRun (solver/run_case.hpp, the
// loop `eddy run` uses) with its log going to Python's sys.stdout, and the state the views need to stay safe after
// Simulation.close(). MPI's lifetime in the interpreter is here too.
#pragma once

#include <mpi.h>

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "io/case_config.hpp"
#include "solver/run_case.hpp"

namespace eddy::python {

/// Python's sys.stdout as a std::streambuf: whole lines (and what is pending at a flush) are written with
/// sys.stdout.write, the GIL taken for it. Errors writing (a closed stdout) drop the text, as `eddy run` does when
/// its standard output is closed.
class PythonStdout : public std::streambuf {
 public:
  ~PythonStdout() override;

 protected:
  int overflow(int c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void write_pending();
  std::string pending_;
};

/// One simulation: the CaseRun, open until close(). Every view (python/field_array.hpp) shares ownership of its
/// Session, so the device memory it points at lives as long as the last view, whatever the order in which Python
/// drops them; after close() the views refuse to hand out their memory.
class Session {
 public:
  /// Sets up the run (CaseRun's constructor: collective over `world`); `quiet` sends the log nowhere.
  Session(const CaseConfig& config, MPI_Comm world, bool quiet, const std::string& restart);
  ~Session();

  /// The run; throws ClosedError (Python: ValueError, python/errors.hpp) after close().
  CaseRun& run();
  bool closed() const { return closed_; }
  /// Ends the simulation: no more stepping, output or views; the output directories' locks are released at once.
  /// The device memory is released with the Session, when the Simulation and the last view have gone.
  void close();
  /// close() and the device memory released now, whatever views remain (interpreter exit, before MPI ends).
  void destroy();

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  PythonStdout stdout_;
  std::ostream log_;
  std::unique_ptr<CaseRun> run_;
  bool closed_ = false;
  int rank_ = 0, size_ = 1;
};

/// Registers a live session for shutdown().
void register_session(const std::shared_ptr<Session>& session);
/// At interpreter exit (registered with Python's atexit by eddy/__init__.py): destroys every session still alive,
/// then ends MPI if this module started it.
void shutdown();
/// Starts MPI (MPI_THREAD_MULTIPLE: background checkpoints) unless something (mpi4py) already has; called when the module is imported.
void ensure_mpi();
/// The communicator of `handle`: MPI_COMM_WORLD for 0, else a Fortran handle (mpi4py's Comm.py2f()).
MPI_Comm communicator_from_fortran(long long handle, bool given);

}  // namespace eddy::python
