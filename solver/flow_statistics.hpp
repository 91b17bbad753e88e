// FlowStatistics: the running sums of the turbulence statistics of one rank's block ([statistics],
// io/case_config.hpp), on the device in double, and the fields derived from them.
//
// Data flow of a sampled LBM step from time t (solver/lattice_simulation.cpp): the fused stream-collide kernel adds
// each fluid cell's rho, u and, with second moments, u_a u_b of the moments it collides (the state at time t, u with
// Guo's F/2 shift, the velocity every read-out writes) to the sums (StatisticsView, kernels/views.hpp: no extra pass
// over the populations); with mean_temperature a small kernel adds T at time t (kernels/statistics_launchers.hpp)
// before the scalar step advances it. The sample count goes up by one. Each cell's sums take one addition per sample
// in step order, whatever the decomposition, so 1 and N ranks (and a restart from a checkpoint, which carries the
// sums and the count) give the same bits.
//
// The statistics, with N samples, <q> = S_q / N (Pope 2000, Turbulent Flows, eq. 3.10) and u' = u - <u>:
//   mean_velocity   <u_a>
//   velocity_rms    sqrt(<u'_a u'_a>),  <u'_a u'_b> = <u_a u_b> - <u_a><u_b>   (Pope 2000, eq. 3.26 and 3.32)
//   reynolds_stress <u'_a u'_b>, components xx, yy, zz, xy, xz, yz (per unit density: the kinematic stress)
//   mean_density    <rho>
//   mean_pressure   c_s^2 (<rho> - rho0), rho0 = 1: the lattice pressure of the pressure outlets (io/case_config.hpp,
//                   FaceBoundary::pressure), relative to the reference density; it is linear in rho, so its mean
//                   is that of the mean density
//   mean_temperature <T>
// The differences <u_a u_b> - <u_a><u_b> are taken in double from sums in double: for |u'| / |u| down to about 1e-6
// they keep several digits (the relative round-off of <u_a u_b> is about 1e-16 N times smaller than that of float
// storage). A negative variance from round-off is written as 0 under the square root.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/statistics_values.hpp"
#include "kernels/views.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// The statistics' sums of a block's interior cells on the host, as FlowStatistics::host_sums() gives them: component
/// k of interior cell j (MacroscopicFields order, x fastest) at sums[k * cells + j], k = 0: rho, 1..3: u_x, u_y, u_z,
/// with second moments 4..9: u_x u_x, u_y u_y, u_z u_z, u_x u_y, u_x u_z, u_y u_z (StatisticsView's order), then T
/// (temperature_component()) with mean_temperature. Lattice units.
struct StatisticsSums {
  std::int64_t cells = 0;            ///< interior cells
  std::int64_t samples = 0;          ///< N, the sample count
  std::int64_t first_step = -1;      ///< the step of the first sample (-1: none yet)
  bool second_moments = false;       ///< components 4..9 present
  bool temperature = false;          ///< the T component present
  std::vector<double> sums;          ///< components() x cells
  std::vector<unsigned char> fluid;  ///< per interior cell: 1 where the kernel samples (not solid)
  int components() const {
    return (second_moments ? StatisticsView::kAllMoments : StatisticsView::kFirstMoments) + (temperature ? 1 : 0);
  }
  int temperature_component() const {
    return second_moments ? StatisticsView::kAllMoments : StatisticsView::kFirstMoments;
  }
};

/// How the statistics are written: density and pressure scales and the velocity scale, as OutputScaling
/// (solver/simulation.hpp) has them: rho_out = rho * density, u_out = u / velocity, products of two velocities by
/// velocity^2, the pressure by density / velocity^2 (Pa under [units], rho0 U^2 otherwise). Lattice units: {1, 1}.
struct StatisticsScaling {
  double density = 1.0;
  double velocity = 1.0;
};

/// The lattice pressure of density `rho`: c_s^2 (rho - rho0), rho0 = 1 (kernels/lattice_units.hpp).
inline double statistics_pressure(double rho) { return (rho - 1.0) / 3.0; }

/// The quantity of statistics field `name` (kOutputFields, source statistics). Throws std::invalid_argument for
/// another name, or one that sums without second moments (velocity_rms, reynolds_stress) or without T
/// (mean_temperature) cannot give.
StatisticsQuantity statistics_quantity(std::string_view name, bool second_moments, bool temperature);

/// The values of statistics field `name` (kOutputFields, source statistics) of every interior cell of `s`,
/// components back to back (each `s.cells` values, MacroscopicFields order), scaled by `scaling`: 0 in solid cells,
/// NaN in every cell before the first sample (the average is not defined yet). Throws std::invalid_argument for
/// another name, or one whose sums `s` lacks (velocity_rms without second moments, mean_temperature without T).
std::vector<double> statistics_field_values(const StatisticsSums& s, std::string_view name,
                                            const StatisticsScaling& scaling = {});

/// The running sums of one block: a device buffer of components x n_cells doubles (block layout, ghost layer
/// included; the first 4 or 10 are StatisticsView's, then T's sum with mean_temperature), zero at the start, and the
/// sample count.
class FlowStatistics {
 public:
  /// `config` finalized (statistics enabled); `flags` the block's cell flags (block layout), kept as the interior's
  /// fluid mask; `thermal` whether the case has [thermal]. Throws DeviceError when the buffer cannot be allocated.
  FlowStatistics(const StatisticsConfig& config, const BlockShape& shape, const std::vector<CellFlag>& flags,
                 bool thermal);

  /// True when the step from time `step` samples: step >= start and (step - start) a multiple of every.
  bool samples_at(std::int64_t step) const { return step >= start_ && (step - start_) % every_ == 0; }
  /// The fused kernel's view of the sums.
  StatisticsView view() const { return StatisticsView{sums_.data(), shape_.n_cells(), second_moments_}; }
  /// T's sum (n_cells values, block layout), or nullptr without mean_temperature.
  double* temperature_sums() const {
    return temperature_ ? sums_.data() + std::int64_t(temperature_component()) * shape_.n_cells() : nullptr;
  }
  /// Counts the sample of the step from time `step` (after its kernels were queued).
  void count(std::int64_t step) {
    if (samples_ == 0) first_step_ = step;
    ++samples_;
  }

  std::int64_t samples() const { return samples_; }
  std::int64_t first_step() const { return first_step_; }
  bool second_moments() const { return second_moments_; }
  bool temperature() const { return temperature_; }
  int components() const {
    return (second_moments_ ? StatisticsView::kAllMoments : StatisticsView::kFirstMoments) + (temperature_ ? 1 : 0);
  }
  int temperature_component() const {
    return second_moments_ ? StatisticsView::kAllMoments : StatisticsView::kFirstMoments;
  }
  /// Device bytes of the sums.
  std::size_t device_bytes() const { return sums_.bytes(); }

  /// The interior's sums, count and fluid mask on the host (waits for the queued device work).
  StatisticsSums host_sums() const;
  /// The interior's sums exactly as stored, components x interior cells doubles as bytes (host_sums().sums), for
  /// checkpoints; and their replacement with the sample count and first step (the ghost layer's sums stay zero).
  /// Throws std::invalid_argument when `bytes` does not hold components() x interior cells doubles.
  std::vector<unsigned char> interior_bytes() const;
  void restore(const std::vector<unsigned char>& bytes, std::int64_t samples, std::int64_t first_step);
  /// Sets the sums and the count to zero (a restart from a checkpoint without statistics).
  void reset();

 private:
  BlockShape shape_;
  std::int64_t start_ = 0, every_ = 1;
  bool second_moments_ = false, temperature_ = false;
  DeviceBuffer<double> sums_;
  std::vector<unsigned char> fluid_;  // interior cells, MacroscopicFields order
  std::int64_t samples_ = 0, first_step_ = -1;
};

/// Components of the sums a block of `config` holds (0 without [statistics]): 4 or 10, plus 1 for mean_temperature.
int statistics_components(const CaseConfig& config);

}  // namespace eddy
