// solver/solid_forces.hpp: the force and torque on each [[solid]] body by momentum exchange (kernels/solid_forces.hpp),
// summed over the ranks in fixed point, so every rank count gives the same bits.
#pragma once

#include <array>
#include <iosfwd>
#include <string>
#include <vector>

#include "solver/simulation.hpp"

namespace eddy {

/// Force and torque (about the solid's centre: a sphere's centre, a cylinder's axis midpoint, a box's centre) on one
/// solid, lattice units, for the step just taken.
struct SolidForce {
  std::array<double, 3> force{};
  std::array<double, 3> torque{};
};

/// The global fixed-point sums (kForceSums per solid) from every rank's local_solid_force_sums (collective).
std::vector<unsigned long long> global_solid_force_sums(Simulation& simulation);

/// The force and torque on each of the case's solids (collective; config.solids order).
std::vector<SolidForce> solid_forces(Simulation& simulation);

/// The forces of the solids with `forces = true`, sampled at every report (every report_every steps and at the end:
/// one pass over the cut links, no cost on the other steps): the instantaneous momentum exchange of the step just
/// taken. Rank 0 keeps the rows and rewrites <output>/<case>_forces.csv atomically after each sample: step, time,
/// then <name>_Fx, _Fy, _Fz, _Tx, _Ty, _Tz per solid (lattice units; N, N m and s under [units]). A run restarted
/// from a checkpoint starts the file again with its own reports.
class ForceSeries {
 public:
  /// Collective: refuses (CollectiveInputError) a run whose blocks are out of core on any rank. A restarted run
  /// (simulation at step s > 0) continues the forces file of the run it restarts: its rows up to step s are kept,
  /// the later ones replaced; a file it cannot continue (other solids, unreadable) is renamed
  /// "<file>.before_step_<s>" with a warning on `log`, never overwritten.
  ForceSeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log);
  bool enabled() const { return !solids_.empty(); }
  /// Samples the step just taken (collective), writes the file on rank 0 and returns the progress line's part,
  /// "  F[name] = (fx, fy, fz)" per solid.
  std::string sample(Simulation& simulation);

 private:
  std::string path() const;
  std::vector<std::string> names() const;
  void continue_file(std::int64_t start, std::ostream& log);

  const CaseConfig& config_;
  std::vector<std::size_t> solids_;  // indices of the solids with forces = true
  std::vector<std::vector<double>> columns_;
};

}  // namespace eddy
