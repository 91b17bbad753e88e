// kernels/lattice_units.hpp: the relations between the lattice quantities of the D3Q19 BGK/TRT model and their
// conversion from SI units, written once for the case validation (io/), the solver's reports (solver/) and the kernels'
// set-up code:
//   nu = c_s^2 (tau - 1/2) = (tau - 1/2) / 3,   tau = 3 nu + 1/2            (Krueger et al. 2017, eq. 3.44 / 4.18)
//   Ma = |u| / c_s = sqrt(3) |u|,   c_s = 1/sqrt(3)                         (Krueger et al. 2017, eq. 3.60)
//   dt = U_lat dx / U_si,   nu_lat = nu_si dt / dx^2                        (Krueger et al. 2017, section 7.2)
// Lattice units: dx = dt = 1, rho0 = 1. Plain constexpr (no backend header, so host-only io/ sources and the fuzz build
// include it): device code may call them too (nvcc with --expt-relaxed-constexpr, as eddy_kernels builds; HIP's clang
// treats constexpr functions as host and device). Each function is the exact sequence of floating-point operations
// its callers used before, so results stay bitwise equal. No memory traffic: scalar arithmetic only.
#pragma once

namespace eddy {

/// sqrt(3), correctly rounded (the double nearest sqrt(3), which std::sqrt(3.0) returns: IEEE sqrt is exact-rounded).
inline constexpr double kSqrt3 = 1.7320508075688772;

/// BGK relaxation time of the lattice kinematic viscosity nu (lattice units): tau = 3 nu + 1/2.
constexpr double tau_from_viscosity(double nu) { return 3.0 * nu + 0.5; }

/// Lattice kinematic viscosity of the relaxation time tau: nu = (tau - 1/2) / 3 (lattice units).
constexpr double viscosity_from_tau(double tau) { return (tau - 0.5) / 3.0; }

/// Lattice Mach number of a speed (lattice units): Ma = sqrt(3) |u| (c_s = 1/sqrt(3)).
constexpr double mach_number(double speed) { return speed * kSqrt3; }

/// The speed (lattice units) at Mach number ma: u = Ma / sqrt(3) (e.g. the largest speed within a Mach limit).
constexpr double speed_at_mach(double ma) { return ma / kSqrt3; }

/// SI time step (s) of one lattice step when the SI velocity velocity_si (m/s) is lattice_velocity in lattice units
/// on cells of dx (m): dt = U_lat dx / U_si.
constexpr double lattice_time_step(double lattice_velocity, double dx, double velocity_si) {
  return lattice_velocity * dx / velocity_si;
}

/// Lattice kinematic viscosity of the SI viscosity viscosity_si (m^2/s) on cells of dx (m) and steps of dt (s):
/// nu_lat = nu_si dt / dx^2.
constexpr double lattice_viscosity(double viscosity_si, double dt, double dx) { return viscosity_si * dt / (dx * dx); }

}  // namespace eddy
