// The directories a run writes into, prepared before its first step: every path it will form is checked against
// the system's limits, the directories are created and all ranks are shown to see the same ones.
#pragma once

#include <mpi.h>

#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {

/// The output and checkpoint directories of a run, ready for writing. Collective over `world`; rank 0 writes the
/// lines to `log`.
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
/// Throws CollectiveOutputError (exit code 5) on every rank, with the lowest failing rank's message.
class OutputDirectories {
 public:
  OutputDirectories(const CaseConfig& config, MPI_Comm world, std::ostream& log);
  OutputDirectories(const OutputDirectories&) = delete;
  OutputDirectories& operator=(const OutputDirectories&) = delete;
};

}  // namespace eddy
