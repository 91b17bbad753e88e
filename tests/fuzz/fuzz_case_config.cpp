// libFuzzer target for the case-file reader and validator (io/case_config.cpp, io/case/): hostile input must end in
// eddy::InputError with a one-line message, or in a CaseConfig that keeps every promise of io/case_config.hpp.
//
// Input format (one fuzz input = one case file):
//   - optional leading lines "#set KEY=VALUE\n" (at most kMaxOverrides): each one --set override, the text after
//     "#set " up to the end of the line (a trailing '\r' is kept: it is part of the hostile input);
//   - the rest of the bytes: the TOML text, passed to parse_case(text, "fuzz.toml", overrides).
// Without a "#set " first line the whole input is the TOML text. A case file with a leading "#set" line is still a
// valid TOML file (the line is a comment), so the shipped cases and hand-written seeds work as they are.
//
// Verdicts:
//   - eddy::InputError: expected; its message must be one line (no '\n', no '\r', no other ASCII control character
//     but tab), non-empty, and start with the origin "fuzz.toml:" (every message names the file);
//   - success: the returned CaseConfig must satisfy the invariants checked in check_config() (ranges the header and
//     cases/README.md promise for a validated case), and finalize_case() must accept it again;
//   - anything else (another exception type, a crash, a sanitizer report, a hang, unbounded memory) is a bug: the
//     process aborts via __builtin_trap() after printing what went wrong, and libFuzzer saves the input.
//
// Mutations: a quarter are libFuzzer's own (bytes, -dict tokens), the rest line-wise edits that keep the TOML shape
// (LLVMFuzzerCustomMutator below: a number, a value or a key replaced from the case-file vocabulary, a line inserted,
// removed or duplicated), so that inputs get past the TOML parser into the validator, and often pass it.
//
// EDDY_FUZZ_VERBOSE=1 in the environment prints each input's verdict (the InputError message, or "accepted"): handy
// when replaying a reproducer. Build and run: tests/fuzz/README.md.

#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "io/case_config.hpp"

namespace {

constexpr std::size_t kMaxOverrides = 4;
constexpr std::string_view kSetPrefix = "#set ";
constexpr const char* kOrigin = "fuzz.toml";

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "eddy_fuzz_case_config: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

void require(bool ok, const char* invariant, const eddy::CaseConfig& config) {
  if (ok) return;
  fail(std::string("invariant violated on a case parse_case accepted: ") + invariant + " (case name '" + config.name +
       "')");
}

bool verbose() {
  static const bool on = [] {
    const char* value = std::getenv("EDDY_FUZZ_VERBOSE");
    return value != nullptr && *value != '\0' && std::string_view(value) != "0";
  }();
  return on;
}

bool finite(double x) { return std::isfinite(x); }
bool finite3(const std::array<double, 3>& v) { return finite(v[0]) && finite(v[1]) && finite(v[2]); }

/// Invariants of a validated CaseConfig (io/case_config.hpp doc comments, cases/README.md "All keys").
void check_config(const eddy::CaseConfig& c) {
  using namespace eddy;
  require(!c.name.empty() && c.name.find('/') == std::string::npos, "name non-empty, no '/' (used in file names)", c);
  require(c.source_file == kOrigin, "source_file is the origin", c);

  // [domain]
  double block = 1.0;
  for (int axis = 0; axis < 3; ++axis) {
    require(c.size[axis] >= 1 && c.size[axis] <= (1 << 30), "domain.size: each of nx, ny, nz in 1..2^30", c);
    block *= double(c.size[axis]) + 2.0;
  }
  require(block <= 1099511627776.0, "(nx+2)(ny+2)(nz+2) <= 2^40", c);
  for (int face = 0; face < 6; ++face) {
    const FaceBoundary& f = c.faces[face];
    const int axis = face / 2;
    require((f.kind == FaceKind::periodic) == (c.faces[face ^ 1].kind == FaceKind::periodic),
            "periodic faces come in pairs", c);
    require(finite3(f.velocity), "wall velocity finite", c);
    const bool moves = f.velocity[0] != 0.0 || f.velocity[1] != 0.0 || f.velocity[2] != 0.0;
    const bool uniform_inlet = f.kind == FaceKind::velocity_inlet && f.profile == InletProfile::uniform;
    require(!moves || f.kind == FaceKind::moving_wall || uniform_inlet,
            "only a moving_wall and a uniform velocity_inlet have a velocity", c);
    if (uniform_inlet) {
      require((face % 2 == 0 ? 1.0 : -1.0) * f.velocity[axis] > 0.0, "a uniform inlet points into the domain", c);
    } else {
      require(f.velocity[axis] == 0.0, "wall velocity tangential to its face", c);
    }
    // Open faces (io/case/open_boundaries.cpp): lattice units once finalized, the derived values filled in.
    require(!f.in_si && !f.mean_speed, "open faces: converted to lattice units, the parabola's peak derived", c);
    if (f.kind == FaceKind::velocity_inlet) {
      require(finite(f.ramp_time) && f.ramp_time >= 0.0, "inlet ramp_time finite and >= 0", c);
      if (f.profile == InletProfile::parabolic) require(finite(f.speed) && f.speed > 0.0, "parabolic peak > 0", c);
      if (f.profile == InletProfile::csv) {
        require(f.table.axes >= 1 && f.table.axes <= 2 && !f.table.velocity.empty(), "csv profile has points", c);
      }
    }
    if (f.kind == FaceKind::pressure_outlet) {
      require(finite(f.density) && f.density > 0.0 && !finite(f.pressure), "outlet density finite and > 0", c);
    }
    if (f.kind == FaceKind::outflow && f.scheme == OutflowScheme::convective) {
      require(finite(f.convection_velocity) && f.convection_velocity > 0.0, "convection velocity > 0", c);
    }
    // Open faces run in core only, and not with [thermal] or [particles] yet (io/case/open_boundaries.cpp,
    // io/case/numerics.cpp).
    if (is_open_face(f.kind)) {
      require(c.out_of_core.mode != OutOfCoreMode::on, "no open face with out_of_core = true", c);
      require(!c.thermal.enabled && !c.particles.enabled, "no open face with [thermal] or [particles]", c);
    }
  }

  // [physics]: tau > 0.5 (and < 1e6), nu = (tau - 1/2)/3 > 0, everything derived finite, Ma <= 0.3
  require(finite(c.velocity) && c.velocity >= 0.0, "physics.velocity finite and >= 0", c);
  require(finite(c.length) && c.length > 0.0 && finite(1.0 / c.length), "physics.length > 0, 1/L finite", c);
  require(finite(c.tau) && c.tau > 0.5 && c.tau < 1e6, "tau in (0.5, 1e6)", c);
  require(finite(c.nu) && c.nu > 0.0, "nu finite and > 0", c);
  require(std::abs(c.nu - (c.tau - 0.5) / 3.0) <= 1e-9 * (1.0 + c.nu), "nu = (tau - 1/2)/3", c);
  require(finite(c.omega()) && c.omega() > 0.0, "omega = 1/tau finite and > 0", c);
  require(finite(c.reynolds) && c.reynolds >= 0.0, "reynolds finite and >= 0", c);
  require(finite3(c.body_force), "body_force finite", c);
  require(finite(c.mach()) && c.mach() <= 0.3, "Mach <= 0.3", c);

  // [initial]
  if (c.initial.kind != InitialKind::rest) {
    require(finite(c.initial.amplitude) && c.initial.amplitude != 0.0, "initial amplitude finite, non-zero", c);
    if (c.initial.kind == InitialKind::turbulent_channel) {
      require(c.faces[0].kind == FaceKind::periodic && c.faces[4].kind == FaceKind::periodic,
              "turbulent channel: x and z periodic", c);
      require(c.faces[2].kind == FaceKind::wall && c.faces[3].kind == FaceKind::wall,
              "turbulent channel: resting walls at y", c);
      require(c.initial.perturbation > 0.0 && c.initial.perturbation <= 1.0, "perturbation in (0, 1]", c);
    } else {
      const int axes = c.initial.kind == InitialKind::taylor_green_2d ? 2 : 3;
      for (int axis = 0; axis < axes; ++axis) {
        require(c.faces[2 * axis].kind == FaceKind::periodic, "Taylor-Green axes periodic", c);
      }
    }
  }

  // [numerics], [run], [output]
  require(finite(c.magic) && c.magic > 0.0, "numerics.magic finite and > 0", c);
  require(c.steps >= 0, "run.steps >= 0", c);
  require(c.report_every >= 1, "run.report_every >= 1", c);
  require(c.output_every >= 0, "output.every >= 0", c);
  require(!c.output_directory.empty(), "output.directory non-empty", c);
  require(!c.output_fields.empty(), "output.fields non-empty", c);
  for (std::size_t i = 0; i < c.output_fields.size(); ++i) {
    const std::string& field = c.output_fields[i];
    require(field == "density" || field == "velocity" || field == "vorticity" || field == "q_criterion" ||
                field == "strain_rate" || field == "temperature" || field == "solid",
            "output.fields: known names", c);
    for (std::size_t j = 0; j < i; ++j) require(c.output_fields[j] != field, "output.fields: each name once", c);
  }

  // [[solid]] force references and [forces] (solver/solid_reference.hpp): filled, unit directions, lift across drag.
  bool any_forces = false;
  for (const SolidConfig& s : c.solids) {
    if (!s.forces) continue;
    any_forces = true;
    require(finite(s.reference_area) && s.reference_area > 0.0, "solid.reference_area finite and > 0", c);
    require(finite(s.reference_velocity) && s.reference_velocity > 0.0, "solid.reference_velocity > 0", c);
    require(finite(s.reference_length) && s.reference_length > 0.0, "solid.reference_length > 0", c);
    const auto norm = [](const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
    require(std::abs(norm(s.drag_direction) - 1.0) < 1e-12 && std::abs(norm(s.lift_direction) - 1.0) < 1e-12,
            "solid drag and lift directions are unit vectors", c);
    const double cosine = s.drag_direction[0] * s.lift_direction[0] + s.drag_direction[1] * s.lift_direction[1] +
                          s.drag_direction[2] * s.lift_direction[2];
    require(std::abs(cosine) <= 1e-9, "solid lift perpendicular to drag", c);
  }
  require(!any_forces || c.forces.every >= 1, "forces.every >= 1 with forces", c);
  require(any_forces || !c.forces.present, "[forces] only with a solid that has forces", c);
  // [[solid]] wall: interpolated walls run in core only, never on voxels (io/case/solids.cpp).
  for (const SolidConfig& s : c.solids) {
    require(s.wall == SolidWall::interpolated || s.wall == SolidWall::halfway, "solid.wall known", c);
    require(s.wall == SolidWall::halfway || c.out_of_core.mode != OutOfCoreMode::on,
            "no interpolated wall with out_of_core = true", c);
    require(s.wall == SolidWall::halfway || s.shape != SolidShape::voxels, "no interpolated wall on voxels", c);
  }
  // [[solid]] geometry (io/case_config.hpp SolidConfig), in lattice units after finalize; files are not read here.
  std::vector<std::string> names;
  for (const SolidConfig& s : c.solids) {
    require(!s.name.empty(), "solid.name non-empty", c);
    for (const std::string& other : names) require(other != s.name, "solid.name unique", c);
    names.push_back(s.name);
    require(!s.in_metres, "solid lengths in cells after finalize", c);
    for (const auto* v : {&s.center, &s.start, &s.end, &s.min, &s.max, &s.rotate, &s.scale, &s.translate, &s.offset}) {
      for (double x : *v) require(finite(x), "solid points, angles and factors finite", c);
    }
    const auto extension = [](const std::string& file) {  // lower case, as the reader takes it
      std::string ext = std::filesystem::path(file).extension().string();
      for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      return ext;
    };
    switch (s.shape) {
      case SolidShape::sphere:
      case SolidShape::cylinder:
        require(finite(s.radius) && s.radius > 0.0, "solid.radius finite and > 0", c);
        require(s.shape == SolidShape::sphere || s.start != s.end, "cylinder start != end", c);
        break;
      case SolidShape::box:
        for (int a = 0; a < 3; ++a) require(s.min[a] < s.max[a], "box min < max on every axis", c);
        break;
      case SolidShape::mesh: {
        require(!s.file.empty(), "mesh file named", c);
        const std::string ext = extension(s.file);
        require(ext == ".stl" || ext == ".obj" || ext == ".ply", "mesh file .stl, .obj or .ply", c);
        for (double f : s.scale) require(f > 0.0, "mesh scale > 0", c);
        require(s.repair == MeshRepair::none || s.repair == MeshRepair::fill, "mesh repair known", c);
        break;
      }
      case SolidShape::voxels: {
        require(!s.file.empty(), "voxels file named", c);
        const bool vti = extension(s.file) == ".vti";
        double voxels = 1.0;
        for (std::int64_t n : s.dimensions) {
          require(vti ? n == 0 : (n >= 1 && n <= (std::int64_t(1) << 30)), "voxels dimensions: raw 1..2^30, .vti 0", c);
          voxels *= double(n);
        }
        require(vti || voxels <= std::ldexp(1.0, 40), "voxels: at most 2^40", c);
        for (double x : s.offset) {
          require(x == std::round(x) && std::abs(x) <= std::ldexp(1.0, 31), "voxels offset whole, <= 2^31", c);
        }
        break;
      }
    }
  }
  require(c.solids.empty() || !c.particles.enabled, "no [[solid]] with [particles]", c);

  // [parallel]
  for (int axis = 0; axis < 3; ++axis) {
    require(c.parallel.ranks[axis] >= 0 && c.parallel.ranks[axis] <= c.size[axis],
            "parallel.ranks: 0 (automatic) or 1..n per axis", c);
  }
  require(c.parallel.device >= -1, "parallel.device >= -1", c);

  // [particles]
  const ParticleConfig& p = c.particles;
  if (p.enabled) {
    const bool random = p.positions_file.empty();
    if (random) {
      require(p.count >= 1 && p.count <= 2147483647, "particles.count in 1..2^31-1 (random seeding)", c);
    } else {
      require(p.count == 0, "particles.count and positions exclude each other", c);
    }
    for (int axis = 0; axis < 3; ++axis) {
      require(p.box_min[axis] >= 0.0 && p.box_max[axis] <= double(c.size[axis]), "seeding box inside the domain", c);
      require(p.box_min[axis] < p.box_max[axis], "seeding box non-empty", c);
    }
    require(finite(p.diameter) && p.diameter > 0.0, "particles.diameter finite and > 0", c);
    require(finite(p.density) && p.density > 0.0, "particles.density finite and > 0", c);
    require(finite3(p.gravity), "particles.gravity finite", c);
    if (p.kind == ParticleKind::tracer) {
      require(p.gravity == std::array<double, 3>{0.0, 0.0, 0.0} && !p.two_way && !p.contacts &&
                  p.pair_force == PairForce::none,
              "tracers: no gravity, two_way, contacts or pair_force", c);
    }
    require(finite(p.contact_stiffness) && (!p.contacts || p.contact_stiffness > 0.0),
            "contacts = true needs contact_stiffness > 0", c);
    require(finite(p.contact_damping) && p.contact_damping >= 0.0, "contact_damping >= 0", c);
    require(finite(p.softening) && p.softening > 0.0, "softening > 0", c);
    if (p.pair_force == PairForce::gravity) {
      require(finite(p.gravity_constant) && p.gravity_constant > 0.0, "pair_force gravity: gravity_constant > 0", c);
      require(p.count <= (std::int64_t(1) << 20), "pair_force gravity: count <= 2^20", c);
    }
  }

  // [thermal]: the ranges ThermalConfig documents.
  const ThermalConfig& t = c.thermal;
  if (t.enabled) {
    require(finite(t.prandtl) && t.prandtl > 0.0, "thermal.prandtl finite and > 0", c);
    require(finite(t.rayleigh) && t.rayleigh >= 0.0, "thermal.rayleigh finite and >= 0", c);
    require(finite(t.perturbation) && t.perturbation >= 0.0, "thermal.perturbation finite and >= 0", c);
    require(t.substeps >= 1 && t.substeps <= 64, "thermal.substeps in 1..64", c);
    require(finite(t.diffusivity) && t.diffusivity > 0.0, "thermal diffusivity finite and > 0", c);
    require(finite(t.buoyancy) && t.buoyancy >= 0.0, "thermal buoyancy finite and >= 0", c);
    require(t.rayleigh == 0.0 || t.temperature_difference > 0.0, "Ra > 0 needs dT > 0", c);
    const auto& g = t.gravity_direction;
    require(std::abs(g[0] * g[0] + g[1] * g[1] + g[2] * g[2] - 1.0) < 1e-12, "gravity direction of unit length", c);
    for (double v : {t.reference_temperature, t.initial_temperature, t.temperature_difference, t.perturbation}) {
      require(finite(v) && std::abs(v) <= 1e30, "temperatures within +-1e30", c);
    }
  }
  require(c.checkpoint_every >= 0, "checkpoint.every >= 0", c);
  // [units]: the derived step and spacing are finite and positive.
  if (c.units.enabled) {
    require(finite(c.units.dx) && c.units.dx > 0.0 && finite(c.units.dt) && c.units.dt > 0.0, "units dx, dt > 0", c);
  }
}

void check_message(const std::string& message) {
  if (message.empty()) fail("InputError with an empty message");
  if (message.find_first_of("\r\n") != std::string::npos) fail("InputError message is not one line: " + message);
  // Other control characters (what() is printed to a terminal): a vertical tab or form feed breaks the line too, an
  // escape (0x1b) drives the terminal. (A NUL cannot be seen here: what() ends at it, cutting the message short.)
  for (unsigned char ch : message) {
    if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
      fail("InputError message holds control character " + std::to_string(int(ch)) + ": " + message);
    }
  }
  if (message.rfind(std::string(kOrigin) + ":", 0) != 0) {
    fail("InputError message does not start with the origin '" + std::string(kOrigin) + ":': " + message);
  }
}

// ---- structure-aware mutations ---------------------------------------------------------------------------------

/// The keys of each section: the reader's own schema (io/case/schema.cpp), plus three [boundary.<face>] tables.
struct SectionKeys {
  std::string name;
  std::vector<std::string> keys;
};
const std::vector<SectionKeys>& sections() {
  static const std::vector<SectionKeys> list = [] {
    std::vector<SectionKeys> out;
    const auto strings = [](const std::vector<std::string_view>& views) {
      return std::vector<std::string>(views.begin(), views.end());
    };
    for (const eddy::CaseSection& section : eddy::case_file_schema()) {
      out.push_back({std::string(section.name), strings(section.keys)});
    }
    for (const char* face : {"boundary.x_min", "boundary.y_max", "boundary.z_max"}) {
      out.push_back({face, strings(eddy::boundary_face_keys())});
    }
    return out;
  }();
  return list;
}

/// Numbers worth trying: limits and their neighbours, odd TOML spellings.
const std::vector<const char*> kNumbers = {
    "0", "1", "2", "-1", "3", "7", "16", "64", "100", "1000", "0.5", "0.5000000001", "0.50000000000000011", "0.6",
    "0.8", "1.0", "0.1", "0.173", "0.3", "0.31", "-0.5", "1e-12", "9e-13", "1e-300", "1e-320", "5e-324", "1e6",
    "999999.9", "1e300", "1.7e308", "-0.0", "nan", "inf", "-inf", "1073741824", "1073741825", "2147483647",
    "2147483648", "1048576", "1048577", "9223372036854775807", "-9223372036854775808", "0x10", "1_000", "+1"};
/// Other values: every enum string, arrays of each shape, tables, odd types.
const std::vector<const char*> kValues = {
    "true", "false", "\"\"", "\"wall\"", "\"moving_wall\"", "\"rest\"", "\"taylor_green_2d\"", "\"taylor_green_3d\"", "\"turbulent_channel\"",
    "\"trt\"", "\"bgk\"", "\"float\"", "\"fp16\"", "\"double\"", "\"host\"", "\"device\"", "\"nccl\"", "\"tracer\"",
    "\"inertial\"", "\"bounce\"", "\"stick\"", "\"cell_list\"", "\"all_pairs\"", "\"none\"", "\"gravity\"",
    "\"out\"", "\"p.csv\"", "\"..\"", "\"a/b\"", "[]", "[1, 1, 1]", "[2, 1, 1]", "[0, 0, 0]", "[16, 16, 1]",
    "[1073741824, 1024, 1]", "[1073741824, 1073741824, 1]", "[true, true, true]", "[false, false, true]",
    "[true, false, true]", "[1.0, 0.0, 0.0]", "[0.0, 1.0, 0.0]", "[0.0, 0.0, 1.0]", "[0.5, 0.5, 0.5]",
    "[0.0, -1e-5, 0.0]", "[1e308, 0, 0]", "[\"density\"]", "[\"density\", \"density\"]",
    "[\"velocity\", \"vorticity\", \"q_criterion\", \"strain_rate\"]",
    "{ type = \"moving_wall\", velocity = [1.0, 0.0, 0.0] }", "{}", "1979-05-27"};

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& items) {
  return items[rng() % items.size()];
}

/// The section a line belongs to: the last [header] above it ("" before any).
std::string section_of(const std::vector<std::string>& lines, std::size_t index) {
  for (std::size_t i = index + 1; i-- > 0;) {
    const std::string& line = lines[i];
    if (line.size() > 2 && line[0] == '[' && line[1] != '[') return line.substr(1, line.find(']') - 1);
  }
  return "";
}

/// A key for a line of `section`: one of its keys, or a dotted "section.key" at the top level.
std::string key_for(std::mt19937& rng, const std::string& section) {
  for (const auto& entry : sections()) {
    if (section == entry.name && rng() % 8 != 0) return pick(rng, entry.keys);
  }
  const SectionKeys& entry = pick(rng, sections());
  return std::string(entry.name) + "." + pick(rng, entry.keys);
}

/// The [begin, end) of each number in `line` after its '=' (digits with their sign, point, exponent, '_').
std::vector<std::pair<std::size_t, std::size_t>> numbers_in(const std::string& line) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  const auto part = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || std::strchr("+-._", ch); };
  for (std::size_t i = line.find('=') + 1; i < line.size();) {
    if (!part(line[i]) || line[i] == '"') {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && part(line[end])) ++end;
    if (std::isdigit(static_cast<unsigned char>(line[i])) || std::strchr("+-", line[i])) spans.emplace_back(i, end);
    i = end;
  }
  return spans;
}

/// One line-wise edit of the text: a number or a whole value, a key, a new line, a removed or a duplicated line.
std::string mutate_lines(std::mt19937& rng, const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::size_t> assignments;  // lines with a key = value (#set lines too)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find('=') != std::string::npos && lines[i].rfind('[', 0) != 0) assignments.push_back(i);
  }
  const std::size_t at = rng() % lines.size();
  switch (rng() % 7) {
    case 0:
    case 1:
      if (!assignments.empty()) {  // one number of a value, keeping its shape (an array stays an array)
        std::string& line = lines[pick(rng, assignments)];
        const auto spans = numbers_in(line);
        if (!spans.empty()) {
          const auto [begin, end] = pick(rng, spans);
          line = line.substr(0, begin) + pick(rng, kNumbers) + line.substr(end);
          break;
        }
      }
      [[fallthrough]];
    case 2:
      if (!assignments.empty()) {  // a new value
        std::string& line = lines[pick(rng, assignments)];
        line = line.substr(0, line.find('=') + 1) + (line.rfind("#set ", 0) == 0 ? "" : " ") +
               (rng() % 3 == 0 ? pick(rng, kNumbers) : pick(rng, kValues));
        break;
      }
      [[fallthrough]];
    case 3:
      if (!assignments.empty()) {  // a new key
        const std::size_t index = pick(rng, assignments);
        std::string& line = lines[index];
        const bool set = line.rfind("#set ", 0) == 0;
        line = (set ? "#set " + key_for(rng, "") + "=" : key_for(rng, section_of(lines, index)) + " =") +
               line.substr(line.find('=') + 1);
        break;
      }
      [[fallthrough]];
    case 4: {  // a new line: a header, a key = value, or a --set first
      const int kind = rng() % 4;
      if (kind == 0) {
        lines.insert(lines.begin() + at, "[" + std::string(pick(rng, sections()).name) + "]");
      } else if (kind == 1) {
        const char* value = rng() % 2 ? pick(rng, kNumbers) : pick(rng, kValues);
        lines.insert(lines.begin(), "#set " + key_for(rng, "") + "=" + value);
      } else {
        lines.insert(lines.begin() + at + 1, key_for(rng, section_of(lines, at)) + " = " +
                                                 (rng() % 3 == 0 ? pick(rng, kNumbers) : pick(rng, kValues)));
      }
      break;
    }
    case 5:
      lines.erase(lines.begin() + at);
      break;
    default:
      lines.insert(lines.begin() + at, lines[rng() % lines.size()]);
      break;
  }
  std::string result;
  for (std::size_t i = 0; i < lines.size(); ++i) result += (i > 0 ? "\n" : "") + lines[i];
  return result;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::mt19937 rng(seed);
  if (rng() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::string mutated = mutate_lines(rng, std::string(reinterpret_cast<const char*>(data), size));
  if (mutated.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  while (overrides.size() < kMaxOverrides && input.substr(0, kSetPrefix.size()) == kSetPrefix) {
    const std::size_t end = input.find('\n');
    const std::string_view line = input.substr(0, end);
    overrides.emplace_back(line.substr(kSetPrefix.size()));
    input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
  }
  const std::string text(input);

  eddy::CaseConfig config;
  try {
    config = eddy::parse_case(text, kOrigin, overrides);
  } catch (const eddy::InputError& e) {
    check_message(e.what());
    if (verbose()) std::fprintf(stderr, "eddy_fuzz_case_config: InputError: %s\n", e.what());
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("parse_case threw ") + typeid(e).name() + " (not eddy::InputError): " + e.what());
  } catch (...) {
    fail("parse_case threw a non-std::exception (not eddy::InputError)");
  }
  check_config(config);
  if (verbose()) std::fprintf(stderr, "eddy_fuzz_case_config: accepted (%zu --set)\n", overrides.size());

  // A validated case is a valid struct: finalize_case (cases built in code) must accept it again.
  try {
    eddy::CaseConfig again = config;
    eddy::finalize_case(again);
    check_config(again);
  } catch (const eddy::InputError& e) {
    fail(std::string("finalize_case rejects a case parse_case accepted: ") + e.what());
  } catch (const std::exception& e) {
    fail(std::string("finalize_case threw ") + typeid(e).name() + ": " + e.what());
  }
  return 0;
}
