// io/case/particles.cpp: [particles]: seeding (count and box, or a positions file), size and density, the
// inertial-only settings, soft-sphere contacts and the pair force; the reader and the checks on the plain struct.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "io/case/sections.hpp"
#include "io/particle_seed.hpp"

namespace eddy::case_io {
namespace {

/// Smallest particle diameter (cells): d^2 stays far from float's underflow in the drag's response time.
constexpr double kMinParticleDiameter = 1e-6;
/// Largest particle count with the all-pairs pair force (count^2 interactions per step).
constexpr std::int64_t kMaxAllPairsParticles = std::int64_t(1) << 20;

// The rules the reader and finalize_particles share: written once each; where the file's message and the struct's
// were worded differently before (Entry::as_written), both wordings are kept.

/// particles.count in 1..kMaxParticles (random seeding), in the file and in the struct.
void require_count(const Entry& entry, std::int64_t count) {
  const std::string most = std::to_string(kMaxParticles) + " (2^31 - 1)";
  require_in(entry, count, 1, kMaxParticles,
             entry.as_written()
                 ? "count must be an integer >= 1 and <= " + most
                 : "count must be >= 1 and <= " + most + ", or particles.positions must name a CSV file");
}

/// particles.contact_stiffness > 0 (k, lattice force per cell of overlap) with contacts = true.
void require_contact_stiffness(const Entry& entry, double k) {
  if (entry.as_written()) {
    require_positive(entry, k, "lattice force per cell of overlap");
  } else if (!(k > 0.0)) {
    entry.out_of_range("contacts = true needs contact_stiffness > 0 (lattice force per cell of overlap)");
  }
}

/// particles.gravity_constant > 0 (G, lattice units) with pair_force = "gravity".
void require_gravity_constant(const Entry& entry, double g) {
  if (entry.as_written()) {
    require_positive(entry, g, "G, lattice units");
  } else if (!(g > 0.0)) {
    entry.out_of_range("pair_force = \"gravity\" needs gravity_constant > 0 (G, lattice units)");
  }
}

/// particles.density > 0 (rho_p / rho_f), in the file and in the struct.
void require_density(const Entry& entry, double density) {
  require_positive(entry, density, "particle density / fluid density");
}

/// particles.softening > 0 (cells), in the file and in the struct.
void require_softening(const Entry& entry, double softening) { require_positive(entry, softening, "cells"); }

/// particles.contact_damping >= 0 (gamma, lattice units), in the file and in the struct.
void require_contact_damping(const Entry& entry, double damping) {
  require_non_negative(entry, damping, entry.as_written() ? "lattice units" : "");
}

/// `box` (particles.box_min or box_max, in `entry`) inside the domain on `axis`: in [0, size] (NaN fails too).
void require_inside(const Entry& entry, const std::array<double, 3>& box, int axis, const std::array<int, 3>& size) {
  const double side = double(size[axis]);
  if (box[axis] >= 0.0 && box[axis] <= side) return;
  entry.fail(" is outside the domain: the " + std::string(kAxisNames[axis]) + " component must be in [0, " + fmt(side) +
             "] (domain.size = " + fmt3(size) + " cells, lattice units)");
}

/// box_min < box_max on `axis` (reported on `key`).
void require_box(const Source& source, const std::string& key, const ParticleConfig& p, int axis) {
  if (p.box_min[axis] < p.box_max[axis]) return;
  source.fail(key, "particles.box_min = " + fmt3(p.box_min) + " and particles.box_max = " + fmt3(p.box_max) +
                       " give an empty box: box_min < box_max is needed on every axis (the " + kAxisNames[axis] +
                       " axis is not)");
}

/// `key` of [particles] is only used by inertial particles: refused when kind is "tracer" (the default).
void require_inertial(const Section& section, std::string_view key, const ParticleConfig& particles) {
  if (!section.has(key) || particles.kind == ParticleKind::inertial) return;
  section.fail(key, section.path(key) + " is only used by kind = \"inertial\" (kind is \"tracer\"" +
                        (section.has("kind") ? "" : ", the default") +
                        "): tracers move with the fluid velocity and feel no force; set particles.kind = "
                        "\"inertial\" or remove " +
                        section.path(key));
}

/// `key` of [particles] is only used when `switch_key` is on (`switch_text`, e.g. contacts = true).
void require_switch(const Section& section, std::string_view key, bool on, std::string_view switch_text) {
  if (!section.has(key) || on) return;
  section.fail(key, section.path(key) + " is only used with particles." + std::string(switch_text) +
                        "; set it or remove " + section.path(key));
}

/// Seeding: exactly one of count (random, with seed and box) and positions (a CSV file, relative to the case file).
void read_particle_seeding(const Section& section, const CaseConfig& config, ParticleConfig& p) {
  // Seeding: exactly one of count (random, with seed and box) and positions (a CSV file).
  const bool random = section.has("count");
  if (random && section.has("positions")) {
    section.fail("positions",
                 "particles.count and particles.positions are given together: give exactly one (count "
                 "seeds particles at random, positions reads them from a CSV file)");
  }
  if (!random && !section.has("positions")) {
    section.fail("count",
                 "missing key: [particles] needs particles.count (that many particles at random in the box "
                 "[box_min, box_max)) or particles.positions (a CSV file with columns x,y,z)");
  }
  if (const auto count = section.integer("count")) {
    require_count(section.entry("count"), *count);
    p.count = *count;
  }
  for (std::string_view key : {"seed", "box_min", "box_max"}) {
    if (section.has(key) && !random) {
      section.fail(key, section.path(key) +
                            " is only used with particles.count (random seeding); particles.positions "
                            "gives every position");
    }
  }
  if (const auto seed = section.integer("seed")) {
    require_in(section.entry("seed"), *seed, 0, kNoUpperBound, "seed must be an integer >= 0");
    p.seed = static_cast<std::uint64_t>(*seed);
  }
  const std::array<double, 3> domain = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  p.box_min = section.number3("box_min").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
  p.box_max = section.number3("box_max").value_or(domain);
  for (std::string_view key : {"box_min", "box_max"}) {
    const auto& box = key == "box_min" ? p.box_min : p.box_max;
    for (int axis = 0; axis < 3; ++axis) {
      if (section.has(key)) require_inside(section.entry(key), box, axis, config.size);
    }
  }
  for (int axis = 0; axis < 3; ++axis) {
    require_box(section.source(), section.path(section.has("box_max") ? "box_max" : "box_min"), p, axis);
  }
  if (const auto positions = section.string("positions")) {
    if (positions->empty()) {
      section.fail("positions",
                   "particles.positions = \"\" is not allowed: give the path of a CSV file (columns "
                   "x,y,z; relative to the case file's directory)");
    }
    std::filesystem::path file(*positions);
    if (file.is_relative()) file = std::filesystem::path(section.source().origin()).parent_path() / file;
    p.positions_file = file.string();
  }
}

/// Soft-sphere contacts (inertial particles): contacts, contact_stiffness, contact_damping, contact_search.
void read_particle_contacts(const Section& section, ParticleConfig& p) {
  p.contacts = section.boolean("contacts").value_or(false);
  require_switch(section, "contact_stiffness", p.contacts, "contacts = true");
  require_switch(section, "contact_damping", p.contacts, "contacts = true");
  if (p.contacts && !section.has("contact_stiffness")) {
    section.fail("contact_stiffness",
                 "missing key 'particles.contact_stiffness': contacts = true needs the spring "
                 "constant k > 0 (lattice force per cell of overlap)");
  }
  if (const auto k = section.number("contact_stiffness")) {
    require_contact_stiffness(section.entry("contact_stiffness"), *k);
    p.contact_stiffness = *k;
  }
  if (const auto gamma = section.number("contact_damping")) {
    require_contact_damping(section.entry("contact_damping"), *gamma);
    p.contact_damping = *gamma;
  }
  require_switch(section, "contact_search", p.contacts, "contacts = true");
  p.contact_search = section
                         .choice<ContactSearch>("contact_search", {{"cell_list", ContactSearch::cell_list},
                                                                   {"all_pairs", ContactSearch::all_pairs}})
                         .value_or(ContactSearch::cell_list);
}

/// The long-range pair force (inertial particles): pair_force, gravity_constant, softening.
void read_particle_pair_force(const Section& section, ParticleConfig& p) {
  p.pair_force = section.choice<PairForce>("pair_force", {{"none", PairForce::none}, {"gravity", PairForce::gravity}})
                     .value_or(PairForce::none);
  const bool pair_gravity = p.pair_force == PairForce::gravity;
  require_switch(section, "gravity_constant", pair_gravity, "pair_force = \"gravity\"");
  require_switch(section, "softening", pair_gravity, "pair_force = \"gravity\"");
  if (pair_gravity && !section.has("gravity_constant")) {
    section.fail("gravity_constant",
                 "missing key 'particles.gravity_constant': pair_force = \"gravity\" needs the "
                 "constant G > 0 (lattice units)");
  }
  if (const auto g = section.number("gravity_constant")) {
    require_gravity_constant(section.entry("gravity_constant"), *g);
    p.gravity_constant = *g;
  }
  if (const auto eps = section.number("softening")) {
    require_softening(section.entry("softening"), *eps);
    p.softening = *eps;
  }
}

/// Seeding on the struct: count or positions, the box inside the domain (box_max = {0, 0, 0}: the domain).
void finalize_particle_seeding(CaseConfig& config, const Source& source) {
  ParticleConfig& p = config.particles;
  const std::array<double, 3> domain = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  const bool random = p.positions_file.empty();
  if (!random && p.count != 0) {
    source.fail("particles.positions", "particles.count = " + std::to_string(p.count) +
                                           " and particles.positions = \"" + p.positions_file +
                                           "\" are given together: give exactly one (count seeds "
                                           "particles at random, positions reads them from a CSV file)");
  }
  if (random) {
    require_count(Entry(source, "particles.count", std::to_string(p.count)), p.count);
  }
  if (p.box_max == std::array<double, 3>{0.0, 0.0, 0.0}) p.box_max = domain;
  for (int axis = 0; axis < 3; ++axis) {
    require_inside(Entry(source, "particles.box_min", fmt3(p.box_min)), p.box_min, axis, config.size);
    require_inside(Entry(source, "particles.box_max", fmt3(p.box_max)), p.box_max, axis, config.size);
    require_box(source, "particles.box_max", p, axis);
  }
}

/// The diameter below the smallest domain side (and not too small for float), the density.
void finalize_particle_size(const CaseConfig& config, const Source& source) {
  const ParticleConfig& p = config.particles;
  const std::array<double, 3> domain = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  // The smallest side a particle must fit in: every axis but a periodic one of one cell (the depth of a 2D case,
  // where particles are discs).
  double smallest = std::numeric_limits<double>::infinity();
  for (int axis = 0; axis < 3; ++axis) {
    if (config.size[axis] == 1 && config.faces[2 * axis].kind == FaceKind::periodic) continue;
    smallest = std::min(smallest, domain[axis]);
  }
  if (std::isinf(smallest)) smallest = 1.0;  // 1 x 1 x 1 and periodic: still one cell
  require_finite(source, "particles.diameter", p.diameter);
  const Entry diameter(source, "particles.diameter", fmt(p.diameter));
  if (!(p.diameter > 0.0 && p.diameter < smallest)) {
    diameter.out_of_range("diameter must be > 0 and below the smallest domain side, " + fmt(smallest) +
                          " cells (domain.size = " + fmt3(config.size) +
                          "; a periodic axis of one cell does not count)");
  }
  // The drag's response time rho_p d^2 / (18 nu) must stay a normal number in float arithmetic: d^2 of 1e-300
  // is 0, and the particle update divides by it.
  if (p.diameter < kMinParticleDiameter) {
    diameter.out_of_range("diameter must be >= " + fmt(kMinParticleDiameter) +
                          " cells (its square enters the drag's response time); particles that small follow the "
                          "flow: use kind = \"tracer\"");
  }
  require_finite(source, "particles.density", p.density);
  require_density(Entry(source, "particles.density", fmt(p.density)), p.density);
}

/// Gravity, the inertial-only settings, contacts and the pair force.
void finalize_particle_forces(const CaseConfig& config, const Source& source) {
  const ParticleConfig& p = config.particles;
  for (double g : p.gravity) require_finite(source, "particles.gravity", g);
  const bool tracer = p.kind == ParticleKind::tracer;
  const auto inertial_only = [&](const char* key, const std::string& value) {
    source.fail(key, std::string(key) + " = " + value +
                         " is only used by kind = \"inertial\" (kind is \"tracer\"): "
                         "tracers move with the fluid velocity and feel no force");
  };
  if (tracer && p.gravity != std::array<double, 3>{0.0, 0.0, 0.0}) inertial_only("particles.gravity", fmt3(p.gravity));
  if (tracer && p.two_way) inertial_only("particles.two_way", "true");
  if (tracer && p.contacts) inertial_only("particles.contacts", "true");
  if (tracer && p.pair_force != PairForce::none) inertial_only("particles.pair_force", "\"gravity\"");
  require_finite(source, "particles.contact_stiffness", p.contact_stiffness);
  require_finite(source, "particles.contact_damping", p.contact_damping);
  if (p.contacts) {
    require_contact_stiffness(Entry(source, "particles.contact_stiffness", fmt(p.contact_stiffness)),
                              p.contact_stiffness);
  }
  require_contact_damping(Entry(source, "particles.contact_damping", fmt(p.contact_damping)), p.contact_damping);
  if (!p.contacts && p.contact_search != ContactSearch::cell_list) {
    source.fail("particles.contact_search",
                "particles.contact_search = \"all_pairs\" is only used with particles.contacts = true; set it or "
                "leave contact_search at \"cell_list\"");
  }
  require_finite(source, "particles.gravity_constant", p.gravity_constant);
  require_finite(source, "particles.softening", p.softening);
  if (p.pair_force == PairForce::gravity && p.count > kMaxAllPairsParticles) {
    source.fail("particles.count", "particles.count = " + std::to_string(p.count) +
                                       " is too many for pair_force = "
                                       "\"gravity\": all pairs cost count^2 per step; at most " +
                                       std::to_string(kMaxAllPairsParticles) +
                                       " (about 0.2 s per step on an H200 at "
                                       "262,144)");
  }
  if (p.pair_force == PairForce::gravity) {
    require_gravity_constant(Entry(source, "particles.gravity_constant", fmt(p.gravity_constant)), p.gravity_constant);
  }
  require_softening(Entry(source, "particles.softening", fmt(p.softening)), p.softening);
}

}  // namespace

/// Reads [particles]; needs the domain size (seeding box, diameter) and the case file's location (positions).
/// Checks on the struct (box inside the domain, diameter below the domain) are in finalize_particles.
void read_particles(const Section& section, CaseConfig& config) {
  if (!section.table()) return;
  section.check_keys(section_keys("particles"));
  ParticleConfig& p = config.particles;
  p.enabled = true;
  p.kind =
      section.choice<ParticleKind>("kind", {{"tracer", ParticleKind::tracer}, {"inertial", ParticleKind::inertial}})
          .value_or(ParticleKind::tracer);

  read_particle_seeding(section, config, p);

  if (const auto diameter = section.number("diameter")) {
    require_positive(section.entry("diameter"), *diameter, "cells");
    p.diameter = *diameter;
  }

  // Inertial-only keys.
  for (std::string_view key : {"density", "gravity", "two_way", "contacts", "pair_force"}) {
    require_inertial(section, key, p);
  }
  if (const auto density = section.number("density")) {
    require_density(section.entry("density"), *density);
    p.density = *density;
  }
  p.gravity = section.number3("gravity").value_or(std::array<double, 3>{0.0, 0.0, 0.0});
  p.two_way = section.boolean("two_way").value_or(false);
  p.walls = section.choice<ParticleWalls>("walls", {{"bounce", ParticleWalls::bounce}, {"stick", ParticleWalls::stick}})
                .value_or(ParticleWalls::bounce);

  read_particle_contacts(section, p);
  read_particle_pair_force(section, p);
}

/// [particles] on the plain struct (shared with cases built in code): seeding, the box inside the domain, the
/// diameter below the smallest domain side, the inertial-only settings. box_max = {0, 0, 0} becomes the domain size.
void finalize_particles(CaseConfig& config, const Source& source) {
  if (!config.particles.enabled) return;
  finalize_particle_seeding(config, source);
  finalize_particle_size(config, source);
  finalize_particle_forces(config, source);
}

}  // namespace eddy::case_io
