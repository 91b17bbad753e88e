// kernels/thermal_analysis.hpp: the scales of the Boussinesq temperature model and the stability analysis of its
// explicit scalar update (kernels/scalar_transport.hpp), host-callable, for the case validation (io/) and reports.
//   kappa = nu / Pr,   g beta = Ra nu kappa / (dT L^3),   U_ff = sqrt(g beta dT L)           (lattice units)
// Sub-steps: dt = 1 LBM step split into n explicit updates. With d = kappa / n the diffusion number of one sub-step,
// the update is stable for d <= 1/6 (Gershgorin bound of the explicit update: the centre weight 1 - 6 d stays >= 0)
// and d <= 1/8 when a face is a fixed-temperature wall (the second-order wall flux puts 3 kappa on the wall cell:
// 1 - 8 d >= 0); the advective condition is sum C^2 / d <= 2 (Hindmarsh, Gresho & Griffiths 1984) with C = |U| / n,
// i.e. n >= |U|^2 / (2 kappa), taken with a factor-2 margin: n >= |U|^2 / kappa. n is the smallest meeting both.
// Each function is the exact sequence of floating-point operations the case validation used before (bitwise equal
// results). No backend header: plain host code (std::ceil, std::sqrt), no memory traffic.
#pragma once

#include <algorithm>
#include <cmath>

namespace eddy {

/// Thermal diffusivity kappa = nu / Pr (lattice units).
inline double thermal_diffusivity(double nu, double prandtl) { return nu / prandtl; }

/// Buoyancy g beta = Ra nu kappa / (dT L^3) (lattice force per unit temperature), for Ra > 0; L in cells.
inline double buoyancy_of(double rayleigh, double nu, double kappa, double temperature_difference, double length) {
  const double length3 = length * length * length;
  return rayleigh * nu * kappa / (temperature_difference * length3);
}

/// Free-fall velocity U_ff = sqrt(g beta dT L) (lattice units), the speed buoyancy drives the flow at.
inline double free_fall_velocity_of(double buoyancy, double temperature_difference, double length) {
  return std::sqrt(buoyancy * temperature_difference * length);
}

/// The explicit scalar sub-steps per LBM step and the bounds they come from.
struct ScalarSubsteps {
  double per_step = 6.0;         ///< 1 / d_max: 8 with a fixed-temperature wall, 6 otherwise
  double diffusion_steps = 1.0;  ///< ceil(kappa per_step): n with kappa / n <= 1 / per_step
  double advection_steps = 1.0;  ///< ceil(|U|^2 / kappa): n with n >= |U|^2 / kappa
  double steps = 1.0;            ///< max(1, diffusion_steps, advection_steps); the caller bounds it
};

/// Sub-steps of the explicit scalar update for diffusivity `kappa` > 0 and the largest speed `speed` (lattice
/// units); `fixed_wall`: some face holds a fixed temperature.
inline ScalarSubsteps scalar_substeps(double kappa, double speed, bool fixed_wall) {
  ScalarSubsteps n;
  n.per_step = fixed_wall ? 8.0 : 6.0;  // d = kappa / n <= 1/8, or 1/6 without fixed walls
  n.diffusion_steps = std::ceil(kappa * n.per_step);
  n.advection_steps = std::ceil(speed * speed / kappa);
  n.steps = std::max({1.0, n.diffusion_steps, n.advection_steps});
  return n;
}

}  // namespace eddy
