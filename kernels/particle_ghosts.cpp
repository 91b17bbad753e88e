// Ghost particles (kernels/ghost_launchers.hpp): the packing of the particles within the contact cutoff of a block
// face into message records, and the unpacking of received records behind a rank's own particles.
//
// A copy that crosses a periodic face gets the period added to its coordinate on that axis, x' = x + s L with
// s = +1 across the face at 0 and -1 across the face at L: the same one addition whichever rank makes it, so a
// ghost's position has the same bits on every rank count (solver/particle_ghosts.hpp explains why that, with sums
// sorted by (id, image), makes the contact forces independent of the rank count).
//
// Bytes per particle and phase: pack 8 read (the coordinate tested) + 1 (image, ghosts only), and per copy 80 read
// and 80 written; unpack 80 read and 73 written per copy.
#include <algorithm>

#include "kernels/ghost_launchers.hpp"
#include "kernels/parallel_for.hpp"

namespace eddy {
namespace {

/// Particles as rows of kRow in a 2D box (parallel_for's int coordinates cover any count).
constexpr int kRow = 1024;

Box rows_of(std::int64_t n) {
  const int rows = int((n + kRow - 1) / kRow);
  return Box{{0, 0, 0}, {int(std::min<std::int64_t>(n, kRow)), rows, 1}};
}

struct PackGhosts {
  ParticleView p;
  GhostImages images;
  GhostFaces faces;
  GhostRecord* out[2];
  std::int64_t capacity[2];
  unsigned long long* counters;

  EDDY_HOST_DEVICE void operator()(int i, int row, int /*z*/) const {
    const std::int64_t k = std::int64_t(row) * kRow + i;
    if (k >= p.n) return;
    const double x = p.x[faces.axis][k];
    const bool side_of[2] = {faces.send[0] && x < faces.limit[0], faces.send[1] && x >= faces.limit[1]};
    for (int side = 0; side < 2; ++side) {
      if (!side_of[side]) continue;
      const unsigned long long slot = atomic_fetch_add(&counters[side], 1ull);
      if (std::int64_t(slot) >= capacity[side]) continue;
      GhostRecord r;
      for (int a = 0; a < 3; ++a) {
        r.x[a] = p.x[a][k];
        r.v[a] = p.v[a][k];
      }
      r.x[faces.axis] = x + faces.shift[side];
      r.diameter = p.diameter[k];
      r.density = p.density[k];
      r.id = p.id[k];
      int power = 1;
      for (int a = 0; a < faces.axis; ++a) power *= 3;
      r.image = std::int64_t(images.of(k)) + faces.trit[side] * power;
      out[side][slot] = r;
    }
  }
};

struct UnpackGhosts {
  ParticleView p;
  std::uint8_t* codes;
  const GhostRecord* records;
  std::int64_t count;

  EDDY_HOST_DEVICE void operator()(int i, int row, int /*z*/) const {
    const std::int64_t k = std::int64_t(row) * kRow + i;
    if (k >= count) return;
    const GhostRecord& r = records[k];
    const std::int64_t at = p.n + k;
    for (int a = 0; a < 3; ++a) {
      p.x[a][at] = r.x[a];
      p.v[a][at] = r.v[a];
    }
    p.diameter[at] = r.diameter;
    p.density[at] = r.density;
    p.id[at] = r.id;
    codes[k] = std::uint8_t(r.image);
  }
};

}  // namespace

std::array<std::int64_t, 2> pack_ghosts(const ParticleView& p, const GhostImages& images, const GhostFaces& faces,
                                        GhostRecord* const (&out)[2], const std::int64_t (&capacity)[2],
                                        unsigned long long* counters, const backend::Stream* stream) {
  if (p.n <= 0 || !(faces.send[0] || faces.send[1])) return {0, 0};
  const unsigned long long zero[2] = {0, 0};
  if (stream) {
    backend::copy_to_device_async(counters, zero, sizeof zero, *stream);
  } else {
    backend::copy_to_device(counters, zero, sizeof zero);
  }
  parallel_for(rows_of(p.n), PackGhosts{p, images, faces, {out[0], out[1]}, {capacity[0], capacity[1]}, counters},
               "pack_ghosts", stream);
  unsigned long long counts[2] = {0, 0};
  if (stream) {
    backend::copy_to_host_async(counts, counters, sizeof counts, *stream);
    stream->synchronize();
  } else {
    backend::synchronize();
    backend::copy_to_host(counts, counters, sizeof counts);
  }
  return {std::int64_t(counts[0]), std::int64_t(counts[1])};
}

void unpack_ghosts(const ParticleView& p, std::uint8_t* codes, const GhostRecord* records, std::int64_t count,
                   const backend::Stream* stream) {
  if (count <= 0) return;
  parallel_for(rows_of(count), UnpackGhosts{p, codes, records, count}, "unpack_ghosts", stream);
}

}  // namespace eddy
