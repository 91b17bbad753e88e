// io/case/numerics.cpp: [numerics]: collision, storage, numerics.magic and the out-of-core keys (mode, device
// memory limit with its units, time block, slabs) with the checks of what out-of-core runs support.
// (numerics.min_tau, a limit of tau, is checked with the physics: io/case/physics.cpp.)

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <locale>
#include <sstream>

#include "io/case/sections.hpp"

namespace eddy {
namespace case_io {
namespace {

constexpr int kMaxTimeBlock = 64;                                 ///< numerics.time_block: steps per slab visit
constexpr std::int64_t kMaxSlabs = std::int64_t(1) << 30;         ///< numerics.slabs (also <= nz)
constexpr std::int64_t kMaxDeviceMemory = std::int64_t(1) << 60;  ///< numerics.device_memory_limit, bytes
/// Units of numerics.device_memory_limit and their size in bytes.
constexpr std::array<std::pair<std::string_view, double>, 9> kMemoryUnits = {{{"B", 1.0},
                                                                              {"kB", 1e3},
                                                                              {"MB", 1e6},
                                                                              {"GB", 1e9},
                                                                              {"TB", 1e12},
                                                                              {"KiB", 1024.0},
                                                                              {"MiB", 1048576.0},
                                                                              {"GiB", 1073741824.0},
                                                                              {"TiB", 1099511627776.0}}};
/// The units in messages.
constexpr const char* kMemoryUnitsText =
    "B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), e.g. \"8 GiB\", \"512MiB\", \"1.5 GB\"";

/// numerics.out_of_core: true, false or "auto" (absent: "auto").
OutOfCoreMode read_out_of_core_mode(const Section& section) {
  const toml::node* node = section.find("out_of_core");
  if (!node) return OutOfCoreMode::automatic;
  if (const auto on = as_boolean(*node)) return *on ? OutOfCoreMode::on : OutOfCoreMode::off;
  const auto* text = node->as_string();
  if (!text) section.wrong_type("out_of_core", "a boolean (true or false) or the string \"auto\"");
  if (text->get() == "auto") return OutOfCoreMode::automatic;
  section.fail("out_of_core", section.quote("out_of_core") + " is not allowed" +
                                  suggestion(text->get(), {"auto", "true", "false"}) +
                                  ": allowed values are true, false, \"auto\" (true and false without quotes)");
}

/// The bytes of a "<number> <unit>" text ("8 GiB", "512MiB", "1.5 GB"; the space is optional), before rounding, or
/// nullopt when the text is not of that form. The number is decimal digits with an optional fraction.
std::optional<double> parse_memory_size(std::string_view text) {
  const std::string trimmed = trim(text);
  std::size_t end = 0;
  while (end < trimmed.size() && (std::isdigit(static_cast<unsigned char>(trimmed[end])) || trimmed[end] == '.')) {
    ++end;
  }
  const std::string number = trimmed.substr(0, end);
  const auto digits = std::count_if(number.begin(), number.end(), [](unsigned char ch) { return std::isdigit(ch); });
  if (digits == 0 || std::count(number.begin(), number.end(), '.') > 1) return std::nullopt;
  const std::string unit = trim(std::string_view(trimmed).substr(end));
  for (const auto& [name, bytes] : kMemoryUnits) {
    if (unit != name) continue;
    // Locale-independent: the text is digits and at most one '.', so istringstream in the classic locale reads it all.
    std::istringstream in(number);
    in.imbue(std::locale::classic());
    double value = 0.0;
    in >> value;
    if (!in) return std::nullopt;
    return value * bytes;
  }
  return std::nullopt;
}

/// numerics.device_memory_limit: a "<number> <unit>" string or an integer number of bytes, in 1..2^60 bytes after
/// rounding to whole bytes.
std::int64_t read_device_memory_limit(const Section& section) {
  constexpr std::string_view key = "device_memory_limit";
  const toml::node& node = *section.find(key);
  const std::string range = "device_memory_limit must be > 0 and at most 2^60 = " + std::to_string(kMaxDeviceMemory) +
                            " bytes (the device memory the slab buffers may take)";
  if (const auto bytes = as_integer(node)) {
    require_in(section.entry(key), *bytes, 1, kMaxDeviceMemory, range);
    return *bytes;
  }
  const auto* text = node.as_string();
  if (!text) {
    section.wrong_type(key, std::string("a string \"<number> <unit>\" with unit ") + kMemoryUnitsText +
                                "; or an integer number of bytes");
  }
  const auto bytes = parse_memory_size(text->get());
  if (!bytes) {
    section.fail(key, section.quote(key) + " is not a memory size: write \"<number> <unit>\" with unit " +
                          kMemoryUnitsText + "; or an integer number of bytes");
  }
  const double rounded = std::round(*bytes);
  if (!(rounded >= 1.0 && rounded <= double(kMaxDeviceMemory))) section.entry(key).out_of_range(range);
  return static_cast<std::int64_t>(rounded);
}

/// An integer key of [numerics] in 1..`max` (`what` says what it counts, for the message).
int read_numerics_count(const Section& section, std::string_view key, std::int64_t max, const std::string& what) {
  const std::int64_t value = *section.integer(key);
  require_in(section.entry(key), value, 1, max,
             std::string(key) + " must be an integer in 1.." + std::to_string(max) + " (" + what +
                 "; leave it out to choose it from the device memory)");
  return static_cast<int>(value);
}

}  // namespace

void read_numerics(const Section& section, CaseConfig& config) {
  section.check_keys(section_keys("numerics"));
  config.collision = section.choice<Collision>("collision", {{"trt", Collision::trt}, {"bgk", Collision::bgk}})
                         .value_or(Collision::trt);
  config.magic = section.number("magic").value_or(3.0 / 16.0);
  config.min_tau = section.number("min_tau").value_or(config.min_tau);
  config.les = section.choice<LesModel>("les", {{"none", LesModel::none}, {"smagorinsky", LesModel::smagorinsky}})
                   .value_or(LesModel::none);
  config.smagorinsky_constant = section.number("smagorinsky_constant").value_or(config.smagorinsky_constant);
  if (section.has("smagorinsky_constant") && config.les != LesModel::smagorinsky) {
    section.fail("smagorinsky_constant", section.quote("smagorinsky_constant") +
                                             " applies only with les = \"smagorinsky\" (les is \"none\"); set "
                                             "numerics.les = \"smagorinsky\" or remove smagorinsky_constant");
  }
  config.precision =
      section
          .choice<Precision>(
              "storage", {{"float", Precision::float32}, {"fp16", Precision::float16}, {"double", Precision::float64}})
          .value_or(Precision::float32);
  // Out-of-core: the cross-key checks (mode off, [particles], open faces, slabs against nz, ranks) are in
  // finalize_out_of_core, shared with structs built in code.
  OutOfCoreConfig& ooc = config.out_of_core;
  ooc.mode = read_out_of_core_mode(section);
  if (section.has("device_memory_limit")) ooc.device_memory_limit = read_device_memory_limit(section);
  if (section.has("time_block")) {
    ooc.time_block = read_numerics_count(section, "time_block", kMaxTimeBlock, "time steps per slab visit");
  }
  if (section.has("slabs")) ooc.slabs = read_numerics_count(section, "slabs", kMaxSlabs, "z-slabs per block");
}

/// numerics.magic > 0 (TRT Lambda); numerics.smagorinsky_constant in (0, 1].
void finalize_numerics(const CaseConfig& config, const Source& source) {
  require_finite(source, "numerics.magic", config.magic);
  require_positive(Entry(source, "numerics.magic", fmt(config.magic)), config.magic,
                   "TRT Lambda; 3/16 = 0.1875 is the usual choice, 1/4 the most stable");
  require_finite(source, "numerics.smagorinsky_constant", config.smagorinsky_constant);
  const double c_s = config.smagorinsky_constant;
  if (!(c_s > 0.0 && c_s <= 1.0)) {
    Entry(source, "numerics.smagorinsky_constant", fmt(c_s))
        .out_of_range("smagorinsky_constant must be in (0, 1]: the Smagorinsky constant C_S of nu_t = (C_S dx)^2 |S|; "
                      "0.1 (the default) for wall-bounded shear flows, 0.17 for isotropic turbulence");
  }
}

/// [numerics] out-of-core keys on the plain struct (shared with cases built in code): ranges (0 = chosen at run time),
/// the keys that need out_of_core = true or "auto", and what out_of_core = true does not support: [particles], open
/// boundaries, a split along x or y ([thermal] travels with the slabs). Changes nothing (idempotent).
void finalize_out_of_core(const CaseConfig& config, const Source& source) {
  const OutOfCoreConfig& ooc = config.out_of_core;
  require_in(Entry(source, "numerics.device_memory_limit", std::to_string(ooc.device_memory_limit)),
             ooc.device_memory_limit, 0, kMaxDeviceMemory,
             "device_memory_limit must be > 0 and at most 2^60 = " + std::to_string(kMaxDeviceMemory) +
                 " bytes, or 0 = the free device memory");
  require_in(Entry(source, "numerics.time_block", std::to_string(ooc.time_block)), ooc.time_block, 0, kMaxTimeBlock,
             "time_block must be in 1.." + std::to_string(kMaxTimeBlock) + ", or 0 = chosen from the device memory");
  require_in(Entry(source, "numerics.slabs", std::to_string(ooc.slabs)), ooc.slabs, 0, kMaxSlabs,
             "slabs must be in 1.." + std::to_string(kMaxSlabs) + ", or 0 = chosen from the device memory");
  if (ooc.mode == OutOfCoreMode::off) {
    const auto only_out_of_core = [&](const char* key, std::int64_t value, const char* unit) {
      if (value == 0) return;
      source.fail(key, std::string(key) + " = " + std::to_string(value) + unit +
                           " applies only with numerics.out_of_core = true or \"auto\" (out_of_core is false); "
                           "remove " +
                           key + " or change numerics.out_of_core");
    };
    only_out_of_core("numerics.device_memory_limit", ooc.device_memory_limit, " bytes");
    only_out_of_core("numerics.time_block", ooc.time_block, "");
    only_out_of_core("numerics.slabs", ooc.slabs, "");
    return;
  }
  // Slabs per block: each needs at least one z-plane of the block; with pz fixed, the smallest block has nz / pz.
  const int pz = config.parallel.ranks[2];
  const std::int64_t planes = pz > 0 ? config.size[2] / pz : config.size[2];
  if (ooc.slabs > planes) {
    Entry(source, "numerics.slabs", std::to_string(ooc.slabs))
        .out_of_range("at most " +
                      (pz > 1 ? std::to_string(planes) + " slabs (the smallest block has " + std::to_string(planes) +
                                    " z-planes: domain.size z = " + std::to_string(config.size[2]) +
                                    " over parallel.ranks pz = " + std::to_string(pz) + ")"
                              : "domain.size z = " + std::to_string(config.size[2]) + " slabs") +
                      ", each needs at least one z-plane");
  }
  if (ooc.mode != OutOfCoreMode::on) return;
  // A conflict is reported on the other key, or on out_of_core when a --set turned it on (so the message names it).
  const auto conflict_key = [&](const char* other) {
    return source.overridden("numerics.out_of_core") ? "numerics.out_of_core" : other;
  };
  if (config.particles.enabled) {
    // Particles couple to the whole block at every step, which the slab sweeps never hold at once.
    source.fail(conflict_key("particles"),
                "[particles] is not supported with numerics.out_of_core = true: particles couple to the fluid at "
                "every step (they interpolate the velocity anywhere in their block, deposit their drag there with "
                "two_way and move between ranks), while an out-of-core run keeps only a few z-slabs of the block on "
                "the device and advances each one time_block steps per visit, so the block's velocity at one step is "
                "never on the device at once; remove [particles] or set numerics.out_of_core = false (in core; more "
                "ranks or GPUs when the block does not fit)");
  }
  for (int face = 0; face < 6; ++face) {
    if (!is_open_face(config.faces[face].kind)) continue;
    source.fail(conflict_key(("boundary." + std::string(kFaceNames[face]) + ".type").c_str()),
                "boundary." + std::string(kFaceNames[face]) +
                    " is an open boundary, which out-of-core runs do not "
                    "support: its pass over the face cells runs between two steps, and a slab advances several steps "
                    "per visit; set numerics.out_of_core = false, or make the face a wall or periodic");
  }
  const auto& ranks = config.parallel.ranks;
  if (ranks[0] > 1 || ranks[1] > 1) {
    source.fail(conflict_key("parallel.ranks"),
                "parallel.ranks = " + fmt3(ranks) +
                    " does not fit numerics.out_of_core = true: out-of-core runs split the domain along z only: "
                    "parallel.ranks = [1, 1, pz]");
  }
}

}  // namespace case_io

std::optional<std::int64_t> memory_size_bytes(std::string_view text) {
  const std::optional<double> bytes = case_io::parse_memory_size(text);
  if (!bytes || std::round(*bytes) < 1.0 || std::round(*bytes) > double(case_io::kMaxDeviceMemory)) return std::nullopt;
  return std::int64_t(std::round(*bytes));
}

}  // namespace eddy
