// The profile file of [statistics] (statistics.average): the running averages of solver/flow_statistics.hpp
// averaged over the homogeneous axes across the fluid cells, one row per remaining coordinate, summed over the
// ranks, in <output directory>/<case>_statistics.csv (written to a temporary name, then renamed: io/atomic_file.hpp).
//
// Each row r holds the fluid cells C_r of one coordinate of the remaining axes (one row, no coordinate, when all three
// are averaged). With <q>(x) the time average of cell x (FlowStatistics) and [q]_r = sum_{x in C_r} <q>(x) / |C_r|
// the row's average, the row's statistics are those of the samples over space and time together:
//   mean_velocity_a      [u_a]_r
//   reynolds_stress_ab   [u_a u_b]_r - [u_a]_r [u_b]_r   (the fluctuation about the row's mean, the usual one of a
//                                                          channel's profiles: Pope 2000, Turbulent Flows, sec. 7.1)
//   velocity_rms_a       sqrt(reynolds_stress_aa)
//   mean_density         [rho]_r,  mean_pressure  c_s^2 ([rho]_r - 1),  mean_temperature  [T]_r
// scaled as the snapshots (lengths / L, velocities / U, ...; SI under [units]). For a field steady in the averaged
// directions they equal the cells' own statistics; otherwise the profile's stresses also hold the spatial variance
// of the cells' means along the averaged axes, which in homogeneous directions is part of the turbulent fluctuation.
//
// The sums over the cells of a row are exact: each cell's value is rounded to a fixed-point integer of 128 bits with
// a power-of-two scale per quantity (2^85 times the largest value over all ranks: a resolution of 2^-85 of it, far
// below double's round-off of the averages), and the integers add exactly in any order. So the file has the same
// bytes on any rank count.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// The profile's table: column names and columns (rows in the order of the remaining axes' coordinates, the lowest
/// axis fastest).
struct StatisticsProfile {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
};

/// The profile of this rank's sums `sums` of block `decomposition` (collective over its ranks): the table on rank 0
/// (empty on the others). `config.statistics.average` names the averaged axes (at least one). Coordinates are node
/// centres scaled by `scaling` ((i + 0.5) / length), then the column fluid_cells, then the statistics of
/// config.statistics.fields: mean_velocity_x, _y, _z, velocity_rms_x, ..., reynolds_stress_xx, _yy, _zz, _xy, _xz,
/// _yz, mean_density, mean_pressure, mean_temperature. NaN in rows without fluid cells.
StatisticsProfile statistics_profile(const CaseConfig& config, const StatisticsSums& sums,
                                     const Decomposition& decomposition, const OutputScaling& scaling);

/// "<output directory>/<case>_statistics.csv".
std::string statistics_profile_path(const CaseConfig& config);

/// Writes the profile of `sim`'s statistics at its current step (collective; rank 0 writes, with '#' comment lines
/// saying the samples, the averaged axes and the units) and logs "  wrote <path>" on `log`; before the first sample
/// it writes nothing and says so. Nothing without [statistics] or statistics.average. Throws OutputError.
void write_statistics_profile(const CaseConfig& config, Simulation& sim, std::ostream& log);

}  // namespace eddy
