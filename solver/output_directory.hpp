// The directories a run writes into, prepared before its first step: every path it will form is checked against
// the system's limits, the directories are created, all ranks are shown to see the same ones, each is locked
// against a second run, and temporary files that killed runs of the case left behind are removed.
#pragma once

#include <mpi.h>

#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {

/// Name of the lock file a run holds in each directory it writes into.
inline constexpr const char* kLockFileName = "eddy.lock";

/// The output and checkpoint directories of a run, ready for writing; the locks are released when it is destroyed.
/// Collective over `world`; rank 0 holds the locks, removes stale files and writes the lines to `log`.
///
/// In order, before anything is written:
///  1. Paths: every file name the run can form in them (snapshots, pieces, collections, centerlines, checkpoints,
///     their temporary names "<file>.tmp.<pid>", with the step count's digits and a 7-digit PID) must fit the file
///     system's NAME_MAX, every path PATH_MAX (io/path_limits.hpp), and a checkpoint's temporary data file a name
///     MPI_File_open takes (MpiIoName). Checkpoint paths are checked as errors with checkpoint.every > 0, otherwise
///     (only a stop signal writes one) as a warning.
///  2. The output directory (with output.vtk or output.centerlines) and the checkpoint directory (with
///     checkpoint.every > 0) are created (ensure_writable_directory).
///  3. On several ranks: rank 0 writes a file of random content into each, every rank reads it back, rank 0 removes
///     it; a rank that does not read the same content means the directory is not one directory shared by the ranks.
///  4. Each directory is locked (kLockFileName: PID, host, process start time, case); a lock of a live process is an
///     error naming it, one whose process is gone from this host is taken over with a line saying so.
///  5. Files "<case file>.tmp" and "<case file>.tmp.<pid>" of this case (see is_case_temporary) older than the run's
///     start are removed from them, with a line saying so.
/// Throws CollectiveOutputError (exit code 5) on every rank, with the lowest failing rank's message.
class OutputDirectories {
 public:
  OutputDirectories(const CaseConfig& config, MPI_Comm world, std::ostream& log);
  ~OutputDirectories();
  OutputDirectories(const OutputDirectories&) = delete;
  OutputDirectories& operator=(const OutputDirectories&) = delete;

 private:
  /// Removes the lock files that still hold this run's contents (rank 0).
  void release() noexcept;

  struct Lock {
    std::string path, contents;
  };
  std::vector<Lock> locks_;
  int rank_ = 0;
};

/// True when `file` (a name without directory) is a temporary file that a run of case `case_name` writes:
/// "<name>.pvd", "<name>_<step>.vti", "<name>_<step>_r<rank>.vti", "<name>_<step>.pvti", the particle and
/// centerline files and "<name>_checkpoint_<step>.data" or ".toml", followed by ".tmp" or ".tmp.<pid>".
bool is_case_temporary(const std::string& file, const std::string& case_name);

}  // namespace eddy
