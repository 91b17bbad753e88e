// The [[output.probe]] time series (solver/probes.hpp): the nodes of each point, their owners, the sampling and
// gathering, the interpolation on rank 0 and the CSV rows.
#include "solver/probes.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>

#include "io/forces_csv.hpp"
#include "kernels/probe_samples.hpp"
#include "solver/errors.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {
namespace {

std::string number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.12g", v);
  return text;
}

/// "[x, y, z]" of a point as given in the case.
std::string point_text(const std::array<double, 3>& p) {
  return "[" + number(p[0]) + ", " + number(p[1]) + ", " + number(p[2]) + "]";
}

/// The column names of `probe`: step, time, then per point p<k>_<component> of each field.
std::vector<std::string> column_names(const ProbeConfig& probe) {
  std::vector<std::string> names = {"step", "time"};
  for (std::size_t k = 0; k < probe.points.size(); ++k) {
    const std::string p = "p" + std::to_string(k) + "_";
    for (const std::string& field : probe.fields) {
      if (field == "velocity") {
        for (const char* c : {"ux", "uy", "uz"}) names.push_back(p + c);
      } else {
        names.push_back(p + field);
      }
    }
  }
  return names;
}

/// The comment lines before the header: the probe, its units, each point.
std::string comment_lines(const CaseConfig& config, const ProbeConfig& probe) {
  const bool si = config.units.enabled;
  std::string fields;
  for (const std::string& f : probe.fields) fields += (fields.empty() ? "" : ", ") + f;
  std::string text = "# eddy probe '" + probe.name + "' of case '" + config.name + "': " + fields + " every " +
                     std::to_string(probe.every) + " steps, interpolated trilinearly from the node centres\n";
  text += si ? "# units: time s, density kg/m^3, velocity m/s, temperature as in the case; points in m\n"
             : "# units: lattice (time in steps, density and velocity lattice units); points in cells\n";
  for (std::size_t k = 0; k < probe.points.size(); ++k) {
    text += "# point " + std::to_string(k) + " = " + point_text(probe.points_as_given[k]) + "\n";
  }
  return text;
}

bool is_periodic(const CaseConfig& config, int axis) { return config.faces[2 * axis].kind == FaceKind::periodic; }

/// Throws CollectiveInputError on every rank unless every rank runs in core.
void refuse_out_of_core(const CaseConfig& config, const Simulation& simulation, MPI_Comm comm) {
  OutOfCoreStats stats;
  int out_of_core = simulation.out_of_core(stats) ? 1 : 0;
  if (comm != MPI_COMM_NULL) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &out_of_core, 1, MPI_INT, MPI_MAX, comm));
  if (out_of_core == 0) return;
  throw CollectiveInputError(
      source_prefix(config) +
      "[[output.probe]] is available in core only, and this run keeps its populations out of core "
      "(numerics.out_of_core = \"auto\" found the block too large for the device): out of core no copy of the fields "
      "stays on the device to sample a few cells from; run in core (more ranks, or a larger device) or drop the "
      "probes");
}

}  // namespace

ProbeSeries::ProbeSeries(const CaseConfig& config, Simulation& simulation, std::ostream& log) : config_(config) {
  if (config.probes.empty()) return;
  const Decomposition& d = simulation.decomposition();
  comm_ = d.serial() ? MPI_COMM_NULL : d.comm;
  refuse_out_of_core(config, simulation, comm_);
  writer_ = d.rank == 0;
  const std::array<int, 3> size = {config.size[0], config.size[1], config.size[2]};
  const std::array<bool, 3> periodic = {is_periodic(config, 0), is_periodic(config, 1), is_periodic(config, 2)};
  // Every node, sorted z, y, x and unique; each point's stencil refers to it by index.
  for (std::size_t n = 0; n < config.probes.size(); ++n) {
    Probe probe;
    probe.config = n;
    for (const auto& p : config.probes[n].points) {
      probe.stencils.push_back(probe_stencil(p, size, periodic));
      const ProbeStencil& s = probe.stencils.back();
      for (int k = 0; k < s.count; ++k) nodes_.push_back(s.node[std::size_t(k)]);
    }
    probes_.push_back(std::move(probe));
  }
  const auto zyx = [](const std::array<int, 3>& a, const std::array<int, 3>& b) {
    return std::array<int, 3>{a[2], a[1], a[0]} < std::array<int, 3>{b[2], b[1], b[0]};
  };
  std::sort(nodes_.begin(), nodes_.end(), zyx);
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  for (Probe& probe : probes_)
    for (const ProbeStencil& s : probe.stencils) {
      std::array<std::size_t, 8> ids{};
      for (int k = 0; k < s.count; ++k) {
        ids[std::size_t(k)] =
            std::size_t(std::lower_bound(nodes_.begin(), nodes_.end(), s.node[std::size_t(k)], zyx) - nodes_.begin());
      }
      probe.ids.push_back(ids);
    }
  // This rank's nodes, as local interior indices, and (rank 0) which nodes each rank sends.
  std::vector<int> mine;
  for (std::size_t j = 0; j < nodes_.size(); ++j) {
    const std::array<int, 3>& g = nodes_[j];
    bool owned = true;
    for (int a = 0; a < 3; ++a) owned = owned && g[a] >= d.offset[a] && g[a] < d.offset[a] + d.local_size[a];
    if (!owned) continue;
    const std::int64_t x = g[0] - d.offset[0], y = g[1] - d.offset[1], z = g[2] - d.offset[2];
    local_cells_.push_back(x + std::int64_t(d.local_size[0]) * (y + std::int64_t(d.local_size[1]) * z));
    mine.push_back(int(j));
  }
  if (comm_ == MPI_COMM_NULL) {
    order_.assign(mine.begin(), mine.end());
  } else {
    int count = int(mine.size());
    counts_.assign(writer_ ? std::size_t(d.size) : 0, 0);
    EDDY_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, comm_));
    std::vector<int> all;
    if (writer_) {
      displacements_.assign(std::size_t(d.size), 0);
      for (int r = 1; r < d.size; ++r)
        displacements_[std::size_t(r)] = displacements_[std::size_t(r - 1)] + counts_[std::size_t(r - 1)];
      all.resize(nodes_.size());
    }
    EDDY_MPI_CHECK(
        MPI_Gatherv(mine.data(), count, MPI_INT, all.data(), counts_.data(), displacements_.data(), MPI_INT, 0, comm_));
    order_.assign(all.begin(), all.end());
  }
  // A point in a solid cell is refused: found from one sample of the nodes (the point's cell is one of them).
  const std::vector<double> values = gather(simulation);
  std::string error;
  if (writer_) {
    for (const Probe& probe : probes_) {
      const ProbeConfig& pc = config.probes[probe.config];
      for (std::size_t k = 0; k < probe.stencils.size() && error.empty(); ++k) {
        const ProbeStencil& s = probe.stencils[k];
        for (int j = 0; j < s.count; ++j) {
          if (s.node[std::size_t(j)] != s.cell || values[probe.ids[k][std::size_t(j)] * kProbeValues] == 0.0) continue;
          error = source_prefix(config) + "output.probe[" + std::to_string(probe.config) + "] '" + pc.name +
                  "': point " + std::to_string(k) + " = " + point_text(pc.points_as_given[k]) +
                  " lies in a solid cell (" + std::to_string(s.cell[0]) + ", " + std::to_string(s.cell[1]) + ", " +
                  std::to_string(s.cell[2]) + "): a probe samples the fluid; move the point into a fluid cell";
          break;
        }
      }
      if (!error.empty()) break;
    }
  }
  if (comm_ != MPI_COMM_NULL) {
    int length = int(error.size());
    EDDY_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, 0, comm_));
    error.resize(std::size_t(length));
    EDDY_MPI_CHECK(MPI_Bcast(error.data(), length, MPI_CHAR, 0, comm_));
  }
  if (!error.empty()) throw CollectiveInputError(error);
  if (!writer_) return;
  for (Probe& probe : probes_) {
    const ProbeConfig& pc = config.probes[probe.config];
    const std::string path =
        (std::filesystem::path(config.output_directory) / (config.name + "_probe_" + pc.name + ".csv")).string();
    CsvTable kept;
    std::string warning;
    probe.file = std::make_unique<ForcesCsvFile>(path, column_names(pc), simulation.time_step(), kept, warning,
                                                 comment_lines(config, pc), "probe");
    if (!warning.empty()) log << "warning: " << warning << "\n";
    if (!kept.columns.empty() && !kept.columns[0].empty())
      log << "output      " << path << " continued: " << kept.columns[0].size() << " earlier probe samples\n";
  }
}

ProbeSeries::~ProbeSeries() = default;

std::int64_t ProbeSeries::next_due(std::int64_t t) const {
  std::int64_t next = INT64_MAX;
  for (const Probe& probe : probes_) {
    const std::int64_t every = config_.probes[probe.config].every;
    next = std::min(next, (t / every + 1) * every);
  }
  return next;
}

std::vector<double> ProbeSeries::gather(Simulation& simulation) {
  const std::vector<double> local = simulation.probe_values(local_cells_);
  if (comm_ == MPI_COMM_NULL) {
    std::vector<double> values(nodes_.size() * kProbeValues);
    for (std::size_t j = 0; j < order_.size(); ++j)
      std::copy_n(local.begin() + std::ptrdiff_t(j * kProbeValues), kProbeValues,
                  values.begin() + std::ptrdiff_t(order_[j] * kProbeValues));
    return values;
  }
  std::vector<int> counts, displacements;
  std::vector<double> received;
  if (writer_) {
    for (std::size_t r = 0; r < counts_.size(); ++r) {
      counts.push_back(counts_[r] * kProbeValues);
      displacements.push_back(displacements_[r] * kProbeValues);
    }
    received.resize(nodes_.size() * kProbeValues);
  }
  EDDY_MPI_CHECK(MPI_Gatherv(local.data(), int(local.size()), MPI_DOUBLE, received.data(), counts.data(),
                             displacements.data(), MPI_DOUBLE, 0, comm_));
  if (!writer_) return {};
  std::vector<double> values(nodes_.size() * kProbeValues);
  for (std::size_t j = 0; j < order_.size(); ++j)
    std::copy_n(received.begin() + std::ptrdiff_t(j * kProbeValues), kProbeValues,
                values.begin() + std::ptrdiff_t(order_[j] * kProbeValues));
  return values;
}

void ProbeSeries::sample(Simulation& simulation) {
  const std::int64_t now = simulation.time_step();
  bool due = false;
  for (const Probe& probe : probes_) due = due || (now > 0 && now % config_.probes[probe.config].every == 0);
  if (!due) return;
  const std::vector<double> values = gather(simulation);
  if (!writer_) return;
  for (const Probe& probe : probes_)
    if (now % config_.probes[probe.config].every == 0) write_row(probe, now, values);
}

void ProbeSeries::write_row(const Probe& probe, std::int64_t step, const std::vector<double>& values) {
  const ProbeConfig& pc = config_.probes[probe.config];
  const bool si = config_.units.enabled;
  const double dx = config_.units.dx, dt = config_.units.dt;
  const double density_unit = si ? config_.units.density : 1.0;
  const double velocity_unit = si ? dx / dt : 1.0;
  std::vector<double> row = {double(step), si ? double(step) * dt : double(step)};
  for (std::size_t k = 0; k < probe.stencils.size(); ++k) {
    const ProbeStencil& s = probe.stencils[k];
    const std::array<std::size_t, 8>& ids = probe.ids[k];
    const auto fluid = [&](int j) { return values[ids[std::size_t(j)] * kProbeValues] == 0.0; };
    const auto field = [&](int v) {
      return interpolate(s, fluid, [&](int j) { return values[ids[std::size_t(j)] * kProbeValues + std::size_t(v)]; });
    };
    for (const std::string& f : pc.fields) {
      if (f == "density") {
        row.push_back(field(1) * density_unit);
      } else if (f == "velocity") {
        for (int a = 0; a < 3; ++a) row.push_back(field(2 + a) * velocity_unit);
      } else {
        row.push_back(field(5));  // temperature
      }
    }
  }
  probe.file->append(row);
}

void ProbeSeries::flush() {
  for (Probe& probe : probes_)
    if (probe.file) probe.file->flush();
}

}  // namespace eddy
