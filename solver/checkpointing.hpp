// Checkpoints of a Simulation (io/checkpoint.hpp holds the file format): the raw state of every rank's block goes
// into one data file and manifest; a restart on any rank count reads its own block back, so the run continues bit
// for bit. The newest two checkpoints of a run are kept; older ones are removed once a newer one is complete.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <future>
#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/checkpoint.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Where the case's checkpoints go: checkpoint.directory, or "<output directory>/checkpoints".
std::string checkpoint_directory(const CaseConfig& config);

/// Host bytes one staged checkpoint of `decomposition`'s block holds (this rank's share): the 19 population slots in
/// the storage type, T, the two-way particles' force (3 values) and the statistics' sums (doubles) of every interior
/// cell; the particle records are left out. 0 when the case writes no checkpoints ([checkpoint] every = 0; a stop
/// signal's checkpoint then needs the same memory, which is not checked).
double checkpoint_staging_bytes(const CaseConfig& config, const Decomposition& decomposition);

/// A checkpoint of one step staged in host memory: what write_staged_checkpoint writes.
struct StagedCheckpoint {
  std::string stem;  ///< "<directory>/<case>_checkpoint_<step, 8 digits>"
  CheckpointManifest manifest;
  std::vector<std::vector<unsigned char>> data;  ///< this rank's block of each field (io/checkpoint.hpp)
  std::vector<unsigned char> records;            ///< this rank's particle records
  CheckpointBlock block;
  std::size_t bytes() const;  ///< this rank's staged bytes
};

/// Copies the current state into host memory and makes sure the checkpoint directory exists (collective; the state
/// is `sim`'s after its last step, so synchronize first). Throws CollectiveOutputError on every rank when the
/// directory cannot be made.
StagedCheckpoint stage_state_checkpoint(const CaseConfig& config, Simulation& sim);

/// Writes a staged checkpoint (collective over `comm`, the decomposition's communicator or a duplicate of it) and
/// returns the manifest's path. Throws CollectiveOutputError on every rank when it cannot be written.
std::string write_staged_checkpoint(const StagedCheckpoint& staged, MPI_Comm comm);

/// Writes the current state as "<directory>/<case>_checkpoint_<step, 8 digits>.{data,toml}" and returns the
/// manifest's path (collective): stage_state_checkpoint, then write_staged_checkpoint. Throws CollectiveOutputError
/// on every rank when it cannot be written.
std::string write_state_checkpoint(const CaseConfig& config, Simulation& sim);

/// Restores the state of the checkpoint whose manifest is `manifest_path` (collective). Throws CheckpointError on
/// every rank when it is missing, truncated, corrupted, or written for another grid, storage or set of fields (the
/// statistics' sums may be missing on either side: a case with [statistics] then starts its averages afresh, one
/// without ignores them; present on both, they must hold the same sums per cell), and
/// CollectiveInputError when its step lies beyond run.steps. Returns the name of the case that wrote it (the
/// manifest's `case`), which may differ from config.name.
std::string restore_state_checkpoint(const CaseConfig& config, Simulation& sim, const std::string& manifest_path);

/// Removes a checkpoint written earlier (manifest first, so no manifest names a missing data file); rank 0 only,
/// errors ignored.
void remove_checkpoint(const std::string& manifest_path);

/// The checkpoints one run writes: each one logged with its size and speed; the newest two are kept, older ones
/// removed once a newer one is complete. A checkpoint is either written in line (write) or staged in host memory
/// and written by a background thread while the run goes on (start), one at a time.
class CheckpointSeries {
 public:
  CheckpointSeries() = default;
  CheckpointSeries(const CheckpointSeries&) = delete;
  CheckpointSeries& operator=(const CheckpointSeries&) = delete;
  /// Waits for a background write still running (its files are then complete or removed; an error it met is not
  /// reported: complete() reports it) and frees the writer's communicator.
  ~CheckpointSeries();

  /// Completes a background write, then write_state_checkpoint (collective; throws as it does) and
  /// "  wrote checkpoint ..." on `log`; returns the manifest's path.
  std::string write(const CaseConfig& config, Simulation& sim, std::ostream& log);
  /// Completes the previous background write, stages the current state in host memory (the run pauses for the
  /// device-to-host copy only) and writes it on a background thread over a duplicate of the decomposition's
  /// communicator (collective). Writes in line instead (write) with output.asynchronous = false, or where MPI was
  /// started without MPI_THREAD_MULTIPLE (MPI-IO from a second thread needs it). Throws as write() does.
  void start(const CaseConfig& config, Simulation& sim, std::ostream& log);
  /// Completes the background write when every rank's has finished (collective; nothing when none is pending):
  /// called at report lines, so a failed write shows there.
  void poll(Simulation& sim, std::ostream& log);
  /// Waits for the background write, then keeps and logs it as write() does (collective; nothing when none is
  /// pending). Throws CollectiveOutputError (exit status 5, every rank alike) when it failed; its files are then
  /// not there, the earlier checkpoints are intact.
  void complete(Simulation& sim, std::ostream& log);
  /// True while a background write is pending (started, not completed).
  bool pending() const { return pending_.valid(); }
  /// The step of the newest complete checkpoint of this run, -1 before the first.
  std::int64_t last_step() const { return last_step_; }
  /// The manifest of the newest complete checkpoint (last_step() >= 0).
  const std::string& newest() const { return paths_.back(); }

 private:
  /// Keeps `path` (step `step`) as the newest, removes the third newest (rank 0).
  void keep(const std::string& path, std::int64_t step, const Simulation& sim);

  std::vector<std::string> paths_;
  std::int64_t last_step_ = -1;
  /// What a background write gives back: the manifest's path, the write's seconds, and the populations' array to
  /// recycle (Simulation::recycle_populations).
  struct Written {
    std::string path;
    double seconds = 0;
    std::vector<unsigned char> populations;
  };
  /// The background write; invalid when none is pending.
  std::future<Written> pending_;
  std::int64_t pending_step_ = -1;
  double pending_stage_seconds_ = 0;  ///< how long the run paused to stage it
  MPI_Comm writer_comm_ = MPI_COMM_NULL;  ///< the background writer's communicator (MPI_Comm_dup), made once
};

/// True when MPI runs with MPI_THREAD_MULTIPLE, so a background thread may call MPI-IO.
bool mpi_allows_background_io();

}  // namespace eddy
