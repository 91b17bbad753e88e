// io/case/solids.cpp: [[solid]], solid bodies from analytic shapes (sphere, cylinder, box): the reader, the
// conversion from metres under [units] and the checks on the plain struct. Which cells a shape covers is
// solver/solid_shapes.hpp.

#include <algorithm>
#include <cmath>
#include <set>

#include "io/case/sections.hpp"
#include "solver/solid_reference.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy::case_io {
namespace {

/// The keys each shape takes besides name and shape.
const std::vector<std::string_view>& shape_keys(SolidShape shape) {
  static const std::vector<std::string_view> sphere = {"center", "radius"};
  static const std::vector<std::string_view> cylinder = {"start", "end", "radius"};
  static const std::vector<std::string_view> box = {"min", "max"};
  switch (shape) {
    case SolidShape::sphere:
      return sphere;
    case SolidShape::cylinder:
      return cylinder;
    case SolidShape::box:
      return box;
  }
  return box;
}

const char* shape_name(SolidShape shape) {
  switch (shape) {
    case SolidShape::sphere:
      return "sphere";
    case SolidShape::cylinder:
      return "cylinder";
    case SolidShape::box:
      return "box";
  }
  return "box";
}

/// "solid[<n>]", how messages name the n-th [[solid]] table (from 0, in file order).
std::string solid_path(std::size_t n) { return "solid[" + std::to_string(n) + "]"; }

// The rules the reader and finalize_solids share: written once each.

/// radius > 0 (cells, or m under [units]).
void require_radius(const Entry& entry, double radius, bool metres) {
  require_positive(entry, radius, metres ? "m" : "cells");
}

/// The cylinder's axis has a length: start != end.
void require_axis(const Source& source, const std::string& path, const std::array<double, 3>& start,
                  const std::array<double, 3>& end) {
  if (start != end) return;
  source.fail(path + ".end", path + ".start = " + fmt3(start) + " and " + path + ".end = " + fmt3(end) +
                                 " give a cylinder axis of zero length: start and end must differ");
}

/// The box is not empty: min < max on every axis.
void require_box(const Source& source, const std::string& path, const std::array<double, 3>& lo,
                 const std::array<double, 3>& hi) {
  for (int axis = 0; axis < 3; ++axis) {
    if (lo[axis] < hi[axis]) continue;
    source.fail(path + ".max", path + ".min = " + fmt3(lo) + " and " + path + ".max = " + fmt3(hi) +
                                   " give an empty box: min < max is needed on every axis (the " + kAxisNames[axis] +
                                   " axis is not)");
  }
}

/// The name is non-empty and not that of an earlier solid.
void require_name(const Source& source, const std::string& path, const std::string& name, std::set<std::string>& seen) {
  if (name.empty()) {
    source.fail(path + ".name", path + ".name = \"\" is not allowed: give each solid a non-empty name");
  }
  if (!seen.insert(name).second) {
    source.fail(path + ".name",
                path + ".name = \"" + name + "\" is used by an earlier solid: each [[solid]] needs a name of its own");
  }
}

/// The keys of a [[solid]] that only forces = true uses.
constexpr std::string_view kForceReferenceKeys[] = {"reference_area", "reference_velocity", "reference_length",
                                                    "drag_direction", "lift_direction"};

/// A direction vector is not zero (its length is what normalising divides by).
void require_direction(const Source& source, const std::string& key, const std::array<double, 3>& v) {
  if (v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0) return;
  source.fail(key, key + " = " + fmt3(v) + " is not a direction: give a non-zero vector (it is normalised)");
}

/// One [[solid]] table.
SolidConfig read_solid(const Section& section, bool metres, std::set<std::string>& seen) {
  section.check_keys(section_keys("solid"));
  SolidConfig s;
  const auto name = section.string("name");
  if (!name) {
    section.fail("name", "missing required key '" + section.path("name") + "' (a unique name for the solid)");
  }
  require_name(section.source(), section.name(), *name, seen);
  s.name = *name;
  const auto shape = section.choice<SolidShape>(
      "shape", {{"sphere", SolidShape::sphere}, {"cylinder", SolidShape::cylinder}, {"box", SolidShape::box}});
  if (!shape) {
    section.fail("shape", "missing required key '" + section.path("shape") +
                              "': \"sphere\" (center, radius), \"cylinder\" (start, end, radius) or \"box\" (min, "
                              "max)");
  }
  s.shape = *shape;
  const auto& keys = shape_keys(s.shape);
  for (std::string_view key : {"center", "radius", "start", "end", "min", "max"}) {
    const bool used = std::find(keys.begin(), keys.end(), key) != keys.end();
    if (section.has(key) && !used) {
      section.fail(key, section.path(key) + " is not used by shape = \"" + shape_name(s.shape) +
                            "\" (its keys: " + join(keys) + ")");
    }
    if (!section.has(key) && used) {
      section.fail(key, "missing key '" + section.path(key) + "': shape = \"" + shape_name(s.shape) + "\" needs " +
                            join(keys) + (metres ? " (in m: the case has [units])" : " (in cells)"));
    }
  }
  const auto point = [&](std::string_view key) { return *section.number3(key); };
  switch (s.shape) {
    case SolidShape::sphere:
      s.center = point("center");
      break;
    case SolidShape::cylinder:
      s.start = point("start");
      s.end = point("end");
      require_axis(section.source(), section.name(), s.start, s.end);
      break;
    case SolidShape::box:
      s.min = point("min");
      s.max = point("max");
      require_box(section.source(), section.name(), s.min, s.max);
      break;
  }
  if (s.shape != SolidShape::box) {
    s.radius = *section.number("radius");
    require_radius(section.entry("radius"), s.radius, metres);
  }
  s.wall =
      section.choice<SolidWall>("wall", {{"interpolated", SolidWall::interpolated}, {"halfway", SolidWall::halfway}})
          .value_or(SolidWall::interpolated);
  s.forces = section.boolean("forces").value_or(false);
  for (std::string_view key : kForceReferenceKeys) {
    if (section.has(key) && !s.forces) {
      section.fail(key, section.path(key) + " is used only with " + section.path("forces") +
                            " = true (the coefficients of the force on the solid)");
    }
  }
  if (const auto area = section.number("reference_area")) {
    require_positive(section.entry("reference_area"), *area, metres ? "m^2" : "cells^2");
    s.reference_area = *area;
  }
  if (const auto velocity = section.number("reference_velocity")) {
    require_positive(section.entry("reference_velocity"), *velocity, metres ? "m/s" : "lattice units");
    s.reference_velocity = *velocity;
  }
  if (const auto length = section.number("reference_length")) {
    require_positive(section.entry("reference_length"), *length, metres ? "m" : "cells");
    s.reference_length = *length;
  }
  for (const auto& [key, direction] :
       {std::pair<std::string_view, std::array<double, 3>*>{"drag_direction", &s.drag_direction},
        {"lift_direction", &s.lift_direction}}) {
    if (const auto v = section.number3(key)) {
      require_direction(section.source(), section.path(key), *v);
      *direction = *v;
    }
  }
  s.in_metres = metres;
  return s;
}

/// The references of the force coefficients of the solids with forces = true (defaults filled, directions
/// normalised, lift perpendicular to drag), and [forces] (its sampling interval derived from them).
void finalize_force_references(CaseConfig& config, const Source& source) {
  double shortest_period = 0.0;  // the smallest L / U over the solids with forces, lattice steps
  for (std::size_t n = 0; n < config.solids.size(); ++n) {
    SolidConfig& s = config.solids[n];
    const std::string path = solid_path(n);
    if (!s.forces) {
      const bool any = s.reference_area != 0.0 || s.reference_velocity != 0.0 || s.reference_length != 0.0 ||
                       s.drag_direction != std::array<double, 3>{} || s.lift_direction != std::array<double, 3>{};
      if (any) source.fail(path + ".forces", path + " has force references but not forces = true");
      continue;
    }
    for (const auto& [key, value] : {std::pair<const char*, double>{"reference_area", s.reference_area},
                                     {"reference_velocity", s.reference_velocity},
                                     {"reference_length", s.reference_length}}) {
      require_finite(source, path + "." + key, value);
      require_non_negative(Entry(source, path + "." + key, fmt(value)), value, "0 = the default");
    }
    for (double x : s.drag_direction) require_finite(source, path + ".drag_direction", x);
    for (double x : s.lift_direction) require_finite(source, path + ".lift_direction", x);
    s.drag_direction =
        s.drag_direction == std::array<double, 3>{} ? default_drag_direction(config) : unit_vector(s.drag_direction);
    s.lift_direction = s.lift_direction == std::array<double, 3>{} ? default_lift_direction(s.drag_direction)
                                                                   : unit_vector(s.lift_direction);
    const double cosine = dot3(s.drag_direction, s.lift_direction);
    if (std::abs(cosine) > 1e-9) {
      source.fail(path + ".lift_direction",
                  path + ".lift_direction = " + fmt3(s.lift_direction) + " is not perpendicular to " + path +
                      ".drag_direction = " + fmt3(s.drag_direction) + " (normalised; their angle is " +
                      fmt(std::acos(std::clamp(cosine, -1.0, 1.0)) * 180.0 / M_PI, 6) +
                      " degrees): the lift is the force component across the drag direction");
    }
    if (s.reference_velocity == 0.0) s.reference_velocity = config.velocity;
    if (!(s.reference_velocity > 0.0)) {
      source.fail(path + ".reference_velocity",
                  path + " has forces = true but no reference velocity: physics.velocity is " + fmt(config.velocity) +
                      "; give " + path + ".reference_velocity (the U of C_D = 2 F / (rho U^2 A))");
    }
    if (s.reference_area == 0.0) s.reference_area = projected_area(s, s.drag_direction, config.size);
    if (!(s.reference_area > 0.0)) {
      source.fail(path + ".reference_area", path + " projects no area inside the domain (it lies outside it); give " +
                                                path + ".reference_area for its coefficients");
    }
    if (s.reference_length == 0.0) s.reference_length = default_reference_length(s, s.lift_direction, config.size);
    if (!(s.reference_length > 0.0)) {
      source.fail(path + ".reference_length", path +
                                                  " has no extent along its lift direction inside the domain; give " +
                                                  path + ".reference_length for its Strouhal number");
    }
    const double period = s.reference_length / s.reference_velocity;
    if (shortest_period == 0.0 || period < shortest_period) shortest_period = period;
  }
  ForcesConfig& f = config.forces;
  if (shortest_period == 0.0) {
    if (f.present) {
      source.fail("forces", "[forces] is used only with a [[solid]] that has forces = true (none has)");
    }
    return;
  }
  require_in(Entry(source, "forces.every", std::to_string(f.every)), f.every, 0, kNoUpperBound,
             "every must be >= 1 (steps between force samples)");
  if (f.every == 0) {
    const double every = std::max(1.0, std::round(0.1 * shortest_period));
    f.every = std::min<std::int64_t>(config.report_every, every > 1e15 ? std::int64_t(1e15) : std::int64_t(every));
  }
  if (!std::isnan(f.statistics_from)) require_finite(source, "forces.statistics_from", f.statistics_from);
}

}  // namespace

void read_forces(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("forces"));
  config.forces.present = true;
  if (const auto every = section.integer("every")) {
    require_in(section.entry("every"), *every, 1, kNoUpperBound, "every must be >= 1 (steps between force samples)");
    config.forces.every = *every;
  }
  if (const auto from = section.number("statistics_from")) config.forces.statistics_from = *from;
}

void read_solids(const Source& source, const toml::table& root, bool metres, CaseConfig& config) {
  const toml::node* node = root.get("solid");
  if (!node) return;
  const auto* array = node->as_array();
  if (!array || !array->is_array_of_tables()) {
    source.fail("solid", "solid = " + node_text(*node) + " has the wrong type (" + type_name(*node) +
                             "): expected an array of tables, one [[solid]] header per body");
  }
  std::set<std::string> seen;
  for (std::size_t n = 0; n < array->size(); ++n) {
    const Section section(source, (*array)[n].as_table(), solid_path(n));
    config.solids.push_back(read_solid(section, metres, seen));
  }
}

void finalize_solids(CaseConfig& config, const Source& source) {
  if (config.solids.empty()) return finalize_force_references(config, source);  // refuses a [forces] section
  std::set<std::string> seen;
  for (std::size_t n = 0; n < config.solids.size(); ++n) {
    SolidConfig& s = config.solids[n];
    const std::string path = solid_path(n);
    require_name(source, path, s.name, seen);
    if (s.in_metres && !config.units.enabled) {
      source.fail(path, path + " is given in metres but the case has no [units] section to convert them");
    }
    // Every length finite: as given, and again in cells (a huge value over a tiny dx can overflow).
    const auto require_finite_lengths = [&] {
      const std::pair<const char*, const std::array<double, 3>*> points[] = {
          {"center", &s.center}, {"start", &s.start}, {"end", &s.end}, {"min", &s.min}, {"max", &s.max}};
      for (const auto& [key, v] : points) {
        for (double x : *v) require_finite(source, path + "." + key, x);
      }
      require_finite(source, path + ".radius", s.radius);
    };
    require_finite_lengths();
    if (s.in_metres) {
      // Metres to cells: x_lat = x / dx, the length scale of [units] (finalize_units): cell i's centre is at
      // (i + 0.5) dx, as in the VTK output.
      const double dx = config.units.dx;
      for (auto* v : {&s.center, &s.start, &s.end, &s.min, &s.max}) {
        for (double& x : *v) x /= dx;
      }
      s.radius /= dx;
      require_finite_lengths();
      // The force references in SI: an area in m^2, a velocity in m/s, a length in m (0 stays 0: derive).
      s.reference_area /= config.units.dx * config.units.dx;
      s.reference_velocity /= config.units.dx / config.units.dt;
      s.reference_length /= config.units.dx;
      s.in_metres = false;
    }
    switch (s.shape) {
      case SolidShape::sphere:
        require_radius(Entry(source, path + ".radius", fmt(s.radius)), s.radius, false);
        break;
      case SolidShape::cylinder:
        require_radius(Entry(source, path + ".radius", fmt(s.radius)), s.radius, false);
        require_axis(source, path, s.start, s.end);
        break;
      case SolidShape::box:
        require_box(source, path, s.min, s.max);
        break;
    }
  }
  // Solid bodies are adiabatic resting walls: the scalar scheme (kernels/scalar_transport.hpp) would give their
  // surfaces the temperature of a domain face, and particles see only the domain faces.
  if (config.thermal.enabled) {
    for (int face = 0; face < 6; ++face) {
      if (config.thermal.walls[face] != ThermalWall::fixed) continue;
      source.fail("solid", std::string("[[solid]] with a fixed-temperature wall (boundary.") + kFaceNames[face] +
                               ".temperature) is not supported yet: the temperature scheme would give the solids' "
                               "surfaces that wall's temperature; remove the solids or the wall temperatures");
    }
  }
  finalize_force_references(config, source);
  if (config.particles.enabled) {
    source.fail("solid",
                "[[solid]] with [particles] is not supported yet: particles do not see the solids (they "
                "would move through them); remove one of the two");
  }
  // Interpolated walls run a pass over the cut links after every step on the whole block (in core only): out of
  // core the slabs advance several steps per visit without it.
  if (config.out_of_core.mode == OutOfCoreMode::on) {
    for (std::size_t n = 0; n < config.solids.size(); ++n) {
      if (config.solids[n].wall != SolidWall::interpolated) continue;
      const std::string path = solid_path(n);
      source.fail(path + ".wall", path +
                                      ".wall = \"interpolated\" (the default without a wall key) is not supported with "
                                      "numerics.out_of_core = true: the interpolated walls' pass over the cut links "
                                      "needs the whole block on the device; set " +
                                      path + ".wall = \"halfway\" or numerics.out_of_core = false");
    }
  }
  if (!solids_leave_fluid(config.solids, config.size)) {
    source.fail("solid", "the solids cover every cell of the domain (domain.size = " + fmt3(config.size) +
                             "): no fluid cell is left");
  }
}

}  // namespace eddy::case_io
