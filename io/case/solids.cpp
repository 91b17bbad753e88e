// io/case/solids.cpp: [[solid]], solid bodies from analytic shapes (sphere, cylinder, box), surface meshes and voxel
// files: the reader, the conversion from metres under [units] and the checks on the plain struct. Which cells a
// shape covers is solver/solid_shapes.hpp; the files are read later, by load_solid_files (io/solid_files.hpp), and
// meshes voxelised on the device (solver/mesh_voxeliser.hpp).

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "io/case/sections.hpp"
#include "solver/solid_reference.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy::case_io {
namespace {

/// The keys of one kind of solid besides name, forces and the kind's own key (shape, mesh, voxels).
struct KindKeys {
  std::vector<std::string_view> required, optional;
};

/// Every key that belongs to some kinds only: each must be one of the kind's.
const std::vector<std::string_view> kKindKeys = {"center",     "radius", "start", "end",       "min",
                                                 "max",        "rotate", "scale", "translate", "repair",
                                                 "dimensions", "offset", "array"};

const KindKeys& kind_keys(SolidShape shape) {
  static const KindKeys sphere = {{"center", "radius"}, {}};
  static const KindKeys cylinder = {{"start", "end", "radius"}, {}};
  static const KindKeys box = {{"min", "max"}, {"rotate"}};
  static const KindKeys mesh = {{}, {"scale", "rotate", "translate", "repair"}};
  static const KindKeys voxels = {{}, {"dimensions", "offset", "array"}};
  switch (shape) {
    case SolidShape::sphere:
      return sphere;
    case SolidShape::cylinder:
      return cylinder;
    case SolidShape::box:
      return box;
    case SolidShape::mesh:
      return mesh;
    case SolidShape::voxels:
      return voxels;
  }
  return box;
}

/// How messages name a kind: shape = "sphere", ..., mesh, voxels.
std::string kind_text(SolidShape shape) {
  switch (shape) {
    case SolidShape::sphere:
      return "shape = \"sphere\"";
    case SolidShape::cylinder:
      return "shape = \"cylinder\"";
    case SolidShape::box:
      return "shape = \"box\"";
    case SolidShape::mesh:
      return "a mesh solid";
    case SolidShape::voxels:
      return "a voxels solid";
  }
  return "";
}

/// "solid[<n>]", how messages name the n-th [[solid]] table (from 0, in file order).
std::string solid_path(std::size_t n) { return "solid[" + std::to_string(n) + "]"; }

/// The lower-case extension of a path (".stl"), "" when none.
std::string extension_of(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

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

/// A mesh file's format is its extension: .stl, .obj or .ply.
void require_mesh_format(const Source& source, const std::string& path, const std::string& file) {
  const std::string ext = extension_of(file);
  if (ext == ".stl" || ext == ".obj" || ext == ".ply") return;
  source.fail(path + ".mesh", path + ".mesh = \"" + file +
                                  "\": the mesh format is taken from the extension, which must be .stl (binary or "
                                  "ASCII), .obj or .ply");
}

/// Every scale factor > 0.
void require_scale(const Source& source, const std::string& path, const std::array<double, 3>& scale) {
  for (double f : scale) {
    if (!(f > 0)) {
      source.fail(path + ".scale", path + ".scale = " + fmt3(scale) + " is out of range: every factor must be > 0");
    }
  }
}

/// A raw voxel file's dimensions: each >= 1, at most 2^40 voxels.
void require_dimensions(const Source& source, const std::string& path, const std::array<std::int64_t, 3>& d) {
  double voxels = 1.0;
  for (std::int64_t n : d) {
    if (n < 1 || n > (std::int64_t(1) << 30)) {
      source.fail(path + ".dimensions",
                  path + ".dimensions = " + fmt3(d) + " is out of range: each dimension must be >= 1 and <= 2^30");
    }
    voxels *= double(n);
  }
  if (voxels > std::ldexp(1.0, 40)) {
    source.fail(path + ".dimensions",
                path + ".dimensions = " + fmt3(d) + " is out of range: at most 2^40 voxels in all");
  }
}

/// The voxels' offset is a whole number of cells (within 1e-6 cells, then rounded): voxel (i, j, k) covers cell
/// offset + (i, j, k). `metres` says the value was given in m (already divided by dx).
void require_whole_offset(const Source& source, const std::string& path, std::array<double, 3>& offset, bool metres) {
  for (double& v : offset) {
    const double whole = std::round(v);
    if (std::abs(v - whole) > 1e-6 || std::abs(whole) > std::ldexp(1.0, 31)) {
      source.fail(path + ".offset",
                  path + ".offset = " + fmt3(offset) + (metres ? " cells (from metres)" : "") +
                      " is not allowed: each voxel covers one cell, so the offset must be a whole number of cells "
                      "(within 1e-6), at most 2^31 in magnitude");
    }
    v = whole;
  }
}

/// The file key's path resolved against the case file's directory.
std::string resolved_path(const Section& section, const std::string& file) {
  std::filesystem::path path(file);
  if (path.is_relative()) path = std::filesystem::path(section.source().origin()).parent_path() / path;
  return path.string();
}

/// Which kind of solid the table describes: exactly one of shape, mesh and voxels.
SolidShape read_kind(const Section& section) {
  const bool shape = section.has("shape"), mesh = section.has("mesh"), voxels = section.has("voxels");
  if (int(shape) + int(mesh) + int(voxels) > 1) {
    const std::string_view first = shape ? "shape" : "mesh", second = voxels ? "voxels" : "mesh";
    section.fail(second, section.path(first) + " and " + section.path(second) +
                             " are given together: a solid is exactly one of a shape, a mesh and a voxel file");
  }
  if (mesh) return SolidShape::mesh;
  if (voxels) return SolidShape::voxels;
  const auto kind = section.choice<SolidShape>(
      "shape", {{"sphere", SolidShape::sphere}, {"cylinder", SolidShape::cylinder}, {"box", SolidShape::box}});
  if (!kind) {
    section.fail("shape", "missing required key '" + section.path("shape") + "' (or " + section.path("mesh") + ", or " +
                              section.path("voxels") +
                              "): \"sphere\" (center, radius), \"cylinder\" (start, end, radius) or \"box\" (min, "
                              "max); or mesh = a surface mesh file; or voxels = a voxel file");
  }
  return *kind;
}

/// scale: one factor for every axis, or three.
std::array<double, 3> read_scale(const Section& section) {
  const toml::node* node = section.find("scale");
  if (!node) return {1.0, 1.0, 1.0};
  if (node->is_array()) return *section.number3("scale");
  const auto factor = section.number("scale");
  if (!factor) section.wrong_type("scale", "a number or an array of 3 numbers");
  return {*factor, *factor, *factor};
}

/// The file of a mesh or voxels solid: a non-empty string, resolved against the case file's directory.
std::string read_file(const Section& section, std::string_view key, std::string_view what) {
  const auto file = section.string(key);
  if (file->empty()) {
    section.fail(key, section.path(key) + " = \"\" is not allowed: give the path of " + std::string(what) +
                          " (relative to the case file's directory)");
  }
  return resolved_path(section, *file);
}

/// The wall a solid gets without a wall key: half-way for a voxels solid (its surface lies on the faces between
/// cells, half-way along every cut link), interpolated for the others.
SolidWall default_wall(SolidShape shape) {
  return shape == SolidShape::voxels ? SolidWall::halfway : SolidWall::interpolated;
}

/// A voxels solid has no wall position finer than its cells: wall = "interpolated" is refused on it.
[[noreturn]] void refuse_interpolated_voxels(const Source& source, const std::string& path) {
  source.fail(path + ".wall", path +
                                  ".wall = \"interpolated\" is not available for a voxels solid: its surface lies on "
                                  "the faces between cells, half-way along every cut link, which is wall = "
                                  "\"halfway\" (its default); remove the key or set it to \"halfway\"");
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
  s.shape = read_kind(section);
  const KindKeys& keys = kind_keys(s.shape);
  std::vector<std::string_view> allowed = keys.required;
  allowed.insert(allowed.end(), keys.optional.begin(), keys.optional.end());
  for (std::string_view key : kKindKeys) {
    const bool used = std::find(allowed.begin(), allowed.end(), key) != allowed.end();
    if (section.has(key) && !used) {
      section.fail(key, section.path(key) + " is not used by " + kind_text(s.shape) +
                            (allowed.empty() ? std::string(" (it takes none of the shapes' keys)")
                                             : " (its keys: " + join(allowed) + ")"));
    }
    const bool required = std::find(keys.required.begin(), keys.required.end(), key) != keys.required.end();
    if (!section.has(key) && required) {
      section.fail(key, "missing key '" + section.path(key) + "': " + kind_text(s.shape) + " needs " +
                            join(keys.required) + (metres ? " (in m: the case has [units])" : " (in cells)"));
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
    case SolidShape::mesh:
      s.file = read_file(section, "mesh", "a surface mesh file (.stl, .obj or .ply)");
      require_mesh_format(section.source(), section.name(), s.file);
      s.scale = read_scale(section);
      require_scale(section.source(), section.name(), s.scale);
      s.translate = section.number3("translate").value_or(s.translate);
      s.repair = section.choice<MeshRepair>("repair", {{"none", MeshRepair::none}, {"fill", MeshRepair::fill}})
                     .value_or(MeshRepair::none);
      break;
    case SolidShape::voxels: {
      s.file = read_file(section, "voxels", "a voxel file (.vti, or raw uint8 with dimensions)");
      const bool vti = extension_of(s.file) == ".vti";
      if (vti && section.has("dimensions")) {
        section.fail("dimensions", section.path("dimensions") +
                                       " is not used with a .vti voxel file: its extent gives the dimensions");
      }
      if (!vti && !section.has("dimensions")) {
        section.fail("dimensions", "missing key '" + section.path("dimensions") + "': the raw voxel file \"" + s.file +
                                       "\" (any extension but .vti: one uint8 per voxel, x fastest) needs "
                                       "its dimensions = [nx, ny, nz]");
      }
      if (!vti && section.has("array")) {
        section.fail("array",
                     section.path("array") + " is only used with a .vti voxel file (a raw file has no arrays)");
      }
      if (const auto d = section.integer3("dimensions")) {
        s.dimensions = *d;
        require_dimensions(section.source(), section.name(), s.dimensions);
      }
      s.offset = section.number3("offset").value_or(s.offset);
      if (const auto array = section.string("array")) {
        if (array->empty()) {
          section.fail("array", section.path("array") + " = \"\" is not allowed: name the mask array of the .vti");
        }
        s.array = *array;
      }
      break;
    }
  }
  if (section.has("rotate")) s.rotate = point("rotate");
  if (s.shape == SolidShape::sphere || s.shape == SolidShape::cylinder) {
    s.radius = *section.number("radius");
    require_radius(section.entry("radius"), s.radius, metres);
  }
  const auto wall =
      section.choice<SolidWall>("wall", {{"interpolated", SolidWall::interpolated}, {"halfway", SolidWall::halfway}});
  if (wall == SolidWall::interpolated && s.shape == SolidShape::voxels)
    refuse_interpolated_voxels(section.source(), section.name());
  s.wall = wall.value_or(default_wall(s.shape));
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
    if (!analytic_shape(s)) {  // the file is read after finalize: its projection is not known here
      for (const auto& [key, value] : {std::pair<const char*, double>{"reference_area", s.reference_area},
                                       {"reference_length", s.reference_length}}) {
        if (value != 0.0) continue;
        source.fail(
            path + "." + key,
            path + " is a " + (s.shape == SolidShape::mesh ? "mesh" : "voxels") + " solid with forces = true: give " +
                path + "." + key + " (its coefficients' reference " +
                (std::string(key) == "reference_area" ? "area, e.g. its frontal area" : "length, e.g. its length") +
                "; only the shapes' are derived)");
      }
    }
    if (s.reference_area == 0.0) s.reference_area = projected_area(s, s.drag_direction, config.size);
    if (!std::isfinite(s.reference_area)) {  // a sphere is not clipped to the domain: pi r^2 overflows for r ~ 1e154
      source.fail(path + ".reference_area", path +
                                                "'s projected area (the default reference area) is not a finite "
                                                "number of cells: the shape is too large; give " +
                                                path + ".reference_area for its coefficients");
    }
    if (!(s.reference_area > 0.0)) {
      source.fail(path + ".reference_area",
                  path +
                      " projects no area inside the domain: it lies outside it (check its position against "
                      "domain.size, which counts cells of physics.length, or metres under [units]); if that is "
                      "meant, give " +
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
          {"center", &s.center}, {"start", &s.start},         {"end", &s.end},     {"min", &s.min},
          {"max", &s.max},       {"translate", &s.translate}, {"scale", &s.scale}, {"offset", &s.offset}};
      for (const auto& [key, v] : points) {
        for (double x : *v) require_finite(source, path + "." + key, x);
      }
      require_finite(source, path + ".radius", s.radius);
    };
    require_finite_lengths();
    for (double degrees : s.rotate) require_finite(source, path + ".rotate", degrees);
    if (s.in_metres) {
      // Metres to cells: x_lat = x / dx, the length scale of [units] (finalize_units): cell i's centre is at
      // (i + 0.5) dx, as in the VTK output. A mesh's scale turns file units into metres, so dividing it by dx
      // turns them into cells (the rotation is linear).
      const double dx = config.units.dx;
      for (auto* v : {&s.center, &s.start, &s.end, &s.min, &s.max, &s.translate, &s.scale, &s.offset}) {
        for (double& x : *v) x /= dx;
      }
      s.radius /= dx;
      if (s.shape == SolidShape::voxels) require_whole_offset(source, path, s.offset, true);
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
      case SolidShape::mesh:  // a case built in code may give the triangles themselves (surface)
        if (s.file.empty() && !s.surface) {
          source.fail(path + ".mesh", path + ".mesh: no file given (a surface mesh file)");
        }
        if (!s.surface) require_mesh_format(source, path, s.file);
        require_scale(source, path, s.scale);
        break;
      case SolidShape::voxels:
        if (s.file.empty() && !s.voxel_grid) {
          source.fail(path + ".voxels", path + ".voxels: no file given (a voxel file)");
        }
        if (!s.voxel_grid && extension_of(s.file) != ".vti") require_dimensions(source, path, s.dimensions);
        require_whole_offset(source, path, s.offset, false);
        if (s.wall == SolidWall::interpolated) refuse_interpolated_voxels(source, path);  // a case built in code
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
