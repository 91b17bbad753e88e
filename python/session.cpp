// Session and the module's MPI lifetime (python/session.hpp).
#include "python/session.hpp"

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "python/errors.hpp"
#include "solver/mpi_check.hpp"

namespace py = pybind11;

namespace eddy::python {

namespace {

std::vector<std::weak_ptr<Session>>& live_sessions() {
  static std::vector<std::weak_ptr<Session>> sessions;
  return sessions;
}

bool g_started_mpi = false;  // this module called MPI_Init_thread, so it calls MPI_Finalize at exit

}  // namespace

PythonStdout::~PythonStdout() {
  if (!pending_.empty()) write_pending();
}

int PythonStdout::overflow(int c) {
  if (c == traits_type::eof()) return 0;
  pending_ += static_cast<char>(c);
  if (c == '\n') write_pending();
  return c;
}

std::streamsize PythonStdout::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, std::size_t(n));
  if (std::memchr(s, '\n', std::size_t(n)) != nullptr) write_pending();
  return n;
}

int PythonStdout::sync() {
  write_pending();
  return 0;
}

void PythonStdout::write_pending() {
  if (pending_.empty() || !Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  try {
    const py::object out = py::module_::import("sys").attr("stdout");
    if (!out.is_none()) {
      out.attr("write")(py::str(pending_));
      out.attr("flush")();
    }
  } catch (const py::error_already_set&) {
    // a closed or broken stdout: the lines are dropped, the run goes on
  }
  pending_.clear();
}

Session::Session(const CaseConfig& config, MPI_Comm world, bool quiet, const std::string& restart)
    : log_(quiet ? nullptr : &stdout_) {
  EDDY_MPI_CHECK(MPI_Comm_rank(world, &rank_));
  EDDY_MPI_CHECK(MPI_Comm_size(world, &size_));
  run_ = std::make_unique<CaseRun>(config, world, log_, restart);
}

Session::~Session() { destroy(); }

CaseRun& Session::run() {
  if (closed_ || !run_) {
    throw ClosedError("the simulation is closed (Simulation.close()); create a new one to go on");
  }
  return *run_;
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  if (run_) {
    log_.flush();
    run_->release_output();
  }
}

void Session::destroy() {
  close();
  run_.reset();
  log_.flush();
}

void register_session(const std::shared_ptr<Session>& session) {
  auto& sessions = live_sessions();
  sessions.erase(std::remove_if(sessions.begin(), sessions.end(), [](const auto& s) { return s.expired(); }),
                 sessions.end());
  sessions.push_back(session);
}

void shutdown() {
  for (const std::weak_ptr<Session>& weak : live_sessions()) {
    if (const std::shared_ptr<Session> session = weak.lock()) session->destroy();
  }
  live_sessions().clear();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_started_mpi && !finalized) MPI_Finalize();
  g_started_mpi = false;
}

void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  EDDY_MPI_CHECK(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
  g_started_mpi = true;
}

MPI_Comm communicator_from_fortran(long long handle, bool given) {
  if (!given) return MPI_COMM_WORLD;
  return MPI_Comm_f2c(static_cast<MPI_Fint>(handle));
}

}  // namespace eddy::python
