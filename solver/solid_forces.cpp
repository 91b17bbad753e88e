#include "solver/solid_forces.hpp"

#include <cstdio>
#include <filesystem>
#include <ostream>

#include "io/csv_table.hpp"
#include "kernels/solid_forces.hpp"
#include "solver/errors.hpp"
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

ForceSeries::ForceSeries(const CaseConfig& config, const Simulation& simulation, std::ostream& log)
    : config_(config) {
  for (std::size_t k = 0; k < config.solids.size(); ++k)
    if (config.solids[k].forces) solids_.push_back(k);
  if (solids_.empty()) return;
  OutOfCoreStats stats;
  int out_of_core = simulation.out_of_core(stats) ? 1 : 0;
  const Decomposition& d = simulation.decomposition();
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &out_of_core, 1, MPI_INT, MPI_MAX, d.comm));
  if (out_of_core != 0) {
    throw CollectiveInputError(
        source_prefix(config) +
        "[[solid]] forces = true is computed in core only, and this run "
        "keeps its populations out of core (numerics.out_of_core); run it in core (more ranks or "
        "a larger device) or drop forces = true");
  }
  columns_.resize(2 + 6 * solids_.size());
  if (simulation.time_step() > 0 && d.rank == 0) continue_file(simulation.time_step(), log);
}

std::string ForceSeries::path() const {
  return (std::filesystem::path(config_.output_directory) / (config_.name + "_forces.csv")).string();
}

std::vector<std::string> ForceSeries::names() const {
  std::vector<std::string> names = {"step", "time"};
  for (std::size_t k : solids_)
    for (const char* q : {"_Fx", "_Fy", "_Fz", "_Tx", "_Ty", "_Tz"}) names.push_back(config_.solids[k].name + q);
  return names;
}

void ForceSeries::continue_file(std::int64_t start, std::ostream& log) {
  const std::string file = path();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return;
  try {
    const CsvTable earlier = read_csv(file);
    if (earlier.names != names()) throw InputError("its columns are not those of this case's solids");
    for (std::size_t row = 0; row < earlier.columns[0].size() && earlier.columns[0][row] <= double(start); ++row)
      for (std::size_t c = 0; c < columns_.size(); ++c) columns_[c].push_back(earlier.columns[c][row]);
  } catch (const InputError& e) {
    // Not a series this run can continue: kept under another name, never overwritten.
    const std::string kept = file + ".before_step_" + std::to_string(start);
    if (std::rename(file.c_str(), kept.c_str()) != 0) {
      throw OutputError("cannot keep the earlier forces file " + file + " (" + e.what() + "): renaming it to " +
                        kept + " failed");
    }
    for (auto& column : columns_) column.clear();
    log << "warning: the forces file " << file << " cannot be continued (" << e.what() << "); kept as " << kept
        << "\n";
  }
}

std::string ForceSeries::sample(Simulation& simulation) {
  const std::vector<SolidForce> all = solid_forces(simulation);
  const bool si = config_.units.enabled;
  const double dx = config_.units.dx, dt = config_.units.dt, rho = config_.units.density;
  const double force_unit = si ? rho * dx * dx * dx * dx / (dt * dt) : 1.0;  // N per lattice unit
  const double torque_unit = si ? force_unit * dx : 1.0;                     // N m per lattice unit
  const double step = double(simulation.time_step());
  columns_[0].push_back(step);
  columns_[1].push_back(si ? step * dt : step);
  std::string text;
  for (std::size_t j = 0; j < solids_.size(); ++j) {
    const SolidForce& f = all[solids_[j]];
    for (int a = 0; a < 3; ++a) {
      columns_[2 + 6 * j + std::size_t(a)].push_back(f.force[std::size_t(a)] * force_unit);
      columns_[5 + 6 * j + std::size_t(a)].push_back(f.torque[std::size_t(a)] * torque_unit);
    }
    char part[200];
    std::snprintf(part, sizeof part, "  F[%s] = (%.4e, %.4e, %.4e)", config_.solids[solids_[j]].name.c_str(),
                  f.force[0] * force_unit, f.force[1] * force_unit, f.force[2] * force_unit);
    text += part;
  }
  if (simulation.decomposition().rank == 0) {
    CsvTable table;
    table.names = names();
    table.columns = columns_;
    write_csv(path(), table);
  }
  return text;
}

}  // namespace eddy
