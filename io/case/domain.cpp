// io/case/domain.cpp: [case], [domain] and [boundary.<face>]: the reader and the checks on the plain struct.

#include <algorithm>
#include <cctype>

#include "io/case/sections.hpp"

namespace eddy::case_io {
namespace {

/// Input limits (cases/README.md, "Limits"): keep every derived size and scale representable.
constexpr std::int64_t kMaxAxisCells = std::int64_t(1) << 30;  ///< per axis of domain.size
constexpr double kMaxBlockCells = 1099511627776.0;             ///< 2^40: (nx+2)(ny+2)(nz+2), one ghost layer

/// Each of nx, ny, nz (`n`, of domain.size in `size`) in 1..2^30, in the file and in the struct (the struct's
/// message says which bound).
void require_axis_cells(const Entry& size, std::int64_t n) {
  if (size.as_written()) {
    require_in(size, n, 1, kMaxAxisCells,
               "each of nx, ny, nz must be an integer >= 1 (and <= " + std::to_string(kMaxAxisCells) + " = 2^30)");
    return;
  }
  require_in(size, n, 1, kNoUpperBound, "each of nx, ny, nz must be an integer >= 1");
  require_in(size, n, kNoLowerBound, kMaxAxisCells,
             "each of nx, ny, nz must be <= " + std::to_string(kMaxAxisCells) + " = 2^30 cells");
}

}  // namespace

void read_case_section(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("case"));
  if (const auto name = section.string("name")) {
    const bool ok = !name->empty() && *name != "." && *name != ".." &&
                    std::all_of(name->begin(), name->end(), [](unsigned char ch) {
                      return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
                    });
    if (!ok) {
      section.fail("name", section.quote("name") +
                               " is not allowed: the name is used in output file names; use letters, digits, '_', "
                               "'-' and '.' (non-empty)");
    }
    config.name = *name;
  }
}

void read_domain(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("domain"));
  const auto size = section.integer3("size");
  if (!size) section.fail("size", "missing required key 'domain.size' (fluid cells [nx, ny, nz], e.g. [128, 128, 1])");
  for (std::int64_t n : *size) {
    require_axis_cells(section.entry("size"), n);
  }
  const auto periodic = section.boolean3("periodic").value_or(std::array<bool, 3>{false, false, false});
  for (int axis = 0; axis < 3; ++axis) {
    config.size[axis] = static_cast<int>((*size)[axis]);
    const FaceKind kind = periodic[axis] ? FaceKind::periodic : FaceKind::wall;
    config.faces[2 * axis] = FaceBoundary{kind, {0.0, 0.0, 0.0}};
    config.faces[2 * axis + 1] = FaceBoundary{kind, {0.0, 0.0, 0.0}};
  }
}

void read_boundary(const Section& boundary, double velocity_scale, CaseConfig& config) {
  boundary.check_keys(section_keys("boundary"));
  for (int face = 0; face < 6; ++face) {
    const Section section = sub_section(boundary, kFaceNames[face]);
    if (!section.table()) continue;
    section.check_keys(boundary_face_keys());
    const int axis = face_axis(face);
    if (config.faces[face].kind == FaceKind::periodic) {
      boundary.fail(kFaceNames[face], "[" + section.name() + "] is given but the " + kAxisNames[axis] +
                                          " axis is periodic (domain.periodic); remove [" + section.name() +
                                          "] or make " + kAxisNames[axis] + " non-periodic");
    }
    const FaceKind kind = section
                              .choice<FaceKind>("type", {{"wall", FaceKind::wall},
                                                         {"moving_wall", FaceKind::moving_wall},
                                                         {"velocity_inlet", FaceKind::velocity_inlet},
                                                         {"pressure_outlet", FaceKind::pressure_outlet},
                                                         {"outflow", FaceKind::outflow},
                                                         {"free_slip", FaceKind::free_slip}})
                              .value_or(FaceKind::wall);
    // Keys of another type (the messages of the wall types' velocity below come first).
    const std::string type = section.string("type").value_or("wall");
    const auto& allowed = boundary_type_keys(type);
    for (const auto& [key, node] : *section.table()) {
      const std::string_view name = key.str();
      if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
      if (name == "velocity" && !is_open_face(kind)) continue;  // the wall's own message below
      section.fail(name,
                   section.path(name) + " is not used by type = \"" + type + "\" (its keys: " + join(allowed) + ")");
    }
    if (is_open_face(kind)) {
      config.faces[face] = read_open_face(section, face, kind, velocity_scale, config);
      continue;
    }
    const auto velocity = section.number3("velocity");
    if (kind == FaceKind::wall && velocity) {
      section.fail("velocity", section.path("velocity") +
                                   " is only allowed with type = \"moving_wall\" (this face is a resting wall)");
    }
    if (kind == FaceKind::moving_wall && !velocity) {
      section.fail("velocity", "missing key '" + section.path("velocity") +
                                   "': type = \"moving_wall\" needs velocity = [vx, vy, vz] (in units of "
                                   "physics.velocity)");
    }
    // temperature: any wall face; without [thermal] finalize refuses it (naming the key).
    if (const auto temperature = section.number("temperature")) {
      config.thermal.walls[face] = ThermalWall::fixed;
      config.thermal.wall_temperature[face] = *temperature;
    }
    FaceBoundary result{kind, {0.0, 0.0, 0.0}};
    if (velocity) {
      if ((*velocity)[axis] != 0.0) {
        section.fail("velocity", section.quote("velocity") + " is not tangential: the " + kAxisNames[axis] +
                                     " component (normal to face " + kFaceNames[face] + ") must be 0");
      }
      const bool moves = (*velocity)[0] != 0.0 || (*velocity)[1] != 0.0 || (*velocity)[2] != 0.0;
      if (moves && velocity_scale == 0.0) {
        section.fail("velocity", section.quote("velocity") +
                                     " is in units of physics.velocity, which is 0: set physics.velocity > 0 (the "
                                     "wall speed in lattice units)");
      }
      for (int i = 0; i < 3; ++i) result.velocity[i] = (*velocity)[i] * velocity_scale;
    }
    config.faces[face] = result;
  }
}

void finalize_domain(CaseConfig& config, const Source& source) {
  const Entry size(source, "domain.size", fmt3(config.size));
  for (int n : config.size) {
    require_axis_cells(size, n);
  }
  // The solver allocates the block with one ghost layer and indexes it with 64-bit integers; computed in double so
  // that the check itself cannot overflow.
  const double block_cells =
      (double(config.size[0]) + 2.0) * (double(config.size[1]) + 2.0) * (double(config.size[2]) + 2.0);
  if (block_cells > kMaxBlockCells) {
    source.fail("domain.size", "domain.size = " + fmt3(config.size) + " is too large: (nx + 2)(ny + 2)(nz + 2) = " +
                                   fmt(block_cells, 16) + " cells (fluid plus one ghost layer) exceeds the limit " +
                                   "of 2^40 = " + fmt(kMaxBlockCells, 16) + " cells");
  }
  for (int face = 0; face < 6; ++face) {
    const int axis = face_axis(face);
    const FaceBoundary& boundary = config.faces[face];
    const std::string key = "boundary." + std::string(kFaceNames[face]) + ".velocity";
    if ((boundary.kind == FaceKind::periodic) != (config.faces[face ^ 1].kind == FaceKind::periodic)) {
      source.fail("domain.periodic", std::string("faces ") + kFaceNames[2 * axis] + " and " + kFaceNames[2 * axis + 1] +
                                         " must be both periodic or both non-periodic (domain.periodic)");
    }
    for (double v : boundary.velocity) require_finite(source, key, v);
    if (boundary.kind == FaceKind::velocity_inlet) continue;  // finalize_open_boundaries checks it
    const bool moves = boundary.velocity[0] != 0.0 || boundary.velocity[1] != 0.0 || boundary.velocity[2] != 0.0;
    if (boundary.kind != FaceKind::moving_wall && moves) {
      source.fail(key, key + " = " + fmt3(boundary.velocity) + " (lattice units) is only allowed on a moving_wall");
    }
    if (boundary.velocity[axis] != 0.0) {
      source.fail(key, key + " = " + fmt3(boundary.velocity) + " (lattice units) is not tangential: the " +
                           kAxisNames[axis] + " component (normal to face " + kFaceNames[face] + ") must be 0");
    }
  }
}

}  // namespace eddy::case_io
