// io/case/open_boundaries.cpp: the open types of [boundary.<face>] (velocity_inlet, pressure_outlet, outflow,
// free_slip): their keys, the inlet's CSV profile file, and the checks and unit conversions of finalize_case.
// What each type does on the lattice, and its source: kernels/boundary_rules.hpp and cases/README.md ("Open
// boundaries").

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <system_error>

#include "io/case/sections.hpp"
#include "io/csv_table.hpp"
#include "kernels/lattice_units.hpp"

namespace eddy::case_io {
namespace {

/// Largest inlet profile file read (64 MiB: millions of points, far more than any face has cells).
constexpr std::uintmax_t kMaxProfileFileBytes = std::uintmax_t(64) << 20;

/// +1 when the inward normal of `face` points along +axis (a _min face), -1 otherwise.
int inward_sign(int face) { return face % 2 == 0 ? 1 : -1; }

/// "x_min" -> "boundary.x_min.<key>".
std::string face_key(int face, std::string_view key) {
  return "boundary." + std::string(kFaceNames[face]) + "." + std::string(key);
}

/// The tangential axes of `face` whose parabolic factor the inlet profile carries: non-periodic, more than one cell.
std::vector<int> walled_tangential_axes(const CaseConfig& config, int face) {
  std::vector<int> axes;
  for (int a = 0; a < 3; ++a) {
    if (a == face_axis(face)) continue;
    if (config.faces[2 * a].kind != FaceKind::periodic && config.size[a] > 1) axes.push_back(a);
  }
  return axes;
}

/// Reads the points of a profile = "csv" inlet on `face` from `path` (file format: cases/README.md, "Inlet profile
/// files"): coordinate columns named by the face's tangential axes (one or both), then either `u` (the speed into
/// the domain) or `ux`, `uy`, `uz`. Velocities are multiplied by `velocity_scale`, positions kept as written (cells,
/// or metres under [units]). A missing or unreadable file throws CaseFileError (exit 8), a malformed one InputError,
/// each naming `key`, the file and, where there is one, the line.
InletTable read_inlet_table(const std::string& key, const std::string& path, int face, double velocity_scale,
                            const Source& source) {
  const std::string where = source.origin() + ": " + key + ": ";
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw CaseFileError(blank_control_characters(where + "cannot open inlet profile file '" + path + "': " +
                                                 (ec ? ec.message() : std::string("No such file or directory"))));
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw CaseFileError(blank_control_characters(where + "inlet profile file '" + path + "' is not a regular file"));
  }
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > kMaxProfileFileBytes) {
    throw CaseFileError(blank_control_characters(
        where + "inlet profile file '" + path + "' " +
        (ec ? "cannot be read: " + ec.message()
            : "is too large: " + std::to_string(bytes) + " bytes exceeds the limit of 64 MiB")));
  }
  CsvTable csv;
  try {
    csv = read_csv(path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    if (what.rfind("cannot read", 0) == 0) throw CaseFileError(blank_control_characters(where + what));
    throw InputError(blank_control_characters(where + what));
  }
  const auto fail_line = [&](int line, const std::string& what) -> void {
    throw InputError(blank_control_characters(where + path + ":" + std::to_string(line) + ": " + what));
  };
  const int normal = face_axis(face);
  InletTable table;
  table.file = path;
  int normal_column = -1, vector_columns[3] = {-1, -1, -1}, coord_columns[2] = {-1, -1};
  for (std::size_t c = 0; c < csv.names.size(); ++c) {
    const std::string& name = csv.names[c];
    int axis = -1;
    for (int a = 0; a < 3; ++a) {
      if (name == kAxisNames[a]) axis = a;
    }
    if (axis >= 0) {
      if (axis == normal) {
        fail_line(csv.header_line, "column '" + name + "' is the axis normal to face " + kFaceNames[face] +
                                       "; the positions are across the face (columns " +
                                       std::string(kAxisNames[(normal + 1) % 3]) + ", " + kAxisNames[(normal + 2) % 3] +
                                       ")");
      }
      coord_columns[table.axes] = int(c);
      table.axis[table.axes++] = axis;
    } else if (name == "u") {
      normal_column = int(c);
    } else if (name == "ux" || name == "uy" || name == "uz") {
      vector_columns[name[1] - 'x'] = int(c);
    } else {
      fail_line(csv.header_line, "unknown column '" + name +
                                     "': expected one or two position columns (the axes across the face) and u (the "
                                     "speed into the domain) or ux, uy, uz");
    }
  }
  const bool vector = vector_columns[0] >= 0 || vector_columns[1] >= 0 || vector_columns[2] >= 0;
  if (table.axes == 0) {
    fail_line(csv.header_line, "no position column: give " + std::string(kAxisNames[(normal + 1) % 3]) + " or " +
                                   kAxisNames[(normal + 2) % 3] + " (or both) across face " + kFaceNames[face]);
  }
  if (vector == (normal_column >= 0) ||
      (vector && (vector_columns[0] < 0 || vector_columns[1] < 0 || vector_columns[2] < 0))) {
    fail_line(csv.header_line,
              "give the velocity as one column u (the speed into the domain) or as the three "
              "columns ux, uy, uz");
  }
  const std::size_t rows = csv.lines.size();
  // The distinct positions along each coordinate column, and the value of each row.
  std::array<std::vector<double>, 2> positions;
  for (int k = 0; k < table.axes; ++k) positions[k] = csv.columns[std::size_t(coord_columns[k])];
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < csv.names.size(); ++c) {
      if (!std::isfinite(csv.columns[c][r])) {
        fail_line(csv.lines[r], "column '" + csv.names[c] + "' is " +
                                    (std::isnan(csv.columns[c][r]) ? "empty or NaN" : "not finite") +
                                    ": every cell must be a finite number");
      }
    }
  }
  for (int k = 0; k < table.axes; ++k) {
    std::vector<double> distinct = positions[k];
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() < 2) {
      throw InputError(blank_control_characters(where + path + ": the points need at least two different " +
                                                kAxisNames[table.axis[k]] + " positions (found " +
                                                std::to_string(distinct.size()) + ")"));
    }
    table.coord[k] = distinct;
  }
  const std::size_t n0 = table.coord[0].size(), n1 = table.axes == 2 ? table.coord[1].size() : 1;
  table.velocity.assign(n0 * n1, {0.0, 0.0, 0.0});
  std::vector<int> seen(n0 * n1, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto index_of = [&](int k) {
      const auto& c = table.coord[k];
      return std::size_t(std::lower_bound(c.begin(), c.end(), positions[k][r]) - c.begin());
    };
    const std::size_t at = index_of(0) + n0 * (table.axes == 2 ? index_of(1) : 0);
    if (seen[at] != 0) {
      fail_line(csv.lines[r], "the same position as line " + std::to_string(seen[at]) + " (each point once)");
    }
    seen[at] = csv.lines[r];
    std::array<double, 3> v{0.0, 0.0, 0.0};
    if (vector) {
      for (int a = 0; a < 3; ++a) v[a] = csv.columns[std::size_t(vector_columns[a])][r];
    } else {
      v[normal] = inward_sign(face) * csv.columns[std::size_t(normal_column)][r];
    }
    if (inward_sign(face) * v[normal] < 0) {
      fail_line(csv.lines[r], "the velocity points out of the domain (its " + std::string(kAxisNames[normal]) +
                                  " component must point into it through face " + kFaceNames[face] + ")");
    }
    for (int a = 0; a < 3; ++a) table.velocity[at][a] = v[a] * velocity_scale;
  }
  if (rows != n0 * n1) {
    throw InputError(blank_control_characters(
        where + path + ": " + std::to_string(rows) + " points do not form a grid: " + std::to_string(n0) + " " +
        kAxisNames[table.axis[0]] + " positions" +
        (table.axes == 2 ? " times " + std::to_string(n1) + " " + kAxisNames[table.axis[1]] + " positions" : "") +
        " need " + std::to_string(n0 * n1) + " (every combination once)"));
  }
  return table;
}

/// `section` as one of the keys it may give (`keys`): the present ones.
std::vector<std::string_view> present(const Section& section, std::initializer_list<std::string_view> keys) {
  std::vector<std::string_view> found;
  for (auto key : keys) {
    if (section.has(key)) found.push_back(key);
  }
  return found;
}

/// boundary.<face>.sponge (the layer's thickness: cells, or m under [units]) and sponge_tau (the relaxation time at
/// the face, lattice units) into `b`; the checks that need the domain and physics.tau are finalize_sponge's.
void read_sponge(const Section& section, FaceBoundary& b, bool si) {
  if (const auto thickness = section.number("sponge")) {
    require_positive(section.entry("sponge"), *thickness, si ? "m" : "cells");
    b.sponge = *thickness;
  }
  if (const auto tau = section.number("sponge_tau")) {
    if (!section.has("sponge")) {
      section.fail("sponge_tau", section.path("sponge_tau") + " is the relaxation time at the face of a sponge layer, "
                                 "and the face has none: give " + section.path("sponge") + " (the layer's thickness" +
                                 (si ? ", m" : ", cells") + ") or remove sponge_tau");
    }
    b.sponge_tau = *tau;
  }
}

/// The sponge layer of open face `face`: its thickness in cells within half the domain along the face's axis (the
/// layers of both faces then cannot cover the axis), sponge_tau defaulted (refused where the default would not
/// raise physics.tau) and in (physics.tau, kMaxSpongeTau].
void finalize_sponge(CaseConfig& config, int face, const Source& source) {
  FaceBoundary& b = config.faces[face];
  if (b.sponge == 0.0) return;
  const int axis = face_axis(face);
  const std::string key = face_key(face, "sponge");
  require_finite(source, key, b.sponge);
  const double half = 0.5 * config.size[axis];
  if (!(b.sponge >= 1.0 && b.sponge <= half)) {
    const double to_unit = config.units.enabled ? config.units.dx : 1.0;
    const std::string unit = config.units.enabled ? " m" : " cells";
    Entry(source, key, fmt(b.sponge * to_unit) + unit)
        .out_of_range("the layer must be at least one cell (" + fmt(to_unit) + unit + ") and at most half the domain "
                      "along " + kAxisNames[axis] + " (" + fmt(half * to_unit) + unit + ") thick");
  }
  const std::string tau_key = face_key(face, "sponge_tau");
  if (!std::isfinite(b.sponge_tau)) {
    // The default raises tau to kDefaultSpongeTau; a fluid already that viscous has nothing for it to raise.
    if (!(config.tau < kDefaultSpongeTau)) {
      source.fail(key, key + " = " + fmt(b.sponge) + ": the layer would change nothing: physics.tau = " +
                           fmt(config.tau) + " is already at or above sponge_tau's default " +
                           fmt(kDefaultSpongeTau) + "; give " + tau_key + " between physics.tau and " +
                           fmt(kMaxSpongeTau) + ", or remove the layer (it is for runs with tau near 1/2)");
    }
    b.sponge_tau = kDefaultSpongeTau;
  }
  if (!(b.sponge_tau > config.tau && b.sponge_tau <= kMaxSpongeTau)) {
    Entry(source, tau_key, fmt(b.sponge_tau))
        .out_of_range("the relaxation time at the face of the sponge layer must lie above physics.tau (" +
                      fmt(config.tau) + ", the fluid's) and at most " + fmt(kMaxSpongeTau) +
                      ": the layer raises the viscosity nu = c_s^2 (tau - 1/2) towards the face");
  }
}

}  // namespace

FaceBoundary read_open_face(const Section& section, int face, FaceKind kind, double velocity_scale,
                            const CaseConfig& config) {
  FaceBoundary b;
  b.kind = kind;
  const bool si = config.units.enabled;
  b.in_si = si;
  const int axis = face_axis(face);
  const std::string unit = si ? " m/s" : " (in units of physics.velocity)";
  // Lattice cases give velocities in units of U; with [units] they are m/s, converted by finalize_case.
  const auto speed_scale = [&](std::string_view key) {
    if (si) return 1.0;
    if (velocity_scale == 0.0) {
      section.fail(key, section.quote(key) +
                            " is in units of physics.velocity, which is 0: set physics.velocity > 0 (the velocity "
                            "scale in lattice units)");
    }
    return velocity_scale;
  };
  switch (kind) {
    case FaceKind::velocity_inlet: {
      b.profile = section
                      .choice<InletProfile>("profile", {{"uniform", InletProfile::uniform},
                                                        {"parabolic", InletProfile::parabolic},
                                                        {"csv", InletProfile::csv}})
                      .value_or(InletProfile::uniform);
      const auto given = present(section, {"velocity", "mean_velocity", "max_velocity", "file"});
      const std::string profile =
          section.has("profile") ? section.quote("profile") : section.path("profile") + " = \"uniform\" (the default)";
      if (b.profile == InletProfile::csv) {
        for (auto key : given) {
          if (key != "file") {
            section.fail(key, section.path(key) + " contradicts " + profile +
                                  ": the CSV file gives the velocities; remove " + section.path(key));
          }
        }
        if (!section.has("file")) {
          section.fail("file", "missing key '" + section.path("file") + "': " + profile +
                                   " needs file = \"<profile>.csv\" (cases/README.md, \"Inlet profile files\")");
        }
      } else {
        if (section.has("file")) {
          section.fail("file", section.path("file") + " is only used with profile = \"csv\" (" + profile +
                                   "); remove it or set profile = \"csv\"");
        }
        if (b.profile == InletProfile::parabolic && section.has("velocity")) {
          section.fail("velocity", section.path("velocity") + " contradicts " + profile +
                                       ": a parabolic profile flows normal to the face; give mean_velocity or "
                                       "max_velocity (its speed) instead");
        }
        if (given.empty()) {
          section.fail(b.profile == InletProfile::parabolic ? "mean_velocity" : "velocity",
                       "missing key: [" + section.name() + "] type = \"velocity_inlet\" with " + profile + " needs " +
                           (b.profile == InletProfile::parabolic
                                ? std::string("mean_velocity or max_velocity (the speed into the domain")
                                : std::string("velocity = [vx, vy, vz], or mean_velocity or max_velocity (the speed "
                                              "into the domain")) +
                           unit + ")");
        }
        if (given.size() > 1) {
          section.fail(given[1], section.path(given[1]) + " contradicts " + section.path(given[0]) +
                                     ": give one of them (each fixes the inlet velocity)");
        }
      }
      if (const auto v = section.number3("velocity")) {
        if (!(inward_sign(face) * (*v)[axis] > 0.0)) {
          section.fail("velocity", section.quote("velocity") + " does not point into the domain: its " +
                                       kAxisNames[axis] + " component must be " + (face % 2 == 0 ? "> 0" : "< 0") +
                                       " on face " + kFaceNames[face]);
        }
        const double scale = speed_scale("velocity");
        for (int a = 0; a < 3; ++a) b.velocity[a] = (*v)[a] * scale;
      }
      for (std::string_view key : {"mean_velocity", "max_velocity"}) {
        if (const auto speed = section.number(key)) {
          require_positive(section.entry(key), *speed, si ? "m/s" : "units of physics.velocity");
          b.speed = *speed * speed_scale(key);
          b.mean_speed = key == "mean_velocity";
        }
      }
      if (const auto ramp = section.number("ramp_time")) {
        require_non_negative(section.entry("ramp_time"), *ramp, si ? "s" : "steps");
        b.ramp_time = *ramp;
      }
      if (const auto file = section.string("file")) {
        std::filesystem::path path(*file);
        if (path.is_relative()) path = std::filesystem::path(section.source().origin()).parent_path() / path;
        const double scale = si ? 1.0 : (velocity_scale > 0.0 ? velocity_scale : speed_scale("file"));
        b.table = read_inlet_table(section.path("file"), path.string(), face, scale, section.source());
      }
      break;
    }
    case FaceKind::pressure_outlet: {
      const auto given = present(section, {"density", "pressure"});
      if (given.size() > 1) {
        section.fail("pressure", section.path("pressure") + " contradicts " + section.path("density") +
                                     ": give one of them (each fixes the outlet density)");
      }
      if (const auto density = section.number("density")) {
        require_positive(section.entry("density"), *density, si ? "kg/m^3" : "lattice units; rho0 = 1");
        b.density = *density;
      }
      if (const auto pressure = section.number("pressure")) b.pressure = *pressure;
      if (si && !section.has("density") && !section.has("pressure")) b.density = config.units.density;
      break;
    }
    case FaceKind::outflow: {
      b.scheme = section
                     .choice<OutflowScheme>("scheme", {{"zero_gradient", OutflowScheme::zero_gradient},
                                                       {"convective", OutflowScheme::convective}})
                     .value_or(OutflowScheme::zero_gradient);
      if (const auto u = section.number("convection_velocity")) {
        if (b.scheme != OutflowScheme::convective) {
          section.fail("convection_velocity", section.path("convection_velocity") +
                                                  " is only used with scheme = \"convective\"; remove it or set the "
                                                  "scheme");
        }
        require_positive(section.entry("convection_velocity"), *u, si ? "m/s" : "units of physics.velocity");
        b.convection_velocity = *u * speed_scale("convection_velocity");
      }
      break;
    }
    default:
      break;
  }
  if (kind != FaceKind::free_slip) read_sponge(section, b, si);
  return b;
}

void finalize_open_boundaries(CaseConfig& config, const Source& source) {
  for (int face = 0; face < 6; ++face) {
    FaceBoundary& b = config.faces[face];
    if (!is_open_face(b.kind)) continue;
    const int axis = face_axis(face);
    const std::string name = kFaceNames[face];
    if (b.in_si) {
      if (!config.units.enabled) {
        source.fail(face_key(face, "type"), "boundary." + name + " holds SI values but the case has no [units]");
      }
      const double per_velocity = config.units.dt / config.units.dx;  // m/s -> lattice
      for (double& v : b.velocity) v *= per_velocity;
      b.speed *= per_velocity;
      b.convection_velocity *= per_velocity;
      b.ramp_time /= config.units.dt;
      b.sponge /= config.units.dx;
      for (auto& c : b.table.coord)
        for (double& x : c) x /= config.units.dx;
      for (auto& v : b.table.velocity)
        for (double& component : v) component *= per_velocity;
      if (b.kind == FaceKind::pressure_outlet) {
        if (std::isfinite(b.pressure)) {
          b.pressure_given = b.pressure;
          b.density = 1.0 + 3.0 * b.pressure * per_velocity * per_velocity / config.units.density;
          b.pressure = std::numeric_limits<double>::quiet_NaN();
        } else {
          b.density /= config.units.density;
        }
      }
      b.in_si = false;
    }
    if (std::isfinite(b.pressure)) {  // lattice units: p = c_s^2 (rho - 1)
      b.pressure_given = b.pressure;
      b.density = 1.0 + 3.0 * b.pressure;
      b.pressure = std::numeric_limits<double>::quiet_NaN();
    }
    if (config.thermal.enabled) {
      source.fail(face_key(face, "type"), "boundary." + name + ".type = \"" +
                                              (b.kind == FaceKind::velocity_inlet    ? "velocity_inlet"
                                               : b.kind == FaceKind::pressure_outlet ? "pressure_outlet"
                                               : b.kind == FaceKind::outflow         ? "outflow"
                                                                                     : "free_slip") +
                                              "\" is not supported with [thermal] yet (open boundaries carry no "
                                              "temperature condition); use walls or periodic faces, or remove "
                                              "[thermal]");
    }
    if (config.particles.enabled) {
      source.fail(face_key(face, "type"), "open boundaries (boundary." + name +
                                              ") are not supported with [particles] yet (particles leaving the "
                                              "domain are not removed); use walls or periodic faces, or remove "
                                              "[particles]");
    }
    if ((b.kind == FaceKind::pressure_outlet || b.kind == FaceKind::outflow || b.kind == FaceKind::velocity_inlet) &&
        config.size[axis] < 2) {
      source.fail(
          face_key(face, "type"),
          "boundary." + name + " needs at least 2 cells along " + kAxisNames[axis] + " (domain.size " +
              kAxisNames[axis] + " = " + std::to_string(config.size[axis]) +
              (b.kind == FaceKind::velocity_inlet ? "): a flow through a face one cell from its opposite face has "
                                                    "nowhere to go; make the axis periodic or longer"
                                                  : "): the rule reads the next cell inwards"));
    }
    for (double v : b.velocity) require_finite(source, face_key(face, "velocity"), v);
    finalize_sponge(config, face, source);
    switch (b.kind) {
      case FaceKind::velocity_inlet: {
        require_finite(source, face_key(face, "ramp_time"), b.ramp_time);
        if (b.ramp_time < 0) {
          Entry(source, face_key(face, "ramp_time"), fmt(b.ramp_time)).out_of_range("it must be >= 0 (steps)");
        }
        if (b.profile == InletProfile::uniform && b.speed > 0) {  // mean_velocity or max_velocity: normal
          b.velocity = {0.0, 0.0, 0.0};
          b.velocity[axis] = inward_sign(face) * b.speed;
          b.speed = 0.0;
          b.mean_speed = false;
        }
        if (b.profile == InletProfile::uniform && !(inward_sign(face) * b.velocity[axis] > 0)) {
          source.fail(face_key(face, "velocity"), face_key(face, "velocity") + " = " + fmt3(b.velocity) +
                                                      " (lattice units) does not point into the domain through " +
                                                      "face " + name);
        }
        if (b.profile == InletProfile::parabolic) {
          const std::vector<int> walled = walled_tangential_axes(config, face);
          if (walled.empty()) {
            source.fail(face_key(face, "profile"),
                        face_key(face, "profile") +
                            " = \"parabolic\" needs a tangential axis that is not periodic "
                            "and has more than one cell (the profile vanishes on its faces); "
                            "face " +
                            name + " has none");
          }
          if (b.mean_speed) {  // U_mean = 2/3 U_m (plane Poiseuille), 4/9 U_m (the duct product form)
            b.speed *= walled.size() == 1 ? 1.5 : 2.25;
            b.mean_speed = false;
          }
          if (!(b.speed > 0)) {
            Entry(source, face_key(face, "max_velocity"), fmt(b.speed)).out_of_range("it must be > 0");
          }
        }
        if (b.profile == InletProfile::csv) {
          const InletTable& t = b.table;
          if (t.axes < 1 || t.velocity.empty()) {
            source.fail(face_key(face, "file"), face_key(face, "file") + ": profile = \"csv\" needs a table of points");
          }
          for (int k = 0; k < t.axes; ++k) {
            const int a = t.axis[k];
            const double span = config.size[a], tolerance = 1e-6;
            if (t.coord[k].front() > tolerance || t.coord[k].back() < span - tolerance) {
              const double to_unit = config.units.enabled ? config.units.dx : 1.0;
              source.fail(face_key(face, "file"),
                          face_key(face, "file") + " = \"" + t.file + "\": the points cover " + kAxisNames[a] +
                              " from " + fmt(t.coord[k].front() * to_unit, 6) + " to " +
                              fmt(t.coord[k].back() * to_unit, 6) + ", but face " + name + " spans " + kAxisNames[a] +
                              " from 0 to " + fmt(span * to_unit, 6) + (config.units.enabled ? " m" : " cells") +
                              ": the profile must cover the whole face");
            }
          }
          // Not at rest everywhere (the reader refused velocities pointing out): an inlet, not a wall.
          double inflow = 0.0;
          for (const std::array<double, 3>& v : t.velocity) inflow = std::max(inflow, inward_sign(face) * v[axis]);
          if (!(inflow > 0)) {
            source.fail(face_key(face, "file"), face_key(face, "file") + " = \"" + t.file +
                                                    "\": no point's velocity has a component into the domain "
                                                    "through face " +
                                                    name + ", so nothing flows in (a wall would do that)");
          }
        }
        break;
      }
      case FaceKind::pressure_outlet: {
        // The key the case gave (density, or pressure turned into it), quoted as given.
        const bool from_pressure = std::isfinite(b.pressure_given);
        const std::string key = face_key(face, from_pressure ? "pressure" : "density");
        const std::string given = from_pressure
                                      ? fmt(b.pressure_given) + (config.units.enabled ? " Pa" : " (lattice units)")
                                      : fmt(b.density);
        require_finite(source, key, b.density);
        if (!(std::abs(b.density - 1.0) <= kMaxOutletDensityChange)) {
          Entry(source, key, given)
              .out_of_range(std::string(from_pressure ? "it gives " : "") + "the outlet density " + fmt(b.density) +
                            " (lattice units, rho0 = 1" +
                            (from_pressure
                                 ? std::string(config.units.enabled ? "; rho = 1 + p dt^2 / (c_s^2 rho_si dx^2)"
                                                                    : "; rho = 1 + p / c_s^2")
                                 : std::string(config.units.enabled ? "; kg/m^3 / units.density" : "")) +
                            "), which must lie within " + fmt(kMaxOutletDensityChange) +
                            " of 1: the domain starts at rho0, and a larger step at the face sends a pressure "
                            "wave of that size through it (lattice Boltzmann is weakly compressible)");
        }
        break;
      }
      case FaceKind::outflow:
        if (b.scheme == OutflowScheme::convective) {
          if (b.convection_velocity == 0.0) b.convection_velocity = config.velocity;
          if (!(b.convection_velocity > 0) || !std::isfinite(b.convection_velocity)) {
            source.fail(face_key(face, "convection_velocity"),
                        "boundary." + name +
                            ".scheme = \"convective\" needs a convection velocity: give "
                            "convection_velocity, or physics.velocity > 0 (its default)");
          }
          if (b.convection_velocity > 1.0) {  // the implicit upwind step's lambda = U_c dt / dx
            Entry(source, face_key(face, "convection_velocity"), fmt(b.convection_velocity) + " (lattice units)")
                .out_of_range(
                    "the convective outflow carries the populations at most one cell per step "
                    "(lambda = U_c dt / dx <= 1); the flow's own speed, its default, is the usual choice");
          }
        }
        break;
      default:
        break;
    }
  }
  // Two pressure outlets on different axes meet at an edge, whose cells take both rules: with different densities
  // the pressure jumps there, and the corner cells blew up within a few thousand steps (0.999 against 1, tau = 1).
  for (int first = 0; first < 6; ++first) {
    for (int second = first + 1; second < 6; ++second) {
      const FaceBoundary &a = config.faces[first], &b = config.faces[second];
      if (a.kind != FaceKind::pressure_outlet || b.kind != FaceKind::pressure_outlet || first / 2 == second / 2 ||
          a.density == b.density) {
        continue;
      }
      source.fail(face_key(second, "density"),
                  "boundary." + std::string(kFaceNames[first]) + " and boundary." + kFaceNames[second] +
                      " are pressure outlets that meet at an edge with different densities (" + fmt(a.density) +
                      " and " + fmt(b.density) +
                      ", lattice units): the pressure would jump along the edge, which makes its cells unstable; "
                      "give them the same density or pressure, or make one an outflow");
    }
  }
}

double open_face_speed(const FaceBoundary& b) {
  if (b.kind != FaceKind::velocity_inlet) return 0.0;
  const auto norm = [](const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
  switch (b.profile) {
    case InletProfile::uniform:
      return std::max(norm(b.velocity), b.speed);
    case InletProfile::parabolic:
      return b.speed;
    case InletProfile::csv: {
      double fastest = 0.0;
      for (const auto& v : b.table.velocity) fastest = std::max(fastest, norm(v));
      return fastest;
    }
  }
  return 0.0;
}

}  // namespace eddy::case_io
