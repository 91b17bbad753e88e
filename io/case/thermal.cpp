// io/case/thermal.cpp: [thermal]: the reader, the checks and defaults before the viscosity is known
// (finalize_thermal_inputs) and the derived values after it (finalize_thermal). The formulas of kappa, g beta, the
// free-fall velocity and the sub-step analysis are kernels/thermal_analysis.hpp.

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/case/sections.hpp"
#include "kernels/lattice_units.hpp"
#include "kernels/thermal_analysis.hpp"

namespace eddy::case_io {
namespace {

constexpr double kMaxTemperature = 1e30;  ///< largest |temperature| ([thermal], float arithmetic)
constexpr int kMaxThermalSubsteps = 64;   ///< explicit scalar sub-steps per LBM step

/// thermal.prandtl > 0, in the file and in the struct.
void require_prandtl(const Entry& entry, double prandtl) { require_positive(entry, prandtl, "Pr = nu / kappa"); }

/// thermal.rayleigh >= 0 (0 = passive scalar), in the file and in the struct.
void require_rayleigh(const Entry& entry, double rayleigh) {
  require_non_negative(entry, rayleigh,
                       entry.as_written() ? "Ra = g beta dT L^3 / (nu kappa); 0 = passive scalar, no buoyancy"
                                          : "0 = passive scalar, no buoyancy");
}

/// thermal.perturbation >= 0, in the file and in the struct.
void require_perturbation(const Entry& entry, double perturbation) {
  require_non_negative(
      entry, perturbation,
      entry.as_written() ? "amplitude of the initial perturbation of T, in temperature units; 0 = none" : "");
}

/// thermal.gravity, the direction of gravity: a non-zero vector (of finite components), in the file and in the struct.
void require_direction(const Entry& entry, const std::array<double, 3>& g) {
  if (std::max({std::abs(g[0]), std::abs(g[1]), std::abs(g[2])}) > 0) return;
  entry.fail(entry.as_written()
                 ? " has no direction: gravity is the direction of gravity (normalised), e.g. [0, -1, 0] "
                   "(the default); its size does not matter, Ra sets the strength"
                 : " has no direction: give the direction of gravity, a non-zero vector such as [0, -1, "
                   "0] (the default; its length does not matter)");
}

/// The fixed-temperature walls: whether there are any, and their extreme temperatures.
struct WallTemperatures {
  bool any_fixed = false;
  double coldest = std::numeric_limits<double>::infinity();
  double hottest = -std::numeric_limits<double>::infinity();
};

/// Checks the boundary.<face>.temperature walls (they need [thermal], a non-periodic face, a finite value) and
/// the "temperature" output field (it needs [thermal]).
WallTemperatures check_thermal_walls(const CaseConfig& config, const Source& source) {
  const ThermalConfig& t = config.thermal;
  WallTemperatures walls;
  for (int face = 0; face < 6; ++face) {
    if (t.walls[face] != ThermalWall::fixed) continue;
    const std::string key = "boundary." + std::string(kFaceNames[face]) + ".temperature";
    const double value = t.wall_temperature[face];
    if (!t.enabled) {
      source.fail(key, key + " = " + fmt(value) +
                           " needs a [thermal] section (the temperature field is only solved with it): add "
                           "[thermal] with at least prandtl, or remove " +
                           key);
    }
    if (config.faces[face].kind == FaceKind::periodic) {
      source.fail(key, key + " = " + fmt(value) + " is on a periodic face (axis " + kAxisNames[face_axis(face)] +
                           " is periodic in domain.periodic): only walls have a temperature; remove it or make the "
                           "axis non-periodic");
    }
    require_finite(source, key, value);
    walls.any_fixed = true;
    walls.coldest = std::min(walls.coldest, value);
    walls.hottest = std::max(walls.hottest, value);
  }
  const auto& fields = config.output_fields;
  if (!t.enabled && std::find(fields.begin(), fields.end(), "temperature") != fields.end()) {
    source.fail("output.fields",
                "output.fields lists \"temperature\", which needs a [thermal] section (the "
                "temperature field is only solved with it): add [thermal] or remove "
                "\"temperature\" from output.fields");
  }
  return walls;
}

/// Pr, Ra and the perturbation; the direction of gravity normalised.
void finalize_thermal_parameters(ThermalConfig& t, const Source& source) {
  require_finite(source, "thermal.prandtl", t.prandtl);
  require_prandtl(Entry(source, "thermal.prandtl", fmt(t.prandtl)), t.prandtl);
  require_finite(source, "thermal.rayleigh", t.rayleigh);
  require_rayleigh(Entry(source, "thermal.rayleigh", fmt(t.rayleigh)), t.rayleigh);
  require_finite(source, "thermal.perturbation", t.perturbation);
  require_perturbation(Entry(source, "thermal.perturbation", fmt(t.perturbation)), t.perturbation);
  // The direction of gravity, normalised; a vector already of unit length (to rounding) is kept as it is, so that a
  // second call does not move its last bits.
  auto& g = t.gravity_direction;
  for (double c : g) require_finite(source, "thermal.gravity", c);
  const double largest = std::max({std::abs(g[0]), std::abs(g[1]), std::abs(g[2])});
  require_direction(Entry(source, "thermal.gravity", fmt3(g)), g);
  // Scaled by the largest component first, so that neither huge nor tiny (subnormal) vectors overflow or underflow.
  const std::array<double, 3> scaled = {g[0] / largest, g[1] / largest, g[2] / largest};
  const double norm = largest * std::sqrt(scaled[0] * scaled[0] + scaled[1] * scaled[1] + scaled[2] * scaled[2]);
  if (std::abs(norm - 1.0) > 1e-14) {
    const double unit = std::sqrt(scaled[0] * scaled[0] + scaled[1] * scaled[1] + scaled[2] * scaled[2]);
    for (int a = 0; a < 3; ++a) g[a] = scaled[a] / unit;
  }
}

/// dT, T_ref and the initial T from the fixed walls where not given, each within kMaxTemperature; the length L from
/// the one heated axis where not given; Ra > 0 needs dT > 0.
void finalize_thermal_defaults(CaseConfig& config, const WallTemperatures& walls, const Source& source) {
  ThermalConfig& t = config.thermal;
  // Defaults from the fixed walls (0 = derive for dT, NaN = derive for the temperatures).
  require_finite(source, "thermal.temperature_difference", t.temperature_difference);
  if (t.temperature_difference < 0) {
    Entry(source, "thermal.temperature_difference", fmt(t.temperature_difference))
        .out_of_range("temperature_difference must be > 0 (dT of Ra; 0 = hottest minus coldest fixed wall)");
  }
  if (t.temperature_difference == 0.0 && walls.any_fixed) t.temperature_difference = walls.hottest - walls.coldest;
  if (std::isnan(t.reference_temperature))
    t.reference_temperature = walls.any_fixed ? (walls.coldest + walls.hottest) / 2 : 0.0;
  require_finite(source, "thermal.reference_temperature", t.reference_temperature);
  if (std::isnan(t.initial_temperature)) t.initial_temperature = t.reference_temperature;
  require_finite(source, "thermal.initial_temperature", t.initial_temperature);
  // Temperatures and their differences must stay finite in single precision (float and fp16 storage compute in
  // float): magnitudes up to 1e30 leave room for differences and products.
  const auto within = [&](const std::string& key, double value) {
    if (std::abs(value) > kMaxTemperature) {
      Entry(source, key, fmt(value))
          .out_of_range("temperatures must be within +-" + fmt(kMaxTemperature) +
                        " (the arithmetic is single precision with float and fp16 storage); use other temperature "
                        "units");
    }
  };
  for (int face = 0; face < 6; ++face) {
    if (t.walls[face] == ThermalWall::fixed) {
      within("boundary." + std::string(kFaceNames[face]) + ".temperature", t.wall_temperature[face]);
    }
  }
  within("thermal.reference_temperature", t.reference_temperature);
  within("thermal.initial_temperature", t.initial_temperature);
  within("thermal.perturbation", t.perturbation);
  within("thermal.temperature_difference", t.temperature_difference);
  if (t.temperature_difference > 0 && t.temperature_difference < 1.0 / kMaxTemperature) {
    Entry(source, "thermal.temperature_difference", fmt(t.temperature_difference))
        .out_of_range("it must be 0 (derived) or >= " + fmt(1.0 / kMaxTemperature) +
                      " (g beta = Ra nu kappa / (dT L^3) must stay finite in single precision)");
  }
  // Ra and Nu are built on the distance between the heated walls: with exactly one axis whose two faces both have a
  // fixed temperature (a cavity heated from the side, a layer heated from below), L defaults to its size.
  if (config.length == 0.0) {
    int heated_axes = 0, heated_axis = 0;
    for (int axis = 0; axis < 3; ++axis) {
      if (t.walls[2 * axis] == ThermalWall::fixed && t.walls[2 * axis + 1] == ThermalWall::fixed) {
        ++heated_axes;
        heated_axis = axis;
      }
    }
    if (heated_axes == 1) config.length = config.size[heated_axis];
  }
  if (t.rayleigh > 0 && !(t.temperature_difference > 0)) {
    source.fail("thermal.temperature_difference",
                "thermal.rayleigh = " + fmt(t.rayleigh) +
                    " > 0 needs a temperature difference dT > 0 (Ra = g beta dT L^3 / (nu kappa)), and the walls "
                    "give none (" +
                    (walls.any_fixed ? "every fixed wall is at " + fmt(walls.hottest)
                                     : std::string("no wall has a temperature")) +
                    "): give two walls different boundary.<face>.temperature values or set "
                    "thermal.temperature_difference (or set thermal.rayleigh = 0 for a passive scalar)");
  }
}

}  // namespace

/// Reads [thermal] (the section's presence turns the temperature field on). Needs nothing else; read before
/// [physics], whose viscosity keys it makes optional when Ra > 0. Defaults that depend on the walls (dT, T_ref, the
/// initial T) and the derived values are filled by finalize_thermal_inputs / finalize_thermal.
ThermalConfig read_thermal(const Section& section) {
  ThermalConfig t;
  if (!section.table()) return t;
  section.check_keys(section_keys("thermal"));
  t.enabled = true;
  const auto prandtl = section.number("prandtl");
  if (!prandtl) {
    section.fail("prandtl",
                 "missing required key 'thermal.prandtl' (Prandtl number Pr = nu / kappa > 0, e.g. 0.71 "
                 "for air; it fixes the diffusivity kappa = nu / Pr)");
  }
  require_prandtl(section.entry("prandtl"), *prandtl);
  t.prandtl = *prandtl;
  t.rayleigh = section.number("rayleigh").value_or(0.0);
  if (section.has("rayleigh")) require_rayleigh(section.entry("rayleigh"), t.rayleigh);
  if (const auto gravity = section.number3("gravity")) {
    require_direction(section.entry("gravity"), *gravity);
    t.gravity_direction = *gravity;  // normalised by finalize_thermal_inputs
  }
  if (const auto reference = section.number("reference_temperature")) t.reference_temperature = *reference;
  if (const auto difference = section.number("temperature_difference")) {
    require_positive(section.entry("temperature_difference"), *difference,
                     "dT of Ra; leave it out to take the hottest minus the coldest boundary.<face>.temperature");
    t.temperature_difference = *difference;
  }
  if (const auto initial = section.number("initial_temperature")) t.initial_temperature = *initial;
  t.perturbation = section.number("perturbation").value_or(0.0);
  if (section.has("perturbation")) require_perturbation(section.entry("perturbation"), t.perturbation);
  return t;
}

/// [thermal] before finalize_physics (which needs Pr and Ra when the free-fall velocity fixes nu): the temperature
/// walls and the "temperature" output field need the section; Pr, Ra, gravity and the perturbation are checked;
/// dT, T_ref and the initial T get their defaults from the fixed walls. Idempotent: a default is filled only where
/// the field still holds its "derive" value (0 for dT, NaN for the two temperatures), and filling it again gives the
/// same value. Without the section, NaN temperatures become 0 so that no NaN leaves finalize.
void finalize_thermal_inputs(CaseConfig& config, const Source& source) {
  ThermalConfig& t = config.thermal;
  const WallTemperatures walls = check_thermal_walls(config, source);
  if (!t.enabled) {
    if (std::isnan(t.reference_temperature)) t.reference_temperature = 0.0;
    if (std::isnan(t.initial_temperature)) t.initial_temperature = 0.0;
    return;
  }
  finalize_thermal_parameters(t, source);
  finalize_thermal_defaults(config, walls, source);
}

/// [thermal] after physics and the initial condition: kappa = nu / Pr, g beta = Ra nu kappa / (dT L^3), the
/// free-fall velocity (in the Mach check) and the sub-steps of the explicit scalar update, at most
/// kMaxThermalSubsteps, for the largest imposed speed (max_speed) or the free-fall velocity; the formulas and the
/// stability analysis are kernels/thermal_analysis.hpp. Recomputed from the current values on every call.
void finalize_thermal(CaseConfig& config, const Source& source) {
  ThermalConfig& t = config.thermal;
  if (!t.enabled) {
    t.diffusivity = 0.0;
    t.buoyancy = 0.0;
    t.substeps = 1;
    return;
  }
  t.diffusivity = thermal_diffusivity(config.nu, t.prandtl);
  t.buoyancy =
      t.rayleigh > 0 ? buoyancy_of(t.rayleigh, config.nu, t.diffusivity, t.temperature_difference, config.length) : 0.0;
  if (!std::isfinite(t.diffusivity) || !(t.diffusivity > 0) || !std::isfinite(t.buoyancy)) {
    source.fail(
        "thermal.prandtl",
        "thermal.prandtl = " + fmt(t.prandtl) +
            " gives derived values that are not all finite and positive (kappa = nu / Pr = " + fmt(t.diffusivity) +
            ", g beta = Ra nu kappa / (dT L^3) = " + fmt(t.buoyancy) + " with nu = " + fmt(config.nu) +
            ", dT = " + fmt(t.temperature_difference) + ", L = " + fmt(config.length) + ")");
  }
  // The speed buoyancy drives: U_ff = sqrt(g beta dT L) (with nu from the free-fall velocity it is physics.velocity;
  // with nu given by tau, viscosity or reynolds it follows from Ra).
  t.free_fall_velocity = free_fall_velocity_of(t.buoyancy, t.temperature_difference, config.length);
  if (mach_number(t.free_fall_velocity) > kMachLimit) {
    if (config.units.enabled) {
      source.fail("thermal.rayleigh",
                  "thermal.rayleigh = " + fmt(t.rayleigh) + " gives the free-fall velocity sqrt(g beta dT L) = " +
                      fmt(t.free_fall_velocity, 4) + " lattice units, Mach number " +
                      fmt(mach_number(t.free_fall_velocity), 4) + " > " + fmt(kMachLimit) +
                      ": with [units], set units.velocity to the free-fall velocity (nu / L) sqrt(Ra / Pr) = " +
                      fmt(config.units.viscosity / config.units.length * std::sqrt(t.rayleigh / t.prandtl), 6) +
                      " m/s, so that the lattice velocity measures it");
    }
    source.fail(
        "thermal.rayleigh",
        "thermal.rayleigh = " + fmt(t.rayleigh) + " with nu = " + fmt(config.nu, 6) +
            " gives the free-fall velocity sqrt(g beta dT L) = " + fmt(t.free_fall_velocity, 4) +
            " (g beta = " + fmt(t.buoyancy, 4) + ", L = " + fmt(config.length) + "), Mach number " +
            fmt(mach_number(t.free_fall_velocity), 4) + " > " + fmt(kMachLimit) +
            ": the buoyant flow would be too fast for the lattice; lower the viscosity (a smaller physics.tau or "
            "physics.viscosity, a larger physics.reynolds), or give none of them and set physics.velocity to the "
            "free-fall velocity (<= " +
            fmt(speed_at_mach(kMachLimit), 4) + "), from which nu = U L sqrt(Pr / Ra) follows");
  }
  const bool fixed_wall =
      std::any_of(t.walls.begin(), t.walls.end(), [](ThermalWall w) { return w == ThermalWall::fixed; });
  auto [speed, speed_key] = max_speed(config);
  if (t.free_fall_velocity > speed) {
    speed = t.free_fall_velocity;
    speed_key = "the free-fall velocity sqrt(g beta dT L)";
  }
  const ScalarSubsteps n = scalar_substeps(t.diffusivity, speed, fixed_wall);  // kernels/thermal_analysis.hpp
  const double steps = n.steps;
  if (!(steps <= kMaxThermalSubsteps)) {
    const bool diffusion_bound = n.diffusion_steps >= n.advection_steps;
    source.fail(
        "thermal.prandtl",
        "thermal.prandtl = " + fmt(t.prandtl) + " gives kappa = nu / Pr = " + fmt(t.diffusivity, 6) +
            " (nu = " + fmt(config.nu, 6) + "), and with |U| = " + fmt(speed, 6) + " (" + speed_key +
            ") the explicit temperature update needs n = " + fmt(steps, 12) + " sub-steps per LBM step, more than " +
            std::to_string(kMaxThermalSubsteps) + " (stability: kappa / n <= 1/" + fmt(n.per_step) +
            ", n >= |U|^2 / kappa = " + fmt(speed * speed / t.diffusivity, 6) + "); " +
            (diffusion_bound ? "kappa is too large: raise thermal.prandtl, or lower the viscosity (physics.tau or "
                               "physics.viscosity; at fixed reynolds or rayleigh, a lower physics.velocity)"
                             : "kappa is too small for the speed: lower physics.velocity, or raise the resolution "
                               "(domain.size and physics.length: at fixed reynolds or rayleigh nu grows with L), or "
                               "lower thermal.prandtl"));
  }
  t.substeps = static_cast<int>(steps);
}

}  // namespace eddy::case_io
