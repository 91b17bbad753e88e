// io/case_config.cpp: the public functions of io/case_config.hpp: load_case (the file), parse_case (TOML text and
// --set overrides), finalize_case; they call the section readers and finalizers in the order their data needs.
//
// Where the parts live (io/case/):
//   rules.hpp        Source (every InputError about a case), Entry and the range helpers (require_positive, ...);
//   schema.cpp       the sections and their keys (case_file_schema), the unknown-key suggestion;
//   section.hpp      Section: typed getters on a table of the parsed file;
//   toml_guards.hpp  scans that run before toml::parse (toml++ 3.3.0 work-arounds);
//   overrides.cpp    --set;
//   sections.hpp     one reader and one finalizer per group of sections (domain, physics, thermal, units,
//                    numerics, run_output, parallel, particles, solids, probes, statistics: one .cpp each).
// The lattice relations (tau, Ma, the SI conversion) and the thermal sub-step analysis are kernels/lattice_units.hpp
// and kernels/thermal_analysis.hpp.
//
// toml++ (Debian 12: 3.3.0) is included only in io/ sources: it does not compile under nvcc. Every key, its units and
// its default are documented in cases/README.md ("All keys"), checked against case_file_schema() by
// tests/unit/test_case_schema.cpp.

#include "io/case_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "io/case/overrides.hpp"
#include "io/case/sections.hpp"
#include "io/case/toml_guards.hpp"
#include "kernels/lattice_units.hpp"

namespace eddy {
namespace {

constexpr std::uintmax_t kMaxCaseFileBytes = std::uintmax_t(16) << 20;  ///< 16 MiB

using case_io::Source;

/// The sections of the parsed tree into a CaseConfig. Each reader gets what it needs from the sections before it as
/// a parameter: boundary velocities are in units of physics.velocity, periodic axes come from the domain, [thermal]
/// with Ra > 0 lets [physics] leave out reynolds / tau / viscosity, [units] fixes U and nu.
CaseConfig read_case(const toml::table& root, const Source& source) {
  using namespace case_io;
  check_top_level(source, root);
  CaseConfig config;
  read_case_section(top_section(source, root, "case"), config);
  read_domain(top_section(source, root, "domain"), config);
  config.thermal = read_thermal(top_section(source, root, "thermal"));
  config.units = read_units(top_section(source, root, "units"));
  read_physics(top_section(source, root, "physics"), config.thermal, config.units, config);
  read_boundary(top_section(source, root, "boundary"), config.velocity, config);
  read_initial(top_section(source, root, "initial"), config);
  read_numerics(top_section(source, root, "numerics"), config);
  read_run(top_section(source, root, "run"), config);
  read_output(top_section(source, root, "output"), config);
  read_parallel(top_section(source, root, "parallel"), config);
  read_checkpoint(top_section(source, root, "checkpoint"), config);
  read_particles(top_section(source, root, "particles"), config);
  read_solids(source, root, config.units.enabled, config);
  read_forces(top_section(source, root, "forces"), config);
  read_statistics(top_section(source, root, "statistics"), config);
  return config;
}

/// The checks on the plain struct and the derived values, in the order their inputs need.
void finalize_with(CaseConfig& config, const Source& source) {
  using namespace case_io;
  if (config.name.empty()) {
    config.name = std::filesystem::path(config.source_file).stem().string();
    if (config.name.empty()) config.name = "case";
  }
  finalize_domain(config, source);
  finalize_thermal_inputs(config, source);  // Pr and Ra first: with Ra > 0 they may fix nu
  finalize_min_tau(config, source);         // the tau limit of both unit systems
  finalize_units(config, source);           // SI values fix U and nu
  finalize_physics(config, source);
  finalize_open_boundaries(config, source);  // SI to lattice needs dt and U; the Mach check needs the inlet speeds
  finalize_initial(config, source);
  finalize_mach(config, source);
  finalize_thermal(config, source);  // kappa, g beta and the sub-steps need nu, L and the largest speed
  finalize_numerics(config, source);
  finalize_run_output(config, source);
  finalize_parallel(config, source);
  finalize_particles(config, source);
  finalize_solids(config, source);  // metres to cells needs units.dx
  finalize_probes(config, source);  // likewise
  finalize_output_selection(config, source);  // likewise
  finalize_statistics(config, source);  // start_time needs units.dt, the start run.steps
  finalize_out_of_core(config, source);
}

}  // namespace

double CaseConfig::mach() const { return mach_number(case_io::max_speed(*this).first); }

void finalize_case(CaseConfig& config) { finalize_with(config, Source(config.source_file)); }

CaseConfig parse_case(const std::string& toml_text, const std::string& origin,
                      const std::vector<std::string>& overrides) {
  Source source(origin);
  case_io::check_key_nesting(toml_text, source.origin());  // before toml++, which recurses once per key part
  case_io::check_non_ascii(toml_text,
                           source.origin());  // before toml++, whose Unicode whitespace test can be undefined
  toml::table root;
  try {
    root = toml::parse(toml_text, source.origin());
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(blank_control_characters(source.origin() + ":" + std::to_string(where.line) + ":" +
                                              std::to_string(where.column) +
                                              ": TOML syntax error: " + std::string(e.description())));
  }
  for (const auto& text : overrides) case_io::apply_override(root, text, source);
  CaseConfig config = read_case(root, source);
  config.source_file = origin;
  finalize_with(config, source);
  return config;
}

CaseConfig load_case(const std::string& path, const std::vector<std::string>& overrides) {
  namespace fs = std::filesystem;
  // Only regular files (or symlinks to them): a FIFO would block the read, /dev/zero would never end.
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw CaseFileError(blank_control_characters("cannot open case file '" + path + "': " + ec.message()));
  if (fs::is_directory(status)) {
    throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + std::strerror(EISDIR) +
                                                 " (expected a TOML case file)"));
  }
  if (!fs::is_regular_file(status)) {
    throw CaseFileError(blank_control_characters(path + ": not a regular file (expected a TOML case file)"));
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + ec.message()));
  if (size > kMaxCaseFileBytes) {
    throw InputError(blank_control_characters(path + ": the case file is too large: " + std::to_string(size) +
                                              " bytes exceeds the limit of " + std::to_string(kMaxCaseFileBytes) +
                                              " bytes (16 MiB)"));
  }

  // O_NONBLOCK: should the path be swapped for a FIFO after the check, open does not wait for a writer (and the
  // fstat below rejects it); it has no effect on regular files.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw CaseFileError(blank_control_characters("cannot open case file '" + path + "': " + std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw CaseFileError(blank_control_characters(path + ": not a regular file (expected a TOML case file)"));
  }
  std::string text;
  char buffer[65536];
  int error = 0;
  while (true) {
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    if (count == 0) break;
    text.append(buffer, std::size_t(count));
    if (text.size() > kMaxCaseFileBytes) break;  // grew since the size check
  }
  ::close(fd);
  if (error != 0)
    throw CaseFileError(blank_control_characters("cannot read case file '" + path + "': " + std::strerror(error)));
  if (text.size() > kMaxCaseFileBytes) {
    throw InputError(blank_control_characters(path + ": the case file is too large: more than the limit of " +
                                              std::to_string(kMaxCaseFileBytes) + " bytes (16 MiB)"));
  }
  return parse_case(text, path, overrides);
}

}  // namespace eddy
