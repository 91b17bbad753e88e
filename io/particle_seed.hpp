// Initial particles of a case ([particles], io/case_config.hpp ParticleConfig): `count` positions drawn uniformly at
// random in the box [box_min, box_max) from `seed`, or the rows of a CSV file (`positions`). Every rank, every
// platform and every backend computes the same list: the generator (std::mt19937_64, whose output sequence the C++
// standard fixes) and its mapping to doubles are spelled out below, with no implementation-defined distribution.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/case_config.hpp"

namespace eddy {

/// Largest number of particles: particles.count and the rows of a positions file (2^31 - 1, so that counts fit the
/// int counts of MPI messages and VTK pieces).
inline constexpr std::int64_t kMaxParticles = 2147483647;

/// One particle at the start of a run. Lattice units.
struct SeedParticle {
  std::array<double, 3> position{};  ///< global lattice coordinates: the domain spans [0, n) per axis, cell i has its
                                     ///< centre at i + 1/2 (kernels/particles.hpp)
  std::array<double, 3> velocity{};  ///< 0 at the start
  std::int64_t id = 0;               ///< 0 .. N-1 in seeding order (the order of the draws or of the file's rows)
};

/// The global initial list of `config.particles` (empty when the case has no [particles] section), in id order:
///  - random seeding (`positions_file` empty): `count` particles; particle i takes three draws r_x, r_y, r_z (in that
///    order) from std::mt19937_64 seeded with `seed`, each mapped to u = unit_interval(r) in [0, 1), and lies at
///    position[a] = fma(box_max[a] - box_min[a], u, box_min[a]) (one correctly rounded fma, the same on every
///    platform), moved down to the largest double below box_max[a] in the rare case rounding reached it. box_max =
///    {0, 0, 0} (a struct not yet finalized) means the domain size;
///  - a positions file: its rows (read_particle_positions), against the domain config.size.
/// Throws InputError for a count out of [1, kMaxParticles] and for any problem with the positions file (naming the
/// file and the line). std::bad_alloc when the list does not fit in memory.
std::vector<SeedParticle> seed_particles(const CaseConfig& config);

/// The same list restricted to the particles with lo[a] <= position[a] < hi[a] on every axis (one rank's block, in
/// global lattice coordinates), ids as in the global list. Memory in proportion to the particles kept; the draws (or
/// rows) of all particles are still computed (read), so every rank agrees. Throws as seed_particles.
std::vector<SeedParticle> seed_particles(const CaseConfig& config, const std::array<double, 3>& lo,
                                         const std::array<double, 3>& hi);

/// The seeding's map of a 64-bit random integer to [0, 1): (r >> 11) * 2^-53, i.e. the top 53 bits as the fraction
/// (exact in a double; 0 <= u <= 1 - 2^-53).
inline double unit_interval(std::uint64_t r) { return static_cast<double>(r >> 11) * 0x1.0p-53; }

/// Reads a particle positions file: a CSV text file whose first line that is neither blank nor a comment ('#'
/// first) is the header `x,y,z`, then one particle per line, three numbers in lattice units (global lattice
/// coordinates, 0 <= x < nx, 0 <= y < ny, 0 <= z < nz for `domain` = {nx, ny, nz}). Blank and comment lines are
/// skipped anywhere; cells may be padded with spaces; CRLF line ends are fine. Returns the positions in file order.
/// Throws InputError "<path>:<line>: <what>" for a missing or unreadable file, not a regular file, a wrong header,
/// a row of other than 3 cells, a cell that is not a finite number, a position outside the domain, no rows, and more
/// than `max_rows` rows (kMaxParticles; tests pass a smaller limit).
std::vector<std::array<double, 3>> read_particle_positions(const std::string& path, const std::array<int, 3>& domain,
                                                           std::int64_t max_rows = kMaxParticles);

}  // namespace eddy
