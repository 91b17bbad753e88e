// Ghost particles: copies of the particles of the neighbouring blocks (or of this block, across a periodic face it
// spans alone) that lie within the contact cutoff of this block, so that the contact search of every rank sees all
// partners of its own particles (the orchestration, phases and transports: solver/particle_ghosts.hpp). Host-callable
// launchers of kernels/particle_ghosts.cpp, and the records and image codes they share with the contact search.
// Asynchronous on GPUs unless said otherwise.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/particles.hpp"

namespace eddy {

/// Image code of a copy shifted by (sx, sy, sz) periods (each -1, 0 or 1) of the periodic domain: (sx + 1) +
/// 3 (sy + 1) + 9 (sz + 1), in 0..26; kUnshiftedImage = 13 for a particle where it is stored (or an unshifted copy).
inline constexpr std::uint8_t kUnshiftedImage = 13;

/// Per particle of a contact search, which image it is: entries [0, owned) are this rank's particles (image
/// kUnshiftedImage), entries [owned, n) ghost copies with image codes code[0, n - owned). (id, image) is unique
/// among the particles of one search: each image of a particle reaches a rank at most once.
struct GhostImages {
  std::int64_t owned = 0;
  const std::uint8_t* code = nullptr;
  EDDY_HOST_DEVICE std::uint8_t of(std::int64_t k) const { return k < owned ? kUnshiftedImage : code[k - owned]; }
};

/// One ghost particle in a message: position (global lattice coordinates, the period already added where the copy
/// crossed a periodic face), velocity, diameter, density, id and image code. 80 bytes, moved as raw bytes.
struct GhostRecord {
  double x[3];
  double v[3];
  double diameter;
  double density;
  std::int64_t id;
  std::int64_t image;
};

/// What one phase (one axis) of the ghost exchange sends: side 0 to the lower neighbour the particles with
/// x[axis] < limit[0], side 1 to the upper neighbour those with x[axis] >= limit[1]; a copy gets shift[side] added
/// to x[axis] (+L where it crosses the periodic face at 0 downwards, -L at L upwards, else 0) and its image code
/// that shift's trit. A side with send[side] = false sends nothing (a wall).
struct GhostFaces {
  int axis;
  bool send[2];
  double limit[2];
  double shift[2];
  int trit[2];  ///< -1, 0 or 1: the image shift along `axis` of a copy sent to that side
};

/// Packs the particles of `p` (entries [0, p.n): own and the ghosts of earlier phases, images as `images`) that
/// `faces` sends: into out[side][0, capacity[side]) in an order that depends on the threads (readers sort by
/// (id, image)). `counters`: 2 device values of scratch. Returns the number each side wants, which may exceed
/// capacity (then only the first capacity[side] are written: grow and call again). Waits for `stream`.
std::array<std::int64_t, 2> pack_ghosts(const ParticleView& p, const GhostImages& images, const GhostFaces& faces,
                                        GhostRecord* const (&out)[2], const std::int64_t (&capacity)[2],
                                        unsigned long long* counters, const backend::Stream* stream = nullptr);

/// Writes `count` records into the particle arrays of `p` at entries [p.n, p.n + count) (x, v, diameter, density,
/// id; forces untouched) and their image codes into codes[0, count). The arrays must have room.
void unpack_ghosts(const ParticleView& p, std::uint8_t* codes, const GhostRecord* records, std::int64_t count,
                   const backend::Stream* stream = nullptr);

}  // namespace eddy
