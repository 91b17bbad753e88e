// solver/solid_forces.hpp: the force and torque on each [[solid]] body by momentum exchange (kernels/solid_forces.hpp),
// summed over the ranks in fixed point, so every rank count gives the same bits; their drag and lift coefficients;
// the series of samples a run writes to <case>_forces.csv and sums up at its end.
#pragma once

#include <array>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "solver/simulation.hpp"

namespace eddy {

class ForcesCsvFile;

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

/// Drag and lift coefficients of a force F on solid `s` (finalized: lattice units, unit directions d and l):
///   C_D = 2 F.d / (rho0 U^2 A),  C_L = 2 F.l / (rho0 U^2 A),
/// rho0 = 1 (the lattice density; units.density in SI, where F, U and A carry the same factors), U and A the
/// solid's reference_velocity and reference_area. Dimensionless: the same numbers in lattice and SI units.
struct ForceCoefficients {
  double drag = 0.0, lift = 0.0;
};
ForceCoefficients force_coefficients(const SolidConfig& s, const SolidForce& f);

/// The closing summary of one solid's samples (`time` in the CSV's units, `drag` and `lift` their C_D and C_L):
/// the window (samples at t >= forces.statistics_from, or the second half), mean, min, max and amplitude of C_D and
/// C_L, and the dominant frequency of C_L with the Strouhal number St = f L / U (solver/force_statistics.hpp), or why
/// there is none. Lines start with "forces      " or spaces; each ends with a newline.
std::string force_summary(const CaseConfig& config, const SolidConfig& s, const std::vector<double>& time,
                          const std::vector<double>& drag, const std::vector<double>& lift);

/// The forces of the solids with `forces = true`, sampled every forces.every steps (one pass over the cut links per
/// sample, none on the other steps): the instantaneous momentum exchange of the step just taken. Rank 0 keeps the
/// samples and appends them to <output>/<case>_forces.csv (ForcesCsvFile, io/forces_csv.hpp: buffered, written at
/// every flush()): step, time, then per solid <name>_Fx, _Fy, _Fz, _Tx, _Ty, _Tz, _CD, _CL (lattice units; N, N m
/// and s under [units]; coefficients dimensionless). A restarted run (simulation at step s > 0) continues the file
/// of the run it restarts: its rows up to step s are kept (and enter the summary), the later ones are written
/// again; a file it cannot continue (other solids, unreadable) is renamed "<file>.before_step_<s>" with a warning on
/// `log`, never overwritten.
class ForceSeries {
 public:
  /// Collective (every rank takes the samples; rank 0 writes).
  ForceSeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log);
  ~ForceSeries();
  ForceSeries(const ForceSeries&) = delete;
  ForceSeries& operator=(const ForceSeries&) = delete;

  bool enabled() const { return !solids_.empty(); }
  /// Advances `steps` steps, sampling after each step that is a multiple of forces.every (collective). Without
  /// solids with forces, simulation.advance(steps).
  void advance(Simulation& simulation, std::int64_t steps);
  /// The progress line's part for the step just taken (collective), "  F[name] = (fx, fy, fz) C_D x C_L y" per
  /// solid: this step's sample, or one taken now (not written) when the step is not a sample step.
  std::string progress(Simulation& simulation);
  /// Writes the buffered rows (rank 0): before a checkpoint, at reports and at the end. Throws OutputError.
  void flush();
  /// The closing summary of every solid with forces (force_summary), on rank 0's `log`.
  void print_summary(std::ostream& log) const;

 private:
  std::vector<std::string> names() const;
  /// The forces of the step just taken (collective).
  std::vector<SolidForce> take(Simulation& simulation) const;
  void record(std::int64_t step, const std::vector<SolidForce>& forces);

  const CaseConfig& config_;
  bool writer_ = false;              // rank 0: keeps the series, writes the file
  std::vector<std::size_t> solids_;  // indices of the solids with forces = true
  std::unique_ptr<ForcesCsvFile> file_;
  std::vector<double> time_;                      // sample times (the CSV's time column)
  std::vector<std::vector<double>> drag_, lift_;  // per solid with forces: C_D and C_L of each sample
  std::int64_t last_step_ = -1;                   // the step of the last sample taken
  std::vector<SolidForce> last_;                  // its forces
};

}  // namespace eddy
