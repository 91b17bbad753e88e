// Forces on the [[solid]] bodies: the fixed-point sums over the ranks, the coefficients, the sampled series and its
// closing summary (solver/solid_forces.hpp).
#include "solver/solid_forces.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "io/forces_csv.hpp"
#include "kernels/solid_forces.hpp"
#include "solver/errors.hpp"
#include "solver/force_statistics.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

std::vector<unsigned long long> global_solid_force_sums(Simulation& simulation) {
  std::vector<unsigned long long> sums = simulation.local_solid_force_sums();
  const Decomposition& d = simulation.decomposition();
  if (d.serial() || sums.empty()) return sums;
  // Integer sums: exact, and (wrapping) independent of the order in which the ranks' parts are added.
  EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, d.comm));
  return sums;
}

std::vector<SolidForce> solid_forces(Simulation& simulation) {
  const std::vector<unsigned long long> sums = global_solid_force_sums(simulation);
  std::vector<SolidForce> out(sums.size() / kForceSums);
  for (std::size_t k = 0; k < out.size(); ++k)
    for (int a = 0; a < 3; ++a) {
      out[k].force[a] = from_force_fixed(sums[k * kForceSums + a]);
      out[k].torque[a] = from_force_fixed(sums[k * kForceSums + 3 + a]);
    }
  return out;
}

ForceCoefficients force_coefficients(const SolidConfig& s, const SolidForce& f) {
  const double scale = 2.0 / (s.reference_velocity * s.reference_velocity * s.reference_area);  // rho0 = 1
  ForceCoefficients c;
  for (int a = 0; a < 3; ++a) {
    c.drag += f.force[a] * s.drag_direction[a];
    c.lift += f.force[a] * s.lift_direction[a];
  }
  c.drag *= scale;
  c.lift *= scale;
  return c;
}

namespace {

std::string number(double value, const char* format = "%.6g") {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

/// "mean .. min .. max .. amplitude .." of a coefficient's window.
std::string statistics_text(const char* name, const SeriesStatistics& s) {
  return std::string("              ") + name + " mean " + number(s.mean) + ", min " + number(s.min) + ", max " +
         number(s.max) + ", amplitude " + number(s.amplitude) + " ((max - min) / 2)\n";
}

}  // namespace

std::string force_summary(const CaseConfig& config, const SolidConfig& s, const std::vector<double>& time,
                          const std::vector<double>& drag, const std::vector<double>& lift) {
  const bool si = config.units.enabled;
  const char* time_unit = si ? "s" : "steps";
  std::string text = "forces      '" + s.name + "': ";
  // The window: from forces.statistics_from, or the second half of the samples.
  std::size_t first = time.size() / 2;
  std::string window = "the second half of the samples";
  if (!std::isnan(config.forces.statistics_from)) {
    first = std::size_t(std::lower_bound(time.begin(), time.end(), config.forces.statistics_from) - time.begin());
    window = "forces.statistics_from = " + number(config.forces.statistics_from) + " " + time_unit;
  }
  if (first >= time.size()) {
    return text + "no samples to sum up (" + std::to_string(time.size()) + " in all; " + window +
           (time.empty() ? ": the run took no sample: forces.every = " + std::to_string(config.forces.every) +
                               " steps is longer than the run"
                         : " holds none") +
           ")\n";
  }
  const std::vector<double> t(time.begin() + std::ptrdiff_t(first), time.end());
  const std::vector<double> cd(drag.begin() + std::ptrdiff_t(first), drag.end());
  const std::vector<double> cl(lift.begin() + std::ptrdiff_t(first), lift.end());
  text += std::to_string(t.size()) + (t.size() == 1 ? " sample" : " samples") + " from t = " + number(t.front()) +
          " to " + number(t.back()) + " " + time_unit + " (" + window + "; one every " +
          std::to_string(config.forces.every) + " steps)\n";
  text += statistics_text("C_D", series_statistics(cd));
  text += statistics_text("C_L", series_statistics(cl));
  const DominantFrequency f = dominant_frequency(t, cl);
  if (!f.found) return text + "              C_L frequency: none (" + f.reason + ")\n";
  // St = f L / U in lattice units: f per step (the CSV's time is step dt under [units]).
  const double per_step = si ? f.frequency * config.units.dt : f.frequency;
  const double strouhal = per_step * s.reference_length / s.reference_velocity;
  const double length = si ? s.reference_length * config.units.dx : s.reference_length;
  const double velocity = si ? s.reference_velocity * config.units.dx / config.units.dt : s.reference_velocity;
  text += "              C_L frequency " + number(f.frequency) + (si ? " Hz" : " per step") + " (spectral peak, bin " +
          number(f.resolution) + "), St = f L / U = " + number(strouhal) + " (L = " + number(length) +
          (si ? " m" : " cells") + ", U = " + number(velocity) + (si ? " m/s" : "") + ")\n";
  return text;
}

namespace {

/// Forces out of core are bitwise the in-core ones on the cpu backend (tests/unit/test_force_output.cpp); on a GPU
/// the H200 showed samples that differ from the in-core run in the last bits (docs/boundaries.md, "forces out of
/// core"), so a GPU build refuses them until that is understood. Collective: every rank throws alike.
void refuse_out_of_core_on_gpu(const CaseConfig& config, const Simulation& simulation) {
  if (!backend::is_gpu()) return;
  OutOfCoreStats stats;
  int out_of_core = simulation.out_of_core(stats) ? 1 : 0;
  const Decomposition& d = simulation.decomposition();
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &out_of_core, 1, MPI_INT, MPI_MAX, d.comm));
  if (out_of_core == 0) return;
  throw CollectiveInputError(source_prefix(config) +
                             "[[solid]] forces = true is computed in core only on a GPU build, and this run keeps its "
                             "populations out of core (numerics.out_of_core); run it in core (more ranks or a larger "
                             "device), on the cpu backend, or drop forces = true");
}

}  // namespace

ForceSeries::ForceSeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log) : config_(config) {
  for (std::size_t k = 0; k < config.solids.size(); ++k)
    if (config.solids[k].forces) solids_.push_back(k);
  if (solids_.empty()) return;
  refuse_out_of_core_on_gpu(config, simulation);
  writer_ = simulation.decomposition().rank == 0;
  if (!writer_) return;
  drag_.resize(solids_.size());
  lift_.resize(solids_.size());
  const std::string path = (std::filesystem::path(config.output_directory) / (config.name + "_forces.csv")).string();
  CsvTable kept;
  std::string warning;
  file_ = std::make_unique<ForcesCsvFile>(path, names(), simulation.time_step(), kept, warning);
  if (!warning.empty()) log << "warning: " << warning << "\n";
  if (kept.columns.empty() || kept.columns[0].empty()) return;
  time_ = kept.column("time");
  for (std::size_t j = 0; j < solids_.size(); ++j) {
    drag_[j] = kept.column(config.solids[solids_[j]].name + "_CD");
    lift_[j] = kept.column(config.solids[solids_[j]].name + "_CL");
  }
  log << "output      " << path << " continued: " << time_.size() << " earlier force samples\n";
}

ForceSeries::~ForceSeries() = default;

std::vector<std::string> ForceSeries::names() const {
  std::vector<std::string> names = {"step", "time"};
  for (std::size_t k : solids_)
    for (const char* q : {"_Fx", "_Fy", "_Fz", "_Tx", "_Ty", "_Tz", "_CD", "_CL"})
      names.push_back(config_.solids[k].name + q);
  return names;
}

std::vector<SolidForce> ForceSeries::take(Simulation& simulation) const { return solid_forces(simulation); }

void ForceSeries::record(std::int64_t step, const std::vector<SolidForce>& all) {
  last_step_ = step;
  last_ = all;
  if (!writer_) return;
  const bool si = config_.units.enabled;
  const double dx = config_.units.dx, dt = config_.units.dt, rho = config_.units.density;
  const double force_unit = si ? rho * dx * dx * dx * dx / (dt * dt) : 1.0;  // N per lattice unit
  const double torque_unit = si ? force_unit * dx : 1.0;                     // N m per lattice unit
  const double time = si ? double(step) * dt : double(step);
  std::vector<double> row = {double(step), time};
  time_.push_back(time);
  for (std::size_t j = 0; j < solids_.size(); ++j) {
    const SolidConfig& s = config_.solids[solids_[j]];
    const SolidForce& f = all[solids_[j]];
    for (int a = 0; a < 3; ++a) row.push_back(f.force[std::size_t(a)] * force_unit);
    for (int a = 0; a < 3; ++a) row.push_back(f.torque[std::size_t(a)] * torque_unit);
    const ForceCoefficients c = force_coefficients(s, f);
    row.push_back(c.drag);
    row.push_back(c.lift);
    drag_[j].push_back(c.drag);
    lift_[j].push_back(c.lift);
  }
  file_->append(row);
}

void ForceSeries::advance(Simulation& simulation, std::int64_t steps) {
  if (!enabled()) return simulation.advance(steps);
  const std::int64_t every = config_.forces.every;
  while (steps > 0) {
    const std::int64_t t = simulation.time_step();
    const std::int64_t n = std::min(steps, (t / every + 1) * every - t);
    simulation.advance(n);
    steps -= n;
    const std::int64_t now = simulation.time_step();
    if (now % every == 0) record(now, take(simulation));
  }
}

std::string ForceSeries::progress(Simulation& simulation) {
  if (!enabled()) return std::string();
  const std::int64_t now = simulation.time_step();
  const std::vector<SolidForce> all = last_step_ == now ? last_ : take(simulation);
  const bool si = config_.units.enabled;
  const double dx = config_.units.dx, dt = config_.units.dt, rho = config_.units.density;
  const double force_unit = si ? rho * dx * dx * dx * dx / (dt * dt) : 1.0;
  std::string text;
  for (std::size_t k : solids_) {
    const SolidForce& f = all[k];
    const ForceCoefficients c = force_coefficients(config_.solids[k], f);
    char part[256];
    std::snprintf(part, sizeof part, "  F[%s] = (%.4e, %.4e, %.4e) C_D %.5g C_L %.5g", config_.solids[k].name.c_str(),
                  f.force[0] * force_unit, f.force[1] * force_unit, f.force[2] * force_unit, c.drag, c.lift);
    text += part;
  }
  return text;
}

void ForceSeries::flush() {
  if (file_) file_->flush();
}

void ForceSeries::print_summary(std::ostream& log) const {
  if (!writer_) return;
  for (std::size_t j = 0; j < solids_.size(); ++j)
    log << force_summary(config_, config_.solids[solids_[j]], time_, drag_[j], lift_[j]);
}

}  // namespace eddy
