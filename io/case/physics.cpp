// io/case/physics.cpp: [physics] and [initial]: the viscosity (exactly one of reynolds, tau, viscosity, or the
// free-fall velocity of [thermal]), tau and its limits (numerics.min_tau), the initial condition and the Mach check.
// The lattice relations (tau = 3 nu + 1/2, Ma = sqrt(3) u) are kernels/lattice_units.hpp.

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "io/case/sections.hpp"
#include "kernels/lattice_units.hpp"

namespace eddy::case_io {
namespace {

constexpr double kMaxTau = 1e6;         ///< keeps omega = 1/tau away from 0
constexpr double kMinVelocity = 1e-12;  ///< nonzero U: 1/U stays finite in float

/// physics.velocity >= 0 (lattice units), in the file and in the struct.
void require_velocity(const Entry& entry, double velocity) {
  require_non_negative(
      entry, velocity,
      entry.as_written() ? "a speed in lattice units; directions are set by boundary.<face>.velocity" : "");
}

/// physics.length > 0 (cells), in the file and in the struct (where 0 is replaced by domain.size[0] first).
void require_length(const Entry& entry, double length) { require_positive(entry, length, "cells"); }

/// tau > 1/2 (nu = (tau - 1/2)/3 > 0): physics.tau in the file, or the tau finalize_physics derives (its message
/// adds the other ways to raise it).
void require_tau_above_half(const Entry& entry, double tau) {
  if (tau > 0.5) return;
  entry.out_of_range(std::string("tau must be > 0.5 (nu = (tau - 1/2)/3 must be positive); raise tau") +
                     (entry.as_written() ? "" : ", or lower reynolds / raise velocity or length"));
}

/// tau (derived from `key` = `value`, `how` shows the derivation) must be > 0.5 and, finite, < kMaxTau.
void check_tau(const Source& source, const std::string& key, double value, double tau, const std::string& how) {
  const Entry entry(source, key, fmt(value) + how);
  require_tau_above_half(entry, tau);
  if (!(tau < kMaxTau)) {
    entry.out_of_range("tau = " + fmt(tau) + " is too large: tau must be < " + fmt(kMaxTau) +
                       " (omega = 1/tau must stay well above 0); lower tau or viscosity, or raise reynolds");
  }
}

/// Refuses tau below numerics.min_tau for a viscosity fixed in lattice units by `key`, naming the fix: more cells
/// across L (Re = U L / nu fixed), a larger U where Ma allows it, or a larger tau or viscosity. Cases in SI are
/// checked, with their own fixes, by finalize_units.
void check_min_tau(const CaseConfig& config, const Source& source, const std::string& key, double value,
                   const std::string& how) {
  if (config.tau >= config.min_tau || config.units.enabled) return;
  const double nu_min = min_viscosity(config);
  const double max_velocity = speed_at_mach(kMachLimit);
  std::string fix;
  if (key == "physics.tau") {
    fix = "raise physics.tau to at least " + fmt(config.min_tau);
  } else if (key == "physics.viscosity") {
    fix = "raise physics.viscosity to at least " + fmt(nu_min, 6) + " (lattice units)";
  } else {
    // nu = U L / Re, or U L sqrt(Pr / Ra) for the free-fall velocity: nu grows with L and with U alike.
    const double per_length_velocity = config.nu / (config.velocity * config.length);
    const double cells = std::ceil(nu_min / (per_length_velocity * config.velocity));
    const double velocity = nu_min / (per_length_velocity * config.length);
    fix = "resolve the flow with at least " + fmt(cells) + " cells across the characteristic length (now " +
          fmt(config.length) + "; domain.size and physics.length)" +
          (velocity <= max_velocity ? ", or raise physics.velocity to at least " + fmt(velocity, 4)
                                    : std::string(" (a larger physics.velocity cannot do it within Ma <= 0.3)"));
  }
  source.fail(key, key + " = " + fmt(value) + how + ": " + below_min_tau(config, config.tau) + "; " + fix +
                       accept_low_tau(config.tau));
}

}  // namespace

/// Reads [physics]; exactly one of reynolds / tau / viscosity, or, with [thermal] and Ra > 0 (read before), none:
/// then physics.velocity is the free-fall velocity. finalize derives the rest.
void read_physics(const Section& section, const ThermalConfig& thermal, const UnitsConfig& units, CaseConfig& config) {
  section.check_keys(section_keys("physics"));
  config.velocity = section.number("velocity").value_or(0.0);
  if (section.has("velocity")) require_velocity(section.entry("velocity"), config.velocity);
  if (const auto length = section.number("length")) {
    require_length(section.entry("length"), *length);
    config.length = *length;
  }
  if (units.enabled) {  // [units] fixes U and nu in SI
    for (std::string_view key : {"velocity", "reynolds", "tau", "viscosity"}) {
      if (!section.has(key)) continue;
      section.fail(key, section.path(key) +
                            " is not used with [units]: the SI velocity and viscosity there fix it (lattice U = "
                            "units.lattice_velocity, nu = units.viscosity dt / dx^2); remove " +
                            section.path(key));
    }
    config.velocity = units.lattice_velocity;  // wall velocities are in units of it
    config.body_force = section.number3("body_force").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
    return;
  }

  std::vector<std::string_view> given;
  for (std::string_view key : {"reynolds", "tau", "viscosity"}) {
    if (section.has(key)) given.push_back(key);
  }
  const bool free_fall = thermal.enabled && thermal.rayleigh > 0;
  if (given.empty() && free_fall && !(config.velocity > 0)) {
    section.fail("velocity",
                 (section.has("velocity") ? section.quote("velocity") + " is out of range"
                                          : std::string("missing key 'physics.velocity'")) +
                     ": with thermal.rayleigh > 0 and none of reynolds, tau, viscosity, physics.velocity is the "
                     "free-fall velocity U = sqrt(g beta dT L) that sets Ma and fixes nu = U L sqrt(Pr / Ra); give "
                     "physics.velocity > 0 (e.g. 0.05), or one of reynolds, tau, viscosity");
  }
  if (given.empty() && !free_fall) {
    section.fail("reynolds",
                 "missing key: [physics] needs exactly one of reynolds, tau, viscosity (each fixes the viscosity: "
                 "nu = (tau - 1/2)/3 = U L / Re)" +
                     std::string(thermal.enabled ? "; or, with [thermal], none of them and thermal.rayleigh > 0: then "
                                                   "physics.velocity is the free-fall velocity and nu = U L sqrt(Pr "
                                                   "/ Ra) (thermal.rayleigh is 0 here)"
                                                 : ""));
  }
  if (given.size() > 1) {
    section.fail(given[1],
                 "physics." + join(given, " and physics.") +
                     " are given together: give exactly one of reynolds, tau, viscosity (each fixes the viscosity "
                     "nu = (tau - 1/2)/3 = U L / Re)");
  }
  if (const auto reynolds = section.number("reynolds")) {
    require_positive(section.entry("reynolds"), *reynolds);
    config.reynolds = *reynolds;
  }
  if (const auto viscosity = section.number("viscosity")) {
    require_positive(section.entry("viscosity"), *viscosity, "lattice units, nu = (tau - 1/2)/3");
    config.nu = *viscosity;
  }
  if (const auto tau = section.number("tau")) {
    require_tau_above_half(section.entry("tau"), *tau);
    config.tau = *tau;
  }
  config.body_force = section.number3("body_force").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
}

/// The initial types of [initial] type, as the case file names them: one list for the reader and the messages.
const std::vector<std::pair<std::string_view, InitialKind>>& initial_types() {
  static const std::vector<std::pair<std::string_view, InitialKind>> types = {
      {"rest", InitialKind::rest},
      {"taylor_green_2d", InitialKind::taylor_green_2d},
      {"taylor_green_3d", InitialKind::taylor_green_3d},
      {"turbulent_channel", InitialKind::turbulent_channel}};
  return types;
}

/// The name of an initial type in the case file.
std::string initial_type_name(InitialKind kind) {
  for (const auto& [name, value] : initial_types())
    if (value == kind) return std::string(name);
  return "";
}

/// initial.perturbation in (0, 1]: |u'| at most that fraction of U_b.
void require_perturbation(const Entry& entry, double perturbation) {
  if (perturbation > 0.0 && perturbation <= 1.0) return;
  entry.out_of_range("perturbation must be in (0, 1]: the bound of the start's perturbation speed |u'|, as a "
                     "fraction of the bulk velocity");
}

void read_initial(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("initial"));
  config.initial.kind = section.choice<InitialKind>("type", initial_types()).value_or(InitialKind::rest);
  const auto amplitude = section.number("amplitude");
  if (amplitude && config.initial.kind == InitialKind::rest) {
    section.fail("amplitude", section.path("amplitude") +
                                  " is only used by type = \"taylor_green_2d\", \"taylor_green_3d\" or "
                                  "\"turbulent_channel\" (type is \"rest\")");
  }
  if (amplitude && *amplitude == 0.0) {
    section.fail("amplitude",
                 section.quote("amplitude") + " must be non-zero (for a fluid at rest use initial.type = \"rest\")");
  }
  if (const auto perturbation = section.number("perturbation")) {
    if (config.initial.kind != InitialKind::turbulent_channel) {
      section.fail("perturbation", section.path("perturbation") + " is only used by type = \"turbulent_channel\" "
                                   "(type is \"" + initial_type_name(config.initial.kind) + "\")");
    }
    require_perturbation(section.entry("perturbation"), *perturbation);
    config.initial.perturbation = *perturbation;
  }
  if (config.initial.kind != InitialKind::rest) {
    config.initial.amplitude = amplitude.value_or(1.0) * config.velocity;  // lattice units: A * U
  }
}

/// The largest speed of the initial field (lattice units): the Taylor-Green amplitude (the peak of either vortex);
/// for the channel the bound (1.1 + perturbation) U_b (kernels/initialize.cpp).
double initial_speed(const InitialCondition& initial) {
  if (initial.kind == InitialKind::rest) return 0.0;
  if (initial.kind != InitialKind::turbulent_channel) return std::abs(initial.amplitude);
  return (1.1 + initial.perturbation) * std::abs(initial.amplitude);
}

/// The largest speed the case imposes (lattice units) and the key it comes from: |U|, moving-wall speeds and the
/// Taylor-Green amplitude (the peak speed of either vortex is its amplitude).
std::pair<double, std::string> max_speed(const CaseConfig& config) {
  std::pair<double, std::string> result{std::abs(config.velocity), "physics.velocity"};
  for (int face = 0; face < 6; ++face) {
    if (config.faces[face].kind != FaceKind::moving_wall) continue;
    const auto& v = config.faces[face].velocity;
    const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (speed > result.first) result = {speed, "boundary." + std::string(kFaceNames[face]) + ".velocity"};
  }
  for (int face = 0; face < 6; ++face) {  // velocity inlets: the fastest point of the profile
    const FaceBoundary& b = config.faces[face];
    const double speed = open_face_speed(b);
    if (speed <= result.first) continue;
    const char* key = b.profile == InletProfile::csv         ? "file"
                      : b.profile == InletProfile::parabolic ? "max_velocity"
                                                             : "velocity";
    result = {speed, "boundary." + std::string(kFaceNames[face]) + "." + key};
  }
  if (initial_speed(config.initial) > result.first) result = {initial_speed(config.initial), "initial.amplitude"};
  if (config.thermal.free_fall_velocity > result.first) {  // derived by finalize_thermal
    result = {config.thermal.free_fall_velocity, "thermal.rayleigh"};
  }
  return result;
}

/// nu at tau = numerics.min_tau: the smallest viscosity a run accepts.
double min_viscosity(const CaseConfig& config) { return viscosity_from_tau(config.min_tau); }

/// numerics.min_tau in (0.5, 1] (before it is used by finalize_units and finalize_physics).
void finalize_min_tau(const CaseConfig& config, const Source& source) {
  require_finite(source, "numerics.min_tau", config.min_tau);
  if (!(config.min_tau > 0.5) || config.min_tau > 1.0) {
    Entry(source, "numerics.min_tau", fmt(config.min_tau))
        .out_of_range("min_tau must be > 0.5 and <= 1 (0.51 is the default)");
  }
}

/// "tau = ... is too close to tau = 1/2 ...": the common part of the messages that refuse a tau too close to 1/2.
std::string below_min_tau(const CaseConfig& config, double tau) {
  return "tau = " + fmt(tau, 6) +
         " is too close to tau = 1/2 to stay stable (below numerics.min_tau = " + fmt(config.min_tau) + ")";
}

/// The way to run anyway: the closing part of the same messages.
std::string accept_low_tau(double tau) {
  return "; or, to accept the risk of an instability, set numerics.min_tau to at most " + fmt(tau, 9) + " (> 0.5)";
}

/// Derives nu, tau and Re from whichever fixes the viscosity: tau > 0, else nu > 0, else reynolds > 0 (needs U > 0),
/// else, with [thermal] and Ra > 0, the free-fall velocity U: nu = U L sqrt(Pr / Ra) (finalize_thermal_inputs has
/// checked Pr and Ra). A second call finds tau set and keeps nu, which gives that tau exactly (nu = (tau - 1/2)/3
/// computed again could differ in the last bits, and Re, kappa and g beta with it).
void finalize_physics(CaseConfig& config, const Source& source) {
  require_finite(source, "physics.velocity", config.velocity);
  require_finite(source, "physics.length", config.length);
  require_finite(source, "physics.tau", config.tau);
  require_finite(source, "physics.viscosity", config.nu);
  require_finite(source, "physics.reynolds", config.reynolds);
  for (double f : config.body_force) require_finite(source, "physics.body_force", f);
  const Entry velocity(source, "physics.velocity", fmt(config.velocity));
  require_velocity(velocity, config.velocity);
  if (config.velocity > 0 && config.velocity < kMinVelocity) {
    velocity.out_of_range("velocity must be 0 or >= " + fmt(kMinVelocity) + " (output velocities are divided by it)");
  }
  if (config.length == 0.0) config.length = config.size[0];
  const Entry length(source, "physics.length", fmt(config.length));
  require_length(length, config.length);
  if (!std::isfinite(1.0 / config.length)) {
    length.out_of_range("too small, 1/length is not a finite number (output lengths are divided by it)");
  }
  // Output time t = step U / L must stay finite up to the last step.
  const double last_time = double(std::max<std::int64_t>(config.steps, 1)) * config.velocity / config.length;
  if (!std::isfinite(last_time)) {
    length.out_of_range("too small for physics.velocity = " + fmt(config.velocity) +
                        ", the output time step * U / L is not a finite number");
  }

  if (config.tau > 0) {
    check_tau(source, "physics.tau", config.tau, config.tau, "");
    if (!(config.nu > 0) || tau_from_viscosity(config.nu) != config.tau) config.nu = viscosity_from_tau(config.tau);
    check_min_tau(config, source, "physics.tau", config.tau, "");
  } else if (config.nu > 0) {
    config.tau = tau_from_viscosity(config.nu);
    check_tau(source, "physics.viscosity", config.nu, config.tau, " (tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.viscosity", config.nu, "");
  } else if (config.reynolds > 0) {
    if (config.velocity <= 0) {
      source.fail("physics.reynolds", "physics.reynolds = " + fmt(config.reynolds) +
                                          " needs physics.velocity > 0 (Re = U L / nu; U is 0 here): set "
                                          "physics.velocity, or give tau or viscosity instead of reynolds");
    }
    config.nu = config.velocity * config.length / config.reynolds;
    config.tau = tau_from_viscosity(config.nu);
    check_tau(source, "physics.reynolds", config.reynolds, config.tau,
              " (nu = U L / Re = " + fmt(config.nu) + ", tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.reynolds", config.reynolds,
                  " (U = " + fmt(config.velocity) + ", L = " + fmt(config.length) +
                      " cells, nu = U L / Re = " + fmt(config.nu, 6) + ")");
  } else if (config.thermal.enabled && config.thermal.rayleigh > 0) {
    const ThermalConfig& t = config.thermal;
    if (!(config.velocity > 0)) {
      velocity.out_of_range(
          "with thermal.rayleigh > 0 and none of reynolds, tau, viscosity, physics.velocity is the free-fall velocity "
          "U = sqrt(g beta dT L) that sets Ma and fixes nu = U L sqrt(Pr / Ra); set physics.velocity > 0 (e.g. 0.05), "
          "or one of reynolds, tau, viscosity");
    }
    config.nu = config.velocity * config.length * std::sqrt(t.prandtl / t.rayleigh);
    config.tau = tau_from_viscosity(config.nu);
    check_tau(source, "physics.velocity", config.velocity, config.tau,
              " (the free-fall velocity: nu = U L sqrt(Pr / Ra) = " + fmt(config.nu) +
                  " with L = " + fmt(config.length) + ", Pr = " + fmt(t.prandtl) + ", Ra = " + fmt(t.rayleigh) +
                  ", tau = " + fmt(config.tau) + ")");
    check_min_tau(config, source, "physics.velocity", config.velocity,
                  " (the free-fall velocity: nu = U L sqrt(Pr / Ra) = " + fmt(config.nu, 6) +
                      " with L = " + fmt(config.length) + " cells)");
  } else {
    source.fail(
        "physics",
        "one of physics.reynolds, physics.tau, physics.viscosity must be given and positive (each "
        "fixes the viscosity nu = (tau - 1/2)/3 = U L / Re)" +
            std::string(config.thermal.enabled ? "; or, with [thermal], none of them and thermal.rayleigh > 0 with "
                                                 "physics.velocity > 0 the free-fall velocity: nu = U L sqrt(Pr / Ra) "
                                                 "(thermal.rayleigh is 0 here)"
                                               : ""));
  }
  config.reynolds = config.velocity > 0 ? config.velocity * config.length / config.nu : 0.0;
  // tau in (0.5, kMaxTau) makes nu = (tau - 1/2)/3 and omega = 1/tau finite; Re can still overflow for a huge L.
  if (!std::isfinite(config.nu) || !std::isfinite(config.omega()) || !std::isfinite(config.reynolds)) {
    length.out_of_range("the derived values are not all finite (nu = " + fmt(config.nu) + ", tau = " + fmt(config.tau) +
                        ", Re = U L / nu = " + fmt(config.reynolds) + ")");
  }
}

/// The turbulent channel needs the channel it is made for: x and z periodic, resting walls at y_min and y_max.
void require_channel_faces(const CaseConfig& config, const Source& source) {
  for (const int axis : {0, 2}) {
    if (config.faces[2 * axis].kind == FaceKind::periodic) continue;
    source.fail("initial.type", std::string("initial.type = \"turbulent_channel\" needs x and z periodic: set "
                                            "domain.periodic = [true, false, true] (axis ") +
                                    kAxisNames[axis] + " is not periodic)");
  }
  for (const int face : {2, 3}) {
    if (config.faces[face].kind == FaceKind::wall) continue;
    source.fail("initial.type", std::string("initial.type = \"turbulent_channel\" needs resting walls at y_min and "
                                            "y_max (the channel's walls; flow along x): boundary.") +
                                    kFaceNames[face] + " is not a resting wall");
  }
}

void finalize_initial(CaseConfig& config, const Source& source) {
  require_finite(source, "initial.amplitude", config.initial.amplitude);
  if (config.initial.kind == InitialKind::rest) return;
  if (config.initial.amplitude == 0.0) config.initial.amplitude = config.velocity;
  const std::string type = initial_type_name(config.initial.kind);
  if (config.initial.amplitude == 0.0) {
    source.fail("initial.amplitude", std::string("initial.type = \"") + type +
                                         "\" needs a non-zero amplitude: set physics.velocity > 0 (initial.amplitude "
                                         "is in units of it)");
  }
  if (config.initial.kind == InitialKind::turbulent_channel) {
    require_finite(source, "initial.perturbation", config.initial.perturbation);
    require_perturbation(Entry(source, "initial.perturbation", fmt(config.initial.perturbation)),
                         config.initial.perturbation);
    require_channel_faces(config, source);
    return;
  }
  const int axes = config.initial.kind == InitialKind::taylor_green_2d ? 2 : 3;
  for (int axis = 0; axis < axes; ++axis) {
    if (config.faces[2 * axis].kind != FaceKind::periodic) {
      source.fail("initial.type",
                  std::string("initial.type = \"") + type + "\" needs " +
                      (axes == 2 ? "x and y periodic: set domain.periodic = [true, true, ...]"
                                 : "all three axes periodic: set domain.periodic = [true, true, true]") +
                      " (axis " + kAxisNames[axis] + " is not periodic)");
    }
  }
}

void finalize_mach(const CaseConfig& config, const Source& source) {
  const auto [speed, key] = max_speed(config);
  const double ma = config.mach();
  if (ma <= kMachLimit) return;
  if (config.units.enabled) {  // U is units.lattice_velocity: the fix is there
    source.fail(key, "Mach number Ma = " + fmt(ma, 4) + " exceeds the limit " + fmt(kMachLimit) +
                         " (u_max = " + fmt(speed, 6) + " lattice units from " + key + "; tau = " + fmt(config.tau, 6) +
                         "); lower " + "units.lattice_velocity to at most " +
                         fmt(config.units.lattice_velocity * kMachLimit / ma, 4) + " (the speeds scale with it), or " +
                         "slow the fastest wall");
  }
  source.fail(
      key, "Mach number Ma = " + fmt(ma, 4) + " exceeds the limit " + fmt(kMachLimit) +
               " (Ma = sqrt(3) u_max, u_max = " + fmt(speed, 6) + " lattice units from " + key +
               "; tau = " + fmt(config.tau, 6) + ", nu = " + fmt(config.nu, 6) +
               "); use a smaller velocity: u_max <= " + fmt(speed_at_mach(kMachLimit), 4) +
               " keeps Ma <= 0.3 (lower physics.velocity; at fixed reynolds this also lowers tau, which must stay >= "
               "numerics.min_tau = " +
               fmt(config.min_tau) + ", so refine the grid as U drops)");
}

}  // namespace eddy::case_io
