// Running the eddy command line from tests: `eddy run case.toml` in a test's temporary directory.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
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

}  // namespace eddy::test
