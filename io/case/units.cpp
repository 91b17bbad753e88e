// io/case/units.cpp: [units], a case given in SI units: the reader and the conversion to lattice units (dx, dt,
// U_lat, nu_lat; the formulas are kernels/lattice_units.hpp) with the checks that the grid resolves the flow.

#include <cmath>

#include "io/case/sections.hpp"
#include "kernels/lattice_units.hpp"

namespace eddy::case_io {
namespace {

constexpr double kMinUnitsCells = 8.0;      ///< [units]: fewest cells across the characteristic length
constexpr double kMaxUnitsViscosity = 0.5;  ///< [units]: nu_lat at most 1/2, tau <= 2

}  // namespace

/// Reads [units] (SI quantities); the lattice values are derived by finalize_units.
UnitsConfig read_units(const Section& section) {
  UnitsConfig u;
  if (!section.table()) return u;
  section.check_keys(section_keys("units"));
  u.enabled = true;
  const bool has_length = section.has("length"), has_dx = section.has("dx");
  if (has_length == has_dx) {
    section.fail(has_length ? "dx" : "length",
                 has_length ? "units.length and units.dx are given together: give one (length is the SI size of "
                              "physics.length cells, dx that of one cell)"
                            : "missing key 'units.length' (m: the characteristic length, spanned by physics.length "
                              "cells, default domain.size[0]) or 'units.dx' (m per cell)");
  }
  const auto positive = [&](std::string_view key, const char* unit) {
    const auto value = section.number(key);
    if (!value) {
      section.fail(key, "missing key '" + section.path(key) + "' (" + unit +
                            "): [units] needs length or dx, "
                            "velocity and viscosity");
    }
    if (!(*value > 0) || !std::isfinite(*value)) {
      section.entry(key).out_of_range(std::string("it must be a finite number > 0 (") + unit + ")");
    }
    return *value;
  };
  if (has_length) u.length = positive("length", "m");
  if (has_dx) u.dx = positive("dx", "m");
  u.velocity = positive("velocity", "m/s");
  u.viscosity = positive("viscosity", "m^2/s");
  if (section.has("density")) u.density = positive("density", "kg/m^3");
  if (section.has("lattice_velocity")) {
    u.lattice_velocity = positive("lattice_velocity", "lattice units");
  }
  return u;
}

/// [units] before finalize_physics: dx, dt, the lattice velocity and viscosity from the SI values. Refuses a grid
/// too coarse for the Reynolds number (tau too close to 1/2) or for the length (fewer than kMinUnitsCells cells
/// across it), with the numbers and the fix. Idempotent.
void finalize_units(CaseConfig& config, const Source& source) {
  UnitsConfig& u = config.units;
  if (!u.enabled) return;
  for (const auto& [key, value] : {std::pair<const char*, double>{"units.length", u.length},
                                   {"units.dx", u.dx},
                                   {"units.velocity", u.velocity},
                                   {"units.viscosity", u.viscosity},
                                   {"units.density", u.density},
                                   {"units.lattice_velocity", u.lattice_velocity}}) {
    require_finite(source, key, value);
  }
  const double cells = config.length > 0 ? config.length : double(config.size[0]);
  if (cells < kMinUnitsCells) {
    source.fail("physics.length", "physics.length = " + fmt(cells) + " cells across the characteristic length (" +
                                      fmt(u.length > 0 ? u.length : u.dx * cells) +
                                      " m) are too few to resolve it: "
                                      "use at least " +
                                      fmt(kMinUnitsCells) + " (domain.size, physics.length)");
  }
  if (u.length > 0) {
    u.dx = u.length / cells;
  } else {
    u.length = u.dx * cells;
  }
  if (!(u.lattice_velocity > 0) || mach_number(u.lattice_velocity) > kMachLimit) {
    Entry(source, "units.lattice_velocity", fmt(u.lattice_velocity))
        .out_of_range("it must be > 0 and keep Ma = sqrt(3) U_lat <= " + fmt(kMachLimit) +
                      " (U_lat <= " + fmt(speed_at_mach(kMachLimit), 4) + "; 0.1 is the default)");
  }
  u.dt = lattice_time_step(u.lattice_velocity, u.dx, u.velocity);
  const double nu = lattice_viscosity(u.viscosity, u.dt, u.dx);
  const double reynolds = u.velocity * u.length / u.viscosity;
  if (!std::isfinite(u.dt) || !std::isfinite(nu) || !(nu > 0)) {
    source.fail("units.viscosity", "the [units] values give no finite time step and viscosity (dt = " + fmt(u.dt) +
                                       " s, nu = " + fmt(nu) + " lattice): check their orders of magnitude");
  }
  // nu_lat = U_lat L_cells / Re: the lattice velocity that gives a wanted nu_lat on this grid.
  const auto lattice_velocity_for = [&](double nu_lat) { return nu_lat * reynolds / cells; };
  const double nu_min = min_viscosity(config);
  if (tau_from_viscosity(nu) < config.min_tau) {
    const double cells_needed = std::ceil(nu_min * reynolds / u.lattice_velocity);
    const double faster = lattice_velocity_for(nu_min);
    source.fail("units.viscosity",
                "units.viscosity = " + fmt(u.viscosity) + " m^2/s gives Re = U L / nu = " + fmt(reynolds, 6) +
                    ", which on " + fmt(cells) + " cells at lattice velocity " + fmt(u.lattice_velocity) +
                    " needs nu = " + fmt(nu, 4) + " (lattice): " + below_min_tau(config, tau_from_viscosity(nu)) +
                    "; use at least " + fmt(cells_needed) +
                    " cells across the length (domain.size and physics.length)" +
                    (faster <= speed_at_mach(kMachLimit)
                         ? ", or units.lattice_velocity >= " + fmt(faster, 4)
                         : std::string(" (a larger units.lattice_velocity cannot do it within Ma <= 0.3)")) +
                    accept_low_tau(tau_from_viscosity(nu)));
  }
  if (nu > kMaxUnitsViscosity) {
    source.fail("units.viscosity", "units.viscosity = " + fmt(u.viscosity) + " m^2/s gives Re = " + fmt(reynolds, 6) +
                                       ", which on " + fmt(cells) + " cells at lattice velocity " +
                                       fmt(u.lattice_velocity) + " needs tau = " + fmt(tau_from_viscosity(nu), 6) +
                                       ", far above 1 (inaccurate, and unstable at walls): lower "
                                       "units.lattice_velocity to about " +
                                       fmt(lattice_velocity_for(1.0 / 6.0), 4) + " (tau = 1), or use fewer cells");
  }
  config.velocity = u.lattice_velocity;
  config.nu = nu;
  config.tau = 0.0;  // derived from nu by finalize_physics
  config.reynolds = 0.0;
}

}  // namespace eddy::case_io
