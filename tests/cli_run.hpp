// Running the eddy command line from tests: `eddy run case.toml` in a test's temporary directory.
#pragma once

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>

#include "tests/file_helpers.hpp"

namespace eddy::test {

/// Runs `eddy run case.toml --output out ARGS` in `dir` (one OpenMP thread, no stdin); returns the exit code (-1 if
/// it did not exit), its stdout followed by its stderr in `out`. EDDY_EXECUTABLE: every test target defines it.
inline int run_eddy(const TempDir& dir, const std::string& args, std::string& out) {
  const std::string command = "cd '" + dir.path().string() + "' && OMP_NUM_THREADS=1 '" + std::string(EDDY_EXECUTABLE) +
                              "' run case.toml --output out " + args + " </dev/null >stdout.txt 2>stderr.txt";
  const int status = std::system(command.c_str());
  out = read_text(dir.file("stdout.txt")) + read_text(dir.file("stderr.txt"));
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Runs `eddy run case.toml --output out ARGS` in `dir` under `ulimit -f 8000` (files up to 4 MB: a full disk, as the
/// writes see it), one OpenMP thread, at most 300 s, output into limit.log and `log`; returns std::system's status
/// (WIFEXITED and WEXITSTATUS tell how it ended; a signal is a test failure). PMIX_MCA_gds=hash: MPI's start-up
/// keeps its data in memory, not in a shared-memory file the limit would cut (SIGXFSZ in MPI_Init under ctest).
inline int run_eddy_with_file_limit(const TempDir& dir, const std::string& args, std::string& log) {
  const std::string command = "cd '" + dir.path().string() +
                              "' && ulimit -f 8000 && PMIX_MCA_gds=hash OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 "
                              "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 '" +
                              std::string(EDDY_EXECUTABLE) + "' run case.toml --output out " + args +
                              " </dev/null >limit.log 2>&1";
  const int status = std::system(command.c_str());
  log = read_text(dir.file("limit.log"));
  return status;
}

/// Runs `eddy run case.toml --output <out> ARGS` in `dir` on `ranks` ranks (more than 1: under `mpiexec`, the
/// launcher "<mpiexec> <flags> <numproc flag>" that the rank count follows; oversubscription allowed, as root too),
/// one OpenMP thread per rank, at most 300 s; returns the exit code (-1 if it did not exit), its output in `log`
/// (also kept as <out>.log in `dir`).
inline int run_eddy_ranks(const TempDir& dir, const std::string& out, int ranks, const std::string& args,
                          std::string& log, const std::string& mpiexec) {
  std::string launcher = "'" + std::string(EDDY_EXECUTABLE) + "'";
  if (ranks > 1) launcher = mpiexec + " " + std::to_string(ranks) + " " + launcher;
  const std::string command = "cd '" + dir.path().string() +
                              "' && OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                              "OMPI_MCA_rmaps_base_oversubscribe=1 timeout 300 " +
                              launcher + " run case.toml --output " + out + " " + args + " </dev/null >" + out +
                              ".log 2>&1";
  const int status = std::system(command.c_str());
  log = read_text(dir.file(out + ".log"));
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The value of `name` ("max|u|", "mass drift", ...) on the last of a run's progress lines that has it (`out`, as
/// run_eddy gives it), or NaN where none has.
inline double last_reported(const std::string& out, const std::string& name) {
  const std::regex pattern(std::regex_replace(name, std::regex(R"([|])"), R"(\|)") + " +([-+0-9.eE]+)");
  double value = NAN;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), pattern); it != std::sregex_iterator(); ++it)
    value = std::stod((*it)[1]);
  return value;
}

}  // namespace eddy::test
