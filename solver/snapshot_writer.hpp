// The output files of `eddy run`: VTK snapshots of the fields (and of the particles) listed in .pvd collections, and
// the cavity's centreline CSV.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "io/case_config.hpp"
#include "io/vtk_output.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Writes VTK snapshots and keeps the .pvd collection current. One rank writes a .vti of the whole grid; several
/// ranks each write a piece and rank 0 the .pvti that joins them (the .pvd then lists the .pvti files). With
/// particles each snapshot also writes their .vtp (or pieces and a .pvtp), listed in <case>_particles.pvd.
/// Writes no VTK with output.vtk = false. Throws OutputError when a file cannot be written.
class SnapshotWriter {
 public:
  /// `config` must outlive the writer.
  explicit SnapshotWriter(const CaseConfig& config);

  /// Writes the fields of the current time step (collective) and logs "  wrote <path>" on `log`; with
  /// statistics.average also the statistics' profile file (solver/statistics_profile.hpp), with output.vtk = false
  /// too.
  void write(Simulation& sim, std::ostream& log);
  /// Writes the surfaces of the case's solids once, as <case>_solids.vtp (io/surface_output.hpp; rank 0), and lists
  /// it in the .pvd with every snapshot (part 1), so ParaView draws the bodies over the flow. Nothing without
  /// solids or with output.vtk = false. Call after resume(). Throws OutputError.
  void write_solid_surfaces(const Simulation& sim, std::ostream& log);
  /// The step of the last snapshot written, -1 before the first.
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
  void write_pvti(const std::string& path, const Simulation& sim) const;

  const CaseConfig& config_;
  OutputScaling scaling_;
  PvdCollection collection_;
  PvdCollection particle_collection_;
  std::int64_t last_step_ = -1;
};

/// Writes "<output directory>/<case>_centerlines.csv": u/U on the vertical and v/U on the horizontal centreline of
/// the cavity (positions divided by the side), and logs its path. Collective; rank 0 writes. Throws OutputError.
void write_centerlines(const CaseConfig& config, Simulation& sim, std::ostream& log);

}  // namespace eddy
