// solver/energy_series.cpp: the <case>_energy.csv time series (solver/energy_series.hpp).

#include "solver/energy_series.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <ostream>

#include "io/forces_csv.hpp"
#include "solver/reductions.hpp"

namespace eddy {

EnergySeries::EnergySeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log)
    : every_(config.energy_every), scaling_(OutputScaling::of(config)) {
  if (every_ <= 0 || simulation.decomposition().rank != 0) return;
  const std::string path =
      (std::filesystem::path(config.output_directory) / (config.name + "_energy.csv")).string();
  const std::string comments =
      "# eddy kinetic energy of case '" + config.name + "' every " + std::to_string(every_) +
      " steps: kinetic_energy = mean over the fluid cells of |u|^2 / 2; dissipation_rate = -(E(t) - E(t - dt)) / dt "
      "over the interval ending at the row (second order at t - dt / 2)\n" +
      std::string(scaling_.si ? "# units: time s, kinetic_energy m^2/s^2, dissipation_rate m^2/s^3\n"
                              : "# units: time L / U, kinetic_energy U^2, dissipation_rate U^3 / L (U = physics.velocity, "
                                "L = physics.length)\n");
  CsvTable kept;
  std::string warning;
  file_ = std::make_unique<ForcesCsvFile>(path, std::vector<std::string>{"step", "time", "kinetic_energy",
                                                                         "dissipation_rate"},
                                          simulation.time_step(), kept, warning, comments, "energy");
  if (!warning.empty()) log << "warning: " << warning << "\n";
  if (!kept.columns.empty() && !kept.columns[0].empty()) {
    // A restart goes on from the last kept sample, so the next row's rate is the uninterrupted run's.
    const std::size_t last = kept.columns[0].size() - 1;
    last_step_ = std::int64_t(kept.columns[0][last]);
    last_time_ = kept.columns[1][last];
    last_energy_ = kept.columns[2][last];
    have_last_ = true;
    log << "output      " << path << " continued: " << kept.columns[0].size() << " earlier energy samples\n";
  }
}

EnergySeries::~EnergySeries() = default;

std::int64_t EnergySeries::next_due(std::int64_t t) const {
  if (every_ <= 0) return std::numeric_limits<std::int64_t>::max();
  return (t / every_ + 1) * every_;
}

void EnergySeries::sample(Simulation& simulation) {
  const std::int64_t step = simulation.time_step();
  if (every_ <= 0 || step % every_ != 0 || step == last_step_) return;
  simulation.synchronize();
  const Diagnostics d = reduce_diagnostics(simulation.diagnose(), simulation.decomposition());  // collective
  if (!file_) return;
  const double time = scaling_.time(step);
  const double energy = d.fluid_cells > 0 ? d.kinetic_energy / double(d.fluid_cells) / (scaling_.velocity *
                                                                                          scaling_.velocity)
                                          : 0.0;
  const double rate = have_last_ && time > last_time_ ? -(energy - last_energy_) / (time - last_time_)
                                                      : std::numeric_limits<double>::quiet_NaN();
  file_->append({double(step), time, energy, rate});
  last_step_ = step;
  last_time_ = time;
  last_energy_ = energy;
  have_last_ = true;
}

void EnergySeries::flush() {
  if (file_) file_->flush();
}

}  // namespace eddy
