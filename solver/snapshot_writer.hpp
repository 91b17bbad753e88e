// The output files of `eddy run`: VTK snapshots of the fields (and of the particles) listed in .pvd collections, and
// the cavity's centreline CSV.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/vtk_output.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Which outputs SnapshotWriter::write writes: those scheduled at the step (the volume when output.every divides it,
/// each slice when its every does), or all that are not written at this step yet (the initial and final state, a
/// stop, an instability, Python's write_snapshot).
enum class SnapshotDue { scheduled, all };

/// True when the volume snapshot or a slice is scheduled at `step` (an every > 0 that divides it).
bool snapshot_due(const CaseConfig& config, std::int64_t step);
/// The first step after `t` at which the volume snapshot or a slice is scheduled; INT64_MAX when none is.
std::int64_t next_snapshot_step(const CaseConfig& config, std::int64_t t);

/// Writes VTK snapshots and keeps the .pvd collections current: the volume snapshots (the nodes of [output] region
/// and stride, solver/output_box.hpp) listed in <case>.pvd, and each [[output.slice]] as its own series listed in
/// <case>_slice_<name>.pvd. One rank writes a .vti; several ranks each write a piece and rank 0 the .pvti that
/// joins them (the .pvd then lists the .pvti files). With particles each volume snapshot also writes their .vtp (or
/// pieces and a .pvtp), listed in <case>_particles.pvd. Writes no volume VTK with output.vtk = false (slices still
/// are). Throws OutputError when a file cannot be written.
class SnapshotWriter {
 public:
  /// `config` must outlive the writer.
  explicit SnapshotWriter(const CaseConfig& config);

  /// Writes the outputs `due` at the current time step (collective) and logs "  wrote <path>" on `log`; with
  /// statistics.average also the statistics' profile file (solver/statistics_profile.hpp) with the volume
  /// snapshot, with output.vtk = false too.
  /// With output.asynchronous (the default) the files of a scheduled step are staged in host memory and written by
  /// a background thread while the run goes on; they are listed in their .pvd (and "wrote" logged, with the rate)
  /// once every rank's files are complete: at the next write, at a report line (poll) or at complete(). The files
  /// of SnapshotDue::all are written at once. A failed write throws OutputError on every rank (exit status 5) at
  /// that point; the files it wrote are complete (each renamed from a temporary name), never listed half.
  void write(Simulation& sim, std::ostream& log, SnapshotDue due = SnapshotDue::all);
  /// The first half of write(sim, log, SnapshotDue::scheduled), for a step that also checks the state: stages the
  /// step's files (collective) and, when it staged any, sets `diagnostics` to this rank's sim.diagnose() from the
  /// same read-out of the populations and returns true. Nothing is written until start_staged(); a write() or
  /// stage_scheduled() before it writes the staged files in line first (so an instability found in between still
  /// leaves them). Returns false, `diagnostics` untouched, when nothing was staged.
  bool stage_scheduled(Simulation& sim, std::ostream& log, Diagnostics& diagnostics);
  /// The second half: starts the staged files' write (in the background with output.asynchronous, else in line)
  /// and writes the particles' snapshot of the step (collective; nothing when nothing is staged).
  void start_staged(Simulation& sim, std::ostream& log);
  /// Completes the background write when every rank's has finished (collective; nothing when none is pending):
  /// called at report lines, so a write's error shows there.
  void poll(Simulation& sim, std::ostream& log);
  /// Waits for the background write and lists its files (collective; nothing when none is pending). Throws
  /// OutputError (every rank alike) when it failed.
  void complete(Simulation& sim, std::ostream& log);
  /// Writes the surfaces of the case's solids once, as <case>_solids.vtp (io/surface_output.hpp; rank 0), and lists
  /// it in the .pvd with every snapshot (part 1), so ParaView draws the bodies over the flow. Nothing without
  /// solids or with output.vtk = false. Call after resume(). Throws OutputError.
  void write_solid_surfaces(const Simulation& sim, std::ostream& log);
  /// The step of the last volume snapshot written, -1 before the first.
  std::int64_t last_step() const { return last_step_; }

  /// After a restart (rank 0): the collections take over the earlier run's entries up to the restored step, so
  /// ParaView sees one time series; entries after it belong to the part of an earlier run that the restart
  /// replaces. eddy's snapshot names carry the step, so a changed time scale (physics.length or velocity, [units])
  /// re-times the earlier entries instead of mixing two scales. Done also with output.vtk = false (then a
  /// collection that cannot be rewritten is only a warning), so a later restart with VTK does not list a replaced
  /// branch. An unreadable collection is reported and started afresh.
  void resume(const Simulation& sim, std::ostream& log);

 private:
  void write_particles(Simulation& sim, std::ostream& log);
  void write_pvti(const std::string& path, const OutputBox& box, const Simulation& sim) const;
  /// A file of a step: name without extension, its nodes, the slice it belongs to (-1: the volume snapshot).
  struct PendingFile {
    std::string base;
    OutputBox box;
    int slice = -1;
  };
  /// The files `due` now: the statistics' profile written, the files staged and held (stage); their diagnostics
  /// into `diagnostics` when given. Returns whether files were staged.
  bool stage_due(Simulation& sim, std::ostream& log, SnapshotDue due, Diagnostics* diagnostics);
  /// Stages `files` of the current step (collective) and holds their write (held_job_) for start_staged().
  void stage(Simulation& sim, std::vector<PendingFile> files, Diagnostics* diagnostics);
  /// Writes a held step in line (and its particles).
  void finish_held(Simulation& sim, std::ostream& log);

  const CaseConfig& config_;
  OutputScaling scaling_;
  PvdCollection collection_;
  std::vector<PvdCollection> slice_collections_;  ///< one per [[output.slice]], in file order
  std::vector<std::int64_t> slice_last_step_;     ///< the step of each slice's last file, -1 before the first
  std::future<double> pending_;                   ///< the write of the staged step: its seconds; invalid when none
  std::vector<PendingFile> pending_files_;        ///< what that write makes, to list once it is complete
  std::int64_t pending_step_ = -1;
  std::size_t pending_bytes_ = 0;  ///< this rank's staged bytes
  bool pending_background_ = false;
  std::function<double()> held_job_;  ///< the staged step's write, not started yet; empty when none is held
  bool held_background_ = false;      ///< whether start_staged() runs it in the background
  bool held_particles_ = false;       ///< whether start_staged() writes the step's particles
  double pending_stage_seconds_ = 0;  ///< how long the run paused to stage it (the slowest rank)
  PvdCollection particle_collection_;
  std::int64_t last_step_ = -1;
};

/// Writes "<output directory>/<case>_centerlines.csv": u/U on the vertical and v/U on the horizontal centreline of
/// the cavity (positions divided by the side), and logs its path. Collective; rank 0 writes. Throws OutputError.
void write_centerlines(const CaseConfig& config, Simulation& sim, std::ostream& log);

}  // namespace eddy
