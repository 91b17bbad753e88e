// The kinetic-energy time series of a run ([output] energy_every): <case>_energy.csv in the output directory.
//
// Every energy_every steps the fluid cells' mean kinetic energy per unit mass and its dissipation rate:
//   E_k = (1 / N_fluid) sum_x |u(x)|^2 / 2,     epsilon = -dE_k / dt
// (the quantities of the Taylor-Green benchmark, Brachet et al. 1983; the density weighting of the compressible
// E_k is left out, as in the incompressible reference data). epsilon in a row is the backward difference over the
// interval that ends at that row, -(E_k(t) - E_k(t - dt)) / dt: second-order accurate at the interval's midpoint
// t - dt / 2 (the first row of a run has no interval: NaN). Units as the other output: E_k in U^2 and epsilon in
// U^3 / L with time in L / U (the case's [physics] velocity and length), or m^2/s^2, m^2/s^3 and s with [units].
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>

#include "io/case_config.hpp"
#include "solver/simulation.hpp"

namespace eddy {

class ForcesCsvFile;

class EnergySeries {
 public:
  /// Rank 0 opens (or, on a restart, continues) the file when config.energy_every > 0. Throws OutputError.
  EnergySeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log);
  ~EnergySeries();
  EnergySeries(const EnergySeries&) = delete;
  EnergySeries& operator=(const EnergySeries&) = delete;

  /// The first step after `t` at which the series samples; INT64_MAX without it.
  std::int64_t next_due(std::int64_t t) const;
  /// Samples the current step when it is due (collective: reduces over the ranks).
  void sample(Simulation& simulation);
  /// Writes the buffered rows (rank 0): before a checkpoint, at reports and at the end. Throws OutputError.
  void flush();

 private:
  std::int64_t every_ = 0;
  OutputScaling scaling_;
  std::unique_ptr<ForcesCsvFile> file_;  // rank 0
  double last_time_ = 0.0, last_energy_ = 0.0;
  bool have_last_ = false;
  std::int64_t last_step_ = -1;
};

}  // namespace eddy
