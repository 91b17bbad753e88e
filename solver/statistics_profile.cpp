// The profile file of [statistics] (solver/statistics_profile.hpp).
#include "solver/statistics_profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <ostream>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/number_format.hpp"
#include "io/output_fields.hpp"
#include "kernels/views.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

namespace {

__extension__ typedef unsigned __int128 Wide;  // sums mod 2^128: exact, and the same in any order
__extension__ typedef __int128 SignedWide;

/// Fixed-point values are below 2^kFixedBits in magnitude; with at most 2^40 cells a row's sum stays below 2^125.
constexpr int kFixedBits = 85;

/// MPI_Op: inout[i] += in[i] for 128-bit integers (two's complement, wrapping: exact sums of signed values).
void add_wide(void* in, void* inout, int* len, MPI_Datatype*) {
  const Wide* a = static_cast<const Wide*>(in);
  Wide* b = static_cast<Wide*>(inout);
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}

/// The power of two e with max_abs 2^e < 2^kFixedBits (0 for max_abs 0).
int fixed_exponent(double max_abs) {
  if (!(max_abs > 0)) return 0;
  int exponent = 0;
  std::frexp(max_abs, &exponent);  // max_abs = f 2^exponent, f in [0.5, 1): max_abs < 2^exponent
  return kFixedBits - exponent;
}

Wide to_fixed(double value, int exponent) {
  return Wide(SignedWide(std::nearbyint(std::ldexp(value, exponent))));  // an integer below 2^85: exact
}

double from_fixed(Wide sum, int exponent) { return std::ldexp(double(SignedWide(sum)), -exponent); }

/// What a row sums: the per-cell time averages <rho>, <u_a>, <u_a u_b>, <T> (the components of StatisticsSums).
struct RowSums {
  int quantities = 0;                  // StatisticsSums::components()
  std::vector<long long> cells;        // fluid cells per row
  std::vector<std::vector<double>> m;  // [quantity][row]: sum over the row's fluid cells of <q>, rank 0
};

RowSums row_sums(const StatisticsSums& s, const Decomposition& d, const std::array<bool, 3>& average) {
  const std::array<int, 3>& n = d.global_size;
  // The row of global cell (gx, gy, gz): the remaining axes' coordinates, the lowest axis fastest.
  std::array<long long, 3> stride{};
  long long rows = 1;
  for (int a = 0; a < 3; ++a) {
    stride[a] = average[a] ? 0 : rows;
    if (!average[a]) rows *= n[a];
  }
  RowSums out;
  out.quantities = s.components();
  const int q = out.quantities;
  const double inverse = s.samples > 0 ? 1.0 / double(s.samples) : 0.0;
  const auto mean = [&](int component, std::int64_t k) {
    return s.sums[std::size_t(component * s.cells + k)] * inverse;
  };
  // The scale of each quantity from its largest magnitude on any rank (a maximum: the same on every rank count).
  std::vector<double> largest(std::size_t(q), 0.0);
  for (std::int64_t k = 0; k < s.cells; ++k) {
    if (!s.fluid[std::size_t(k)]) continue;
    for (int c = 0; c < q; ++c) largest[std::size_t(c)] = std::max(largest[std::size_t(c)], std::abs(mean(c, k)));
  }
  // (NaN or infinite averages make the maximum NaN or infinite: the column is NaN.)
  for (std::int64_t k = 0; k < s.cells; ++k) {
    if (!s.fluid[std::size_t(k)]) continue;
    for (int c = 0; c < q; ++c)
      if (!std::isfinite(mean(c, k))) largest[std::size_t(c)] = std::numeric_limits<double>::infinity();
  }
  if (!d.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, largest.data(), q, MPI_DOUBLE, MPI_MAX, d.comm));
  }
  std::vector<int> exponent(static_cast<std::size_t>(q));
  for (int c = 0; c < q; ++c) exponent[std::size_t(c)] = fixed_exponent(std::isfinite(largest[c]) ? largest[c] : 0.0);
  // One block of rows per quantity, then the fluid cell counts (as integers, exact too).
  std::vector<Wide> wide(std::size_t(q + 1) * std::size_t(rows), Wide(0));
  std::int64_t k = 0;
  for (int z = 0; z < d.local_size[2]; ++z)
    for (int y = 0; y < d.local_size[1]; ++y)
      for (int x = 0; x < d.local_size[0]; ++x, ++k) {
        if (!s.fluid[std::size_t(k)]) continue;
        const long long row =
            (d.offset[0] + x) * stride[0] + (d.offset[1] + y) * stride[1] + (d.offset[2] + z) * stride[2];
        for (int c = 0; c < q; ++c) {
          if (std::isfinite(largest[c]))
            wide[std::size_t(c * rows + row)] += to_fixed(mean(c, k), exponent[std::size_t(c)]);
        }
        wide[std::size_t(q * rows + row)] += 1;
      }
  if (!d.serial()) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    EDDY_MPI_CHECK(MPI_Type_contiguous(int(sizeof(Wide)), MPI_BYTE, &type));
    EDDY_MPI_CHECK(MPI_Type_commit(&type));
    EDDY_MPI_CHECK(MPI_Op_create(add_wide, 1, &op));
    std::vector<Wide> total(d.rank == 0 ? wide.size() : 0);
    const int rc = MPI_Reduce(wide.data(), d.rank == 0 ? total.data() : nullptr, int(wide.size()), type, op, 0, d.comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    EDDY_MPI_CHECK(rc);
    if (d.rank != 0) return out;
    wide.swap(total);
  }
  out.cells.resize(std::size_t(rows));
  out.m.assign(std::size_t(q), std::vector<double>(std::size_t(rows)));
  for (long long r = 0; r < rows; ++r) {
    out.cells[std::size_t(r)] = (long long)(SignedWide(wide[std::size_t(q * rows + r)]));
    for (int c = 0; c < q; ++c) {
      out.m[std::size_t(c)][std::size_t(r)] =
          std::isfinite(largest[c]) ? from_fixed(wide[std::size_t(c * rows + r)], exponent[std::size_t(c)])
                                    : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return out;
}

const char* const kAxes[3] = {"x", "y", "z"};

}  // namespace

StatisticsProfile statistics_profile(const CaseConfig& config, const StatisticsSums& sums,
                                     const Decomposition& decomposition, const OutputScaling& scaling) {
  const StatisticsConfig& st = config.statistics;
  const RowSums rs = row_sums(sums, decomposition, st.average);
  StatisticsProfile p;
  if (decomposition.rank != 0) return p;
  const std::size_t rows = rs.cells.size();
  const std::array<int, 3>& n = decomposition.global_size;
  // Coordinates of the remaining axes.
  long long stride = 1;
  for (int a = 0; a < 3; ++a) {
    if (st.average[a]) continue;
    std::vector<double> coordinate(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      coordinate[r] = (double((long long)(r) / stride % n[a]) + 0.5) / scaling.length;
    }
    p.names.emplace_back(kAxes[a]);
    p.columns.push_back(std::move(coordinate));
    stride *= n[a];
  }
  p.names.emplace_back("fluid_cells");
  p.columns.emplace_back(rs.cells.begin(), rs.cells.end());
  const double u_scale = 1.0 / scaling.velocity, uu_scale = u_scale * u_scale;
  const auto row_mean = [&](int component, std::size_t r) {
    return rs.cells[r] > 0 ? rs.m[std::size_t(component)][r] / double(rs.cells[r])
                           : std::numeric_limits<double>::quiet_NaN();
  };
  const auto stress = [&](int a, int b, std::size_t r) {
    return (row_mean(StatisticsView::product(a, b), r) - row_mean(1 + a, r) * row_mean(1 + b, r)) * uu_scale;
  };
  const auto column = [&](const std::string& name, const auto& value) {
    std::vector<double> c(rows);
    for (std::size_t r = 0; r < rows; ++r) c[r] = value(r);
    p.names.push_back(name);
    p.columns.push_back(std::move(c));
  };
  for (const std::string& field : st.fields) {
    if (field == "mean_velocity") {
      for (int a = 0; a < 3; ++a)
        column(field + "_" + kAxes[a], [&](std::size_t r) { return row_mean(1 + a, r) * u_scale; });
    } else if (field == "velocity_rms") {
      for (int a = 0; a < 3; ++a)
        column(field + "_" + kAxes[a], [&](std::size_t r) { return std::sqrt(std::max(0.0, stress(a, a, r))); });
    } else if (field == "reynolds_stress") {
      for (const TensorComponent& t : kTensorComponents) {
        column(field + "_" + std::string(t.name), [&](std::size_t r) { return stress(t.a, t.b, r); });
      }
    } else if (field == "mean_density") {
      column(field, [&](std::size_t r) { return row_mean(0, r) * scaling.density; });
    } else if (field == "mean_pressure") {
      column(field, [&](std::size_t r) { return statistics_pressure(row_mean(0, r)) * scaling.density * uu_scale; });
    } else if (field == "mean_temperature") {
      column(field, [&](std::size_t r) { return row_mean(sums.temperature_component(), r); });
    }
  }
  return p;
}

std::string statistics_profile_path(const CaseConfig& config) {
  return (std::filesystem::path(config.output_directory) / (config.name + "_statistics.csv")).string();
}

void write_statistics_profile(const CaseConfig& config, Simulation& sim, std::ostream& log) {
  const StatisticsConfig& st = config.statistics;
  if (!sim.has_statistics() || !st.has_profile()) return;
  const StatisticsSums sums = sim.statistics_sums();
  const std::string path = statistics_profile_path(config);
  if (sums.samples == 0) {  // the same on every rank
    log << "  statistics: no sample before step " << st.start << " yet; " << path << " not written\n";
    return;
  }
  const OutputScaling scaling = OutputScaling::of(config);
  const StatisticsProfile p = statistics_profile(config, sums, sim.decomposition(), scaling);
  if (sim.decomposition().rank != 0) return;
  std::string averaged;
  for (int a = 0; a < 3; ++a) {
    if (st.average[a]) averaged += std::string(averaged.empty() ? "" : ", ") + kAxes[a];
  }
  const std::int64_t last = sums.first_step + (sums.samples - 1) * st.every;
  std::ostringstream text;
  text << "# eddy [statistics] profile of case " << config.name << " at step " << sim.time_step() << ": "
       << sums.samples << (sums.samples == 1 ? " sample" : " samples") << " (the states at steps " << sums.first_step
       << " to " << last << ", every " << st.every << "), averaged over " << averaged
       << " across the fluid cells of each row\n"
       << "# reynolds_stress and velocity_rms: fluctuations about the row's mean over space and time, "
          "[u_a u_b] - [u_a][u_b]; mean_pressure = c_s^2 (mean_density - rho0) as the pressure outlets' pressure\n";
  if (scaling.si) {
    text << "# units: coordinates m, velocities m/s, reynolds_stress m^2/s^2, mean_density kg/m^3, mean_pressure Pa "
            "(relative to units.density), mean_temperature the case's temperature units\n";
  } else {
    text << "# units: coordinates / L (L = " << format_exact(scaling.length)
         << " cells), velocities / U (U = " << format_exact(scaling.velocity)
         << " lattice), reynolds_stress / U^2, mean_density lattice (rho0 = 1), "
         << "mean_pressure / (rho0 U^2), mean_temperature the case's temperature units\n";
  }
  for (std::size_t c = 0; c < p.names.size(); ++c) text << (c ? "," : "") << p.names[c];
  text << "\n";
  const std::size_t rows = p.columns.empty() ? 0 : p.columns[0].size();
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < p.columns.size(); ++c) text << (c ? "," : "") << format_exact(p.columns[c][r]);
    text << "\n";
  }
  write_file_atomically(path, text.str());
  log << "  wrote " << path << " (" << rows << (rows == 1 ? " row" : " rows") << ", " << sums.samples << " samples)\n";
}

}  // namespace eddy
