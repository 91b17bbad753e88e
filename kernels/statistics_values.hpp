// The averages of [statistics] of one cell from its running sums (solver/flow_statistics.hpp, StatisticsView):
//   <q> = S_q / N                                    the sample mean (Pope 2000, Turbulent Flows, eq. 3.2)
//   u_rms,a = sqrt(<u_a u_a> - <u_a>^2)             (eq. 3.10; negative round-off differences give 0)
//   R_ab = <u'_a u'_b> = <u_a u_b> - <u_a><u_b>     the kinematic Reynolds stress (eq. 4.1), VTK's component order
//   p = c_s^2 (<rho> - rho0)                         the lattice pressure, rho0 = 1, as a pressure outlet's
// with the output's scaling: velocities divided by the velocity scale, products of two by its square, the density
// times the density scale, the pressure by density scale / velocity scale^2. Pure functions, host and device: the
// host's read-out (statistics_field_values) and the device's (statistics_readout) both take them.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/views.hpp"

namespace eddy {

/// The averaged quantities of [statistics] (their names and units: io/output_fields.hpp, source statistics).
enum class StatisticsQuantity {
  mean_velocity,
  velocity_rms,
  reynolds_stress,
  mean_density,
  mean_pressure,
  mean_temperature
};

/// Components of `q`: 3 (mean_velocity, velocity_rms), 6 (reynolds_stress) or 1.
EDDY_HOST_DEVICE constexpr int statistics_components(StatisticsQuantity q) {
  return q == StatisticsQuantity::reynolds_stress                                             ? 6
         : q == StatisticsQuantity::mean_velocity || q == StatisticsQuantity::velocity_rms ? 3
                                                                                              : 1;
}

/// Component c (0..5) of a symmetric tensor in VTK's order xx, yy, zz, xy, yz, xz (vtkMath::TensorFromSymmetricTensor):
/// its row a and column b.
EDDY_HOST_DEVICE constexpr int tensor_row(int c) { return c < 3 ? c : (c == 4 ? 1 : 0); }
EDDY_HOST_DEVICE constexpr int tensor_column(int c) { return c < 3 ? c : (c == 3 ? 1 : 2); }

/// Output scaling of the averages (the header): u_scale = 1 / the velocity scale, density = the density scale.
struct StatisticsUnits {
  double u_scale = 1.0;
  double density = 1.0;
};

/// Writes the statistics_components(q) values of quantity `q` of one cell to out[c * stride]: `sums` points at the
/// cell's sum of component 0, component k lies k * sum_stride further (StatisticsView's order; T's sum at
/// `temperature_component`), `inverse` = 1 / N.
EDDY_HOST_DEVICE inline void statistics_values(StatisticsQuantity q, const double* sums, std::int64_t sum_stride,
                                               double inverse, int temperature_component,
                                               const StatisticsUnits& units, double* out, std::int64_t stride) {
  const double uu = units.u_scale * units.u_scale;
  switch (q) {
    case StatisticsQuantity::mean_velocity:
      for (int a = 0; a < 3; ++a) out[a * stride] = sums[(1 + a) * sum_stride] * inverse * units.u_scale;
      break;
    case StatisticsQuantity::velocity_rms:
      for (int a = 0; a < 3; ++a) {
        const double m = sums[(1 + a) * sum_stride] * inverse;
        const double variance = sums[StatisticsView::product(a, a) * sum_stride] * inverse - m * m;
        out[a * stride] = std::sqrt(variance > 0.0 ? variance : 0.0) * units.u_scale;
      }
      break;
    case StatisticsQuantity::reynolds_stress:
      for (int c = 0; c < 6; ++c) {
        const int a = tensor_row(c), b = tensor_column(c);
        const double product = sums[StatisticsView::product(a, b) * sum_stride] * inverse;
        out[c * stride] =
            (product - sums[(1 + a) * sum_stride] * inverse * (sums[(1 + b) * sum_stride] * inverse)) * uu;
      }
      break;
    case StatisticsQuantity::mean_density:
      out[0] = sums[0] * inverse * units.density;
      break;
    case StatisticsQuantity::mean_pressure:
      out[0] = (sums[0] * inverse - 1.0) / 3.0 * units.density * uu;
      break;
    case StatisticsQuantity::mean_temperature:
      out[0] = sums[temperature_component * sum_stride] * inverse;
      break;
  }
}

}  // namespace eddy
