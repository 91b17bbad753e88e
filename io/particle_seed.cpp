// Initial particles (see particle_seed.hpp): random positions from std::mt19937_64 with an explicit mapping to
// doubles, or the rows of a CSV positions file. Host only; the same list on every rank and platform.
#include "io/particle_seed.hpp"

#include "io/csv_table.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace eddy {
namespace {

constexpr std::array<const char*, 3> kAxes = {"x", "y", "z"};

/// `value` as printf("%.17g") prints it, for messages (positions read back exactly).
std::string number_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 17);
  return std::string(buffer, result.ptr);
}


/// "<path>:<line>: <what>", the location format of every read error.
InputError read_error(const std::string& path, std::int64_t line, const std::string& what) {
  return InputError(path + ":" + std::to_string(line) + ": " + what);
}

/// A whole cell as a double (a leading '+' allowed); false on anything else.
bool parse_number(std::string_view cell, double& value) {
  if (!cell.empty() && cell.front() == '+') cell.remove_prefix(1);
  if (cell.empty()) return false;
  const auto result = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  return result.ec == std::errc() && result.ptr == cell.data() + cell.size();
}

/// Calls emit(id, position) for every particle of `config` in id order (see seed_particles).
template <class Emit>
void for_each_seed(const CaseConfig& config, Emit&& emit) {
  const ParticleConfig& p = config.particles;
  if (!p.enabled) return;
  const std::string where = source_prefix(config);
  if (!p.positions_file.empty()) {
    std::vector<std::array<double, 3>> rows;
    try {
      rows = read_particle_positions(p.positions_file, config.size);
    } catch (const InputError& e) {
      throw InputError(where + e.what() + " (particles.positions)");
    }
    for (std::size_t i = 0; i < rows.size(); ++i) emit(static_cast<std::int64_t>(i), rows[i]);
    return;
  }
  if (p.count < 1 || p.count > kMaxParticles) {
    throw InputError(where + "particles.count = " + std::to_string(p.count) + " is out of range: count must be >= 1 " +
                     "and <= " + std::to_string(kMaxParticles) + " (2^31 - 1)");
  }
  std::array<double, 3> lo = p.box_min;
  std::array<double, 3> hi = p.box_max;
  if (hi == std::array<double, 3>{0.0, 0.0, 0.0})
    hi = {double(config.size[0]), double(config.size[1]), double(config.size[2])};
  std::array<double, 3> width{};
  for (int a = 0; a < 3; ++a) {
    width[a] = hi[a] - lo[a];
    if (!(width[a] > 0.0) || !std::isfinite(width[a])) {
      throw InputError(where + "particles.box_min and particles.box_max give an empty box on the " + kAxes[a] +
                       " axis: box_min < box_max is needed on every axis");
    }
  }
  std::mt19937_64 engine(p.seed);
  for (std::int64_t id = 0; id < p.count; ++id) {
    std::array<double, 3> x{};
    for (int a = 0; a < 3; ++a) {
      const double u = unit_interval(engine());
      x[a] = std::fma(width[a], u, lo[a]);  // one rounding, no contraction choices left to the compiler
      if (x[a] >= hi[a]) x[a] = std::nextafter(hi[a], lo[a]);
    }
    emit(id, x);
  }
}

}  // namespace

std::vector<SeedParticle> seed_particles(const CaseConfig& config) {
  std::vector<SeedParticle> particles;
  if (config.particles.enabled && config.particles.positions_file.empty() && config.particles.count > 0 &&
      config.particles.count <= kMaxParticles) {
    particles.reserve(static_cast<std::size_t>(config.particles.count));
  }
  for_each_seed(config, [&](std::int64_t id, const std::array<double, 3>& x) {
    particles.push_back(SeedParticle{x, {0.0, 0.0, 0.0}, id});
  });
  return particles;
}

std::vector<SeedParticle> seed_particles(const CaseConfig& config, const std::array<double, 3>& lo,
                                         const std::array<double, 3>& hi) {
  std::vector<SeedParticle> particles;
  for_each_seed(config, [&](std::int64_t id, const std::array<double, 3>& x) {
    for (int a = 0; a < 3; ++a) {
      if (!(x[a] >= lo[a] && x[a] < hi[a])) return;
    }
    particles.push_back(SeedParticle{x, {0.0, 0.0, 0.0}, id});
  });
  return particles;
}

std::vector<std::array<double, 3>> read_particle_positions(const std::string& path, const std::array<int, 3>& domain,
                                                           std::int64_t max_rows) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) throw InputError("cannot read particle positions file '" + path + "': " + ec.message());
  if (!fs::is_regular_file(status)) {
    throw InputError("cannot read particle positions file '" + path +
                     "': " + (fs::is_directory(status) ? "is a directory" : "not a regular file") +
                     " (expected a CSV file with columns x,y,z)");
  }
  std::ifstream in(path);
  if (!in) throw InputError("cannot read particle positions file '" + path + "': " + std::strerror(errno));

  std::vector<std::array<double, 3>> positions;
  bool have_header = false;
  std::int64_t line_number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string_view body = trim(line);
    if (body.empty() || body.front() == '#') continue;
    const std::vector<std::string_view> cells = split_cells(body);
    if (!have_header) {
      if (cells.size() != 3 || cells[0] != "x" || cells[1] != "y" || cells[2] != "z") {
        throw read_error(path, line_number, "the header line must be 'x,y,z' (found '" + std::string(body) + "')");
      }
      have_header = true;
      continue;
    }
    if (static_cast<std::int64_t>(positions.size()) >= max_rows) {
      throw read_error(path, line_number,
                       "too many particles: more than the limit of " + std::to_string(max_rows) + " rows");
    }
    if (cells.size() != 3) {
      throw read_error(
          path, line_number,
          "expected 3 cells (x,y,z), found " + std::to_string(cells.size()) + ": '" + std::string(body) + "'");
    }
    std::array<double, 3> x{};
    for (int a = 0; a < 3; ++a) {
      if (!parse_number(cells[a], x[a])) {
        throw read_error(path, line_number,
                         std::string("column ") + kAxes[a] + ": '" + std::string(cells[a]) + "' is not a number");
      }
      if (!std::isfinite(x[a])) {
        throw read_error(
            path, line_number,
            std::string("column ") + kAxes[a] + ": '" + std::string(cells[a]) + "' is not a finite number");
      }
      if (!(x[a] >= 0.0 && x[a] < double(domain[a]))) {
        throw read_error(path, line_number,
                         std::string(kAxes[a]) + " = " + number_text(x[a]) + " is outside the domain: " + kAxes[a] +
                             " must be in [0, " + std::to_string(domain[a]) + ") (lattice units; domain.size = [" +
                             std::to_string(domain[0]) + ", " + std::to_string(domain[1]) + ", " +
                             std::to_string(domain[2]) + "])");
      }
    }
    positions.push_back(x);
  }
  if (in.bad()) {
    throw InputError("cannot read particle positions file '" + path + "': read error after line " +
                     std::to_string(line_number));
  }
  if (!have_header) {
    throw InputError("particle positions file '" + path +
                     "' has no header line 'x,y,z' (it is empty, or only "
                     "comments and blank lines)");
  }
  if (positions.empty()) {
    throw InputError("particle positions file '" + path + "' has no particles: a header line but no rows");
  }
  return positions;
}

}  // namespace eddy
