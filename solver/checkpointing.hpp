// Checkpoints of a Simulation (io/checkpoint.hpp holds the file format): the raw state of every rank's block goes
// into one data file and manifest; a restart on any rank count reads its own block back, so the run continues bit
// for bit. The newest two checkpoints of a run are kept; older ones are removed once a newer one is complete.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Where the case's checkpoints go: checkpoint.directory, or "<output directory>/checkpoints".
std::string checkpoint_directory(const CaseConfig& config);

/// Writes the current state as "<directory>/<case>_checkpoint_<step, 8 digits>.{data,toml}" and returns the
/// manifest's path (collective). Throws CollectiveOutputError on every rank when it cannot be written.
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
/// removed once a newer one is complete.
class CheckpointSeries {
 public:
  /// write_state_checkpoint (collective; throws as it does), then "  wrote checkpoint ..." on `log`; returns the
  /// manifest's path.
  std::string write(const CaseConfig& config, Simulation& sim, std::ostream& log);
  /// The step of the newest checkpoint of this run, -1 before the first.
  std::int64_t last_step() const { return last_step_; }
  /// The manifest of the newest checkpoint (last_step() >= 0).
  const std::string& newest() const { return paths_.back(); }

 private:
  std::vector<std::string> paths_;
  std::int64_t last_step_ = -1;
};

}  // namespace eddy
