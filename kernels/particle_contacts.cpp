// Soft-sphere contacts between particles through a uniform cell list.
//
// Force on particle i from every particle j it overlaps, delta = (d_i + d_j)/2 - |r_ij| > 0, r_ij = x_i - x_j:
//   F_i = sum_j (k delta - gamma (v_i - v_j) . n) n,   n = r_ij / |r_ij|   (points from j to i)
// the linear spring-dashpot of the discrete element method (Cundall & Strack 1979, "A discrete numerical model for
// granular assemblies", Geotechnique 29(1), 47-65), normal part only. F_j = -F_i bitwise for every pair (the
// pair term is computed from exactly negated differences). The pair term is add_contact_force
// (kernels/contact_launchers.hpp), shared with the all-pairs search of kernels/particle_pairs.cpp.
//
// Cell list (e.g. Allen & Tildesley 2017, Computer Simulation of Liquids, 2nd ed., sec. 5.3): cells at least as
// wide as the largest diameter, so every partner of a particle lies in its own or one of the 26 neighbouring cells.
// Per particle the key (local cell << 32 | rank of its id) is sorted (sort_pairs: a library radix sort on GPUs);
// the key makes the order of every sum depend on positions and ids only, not on the order of the arrays. With ghost
// copies (solver/particle_ghosts.hpp) the rank of (id, image) takes the place of the id's, and only this rank's own
// particles get a force: its sums are then the same on every rank count.
//
// Bytes per particle and step (8-byte doubles), ghost copies included: id keys 8 (+ 1 image) read + 12 written; two
// sorts of (8-byte key, 4-byte value) pairs, each a few radix passes that read and write 12 bytes per pair; cell keys 4
// + 24 read + 12 written; ranges 24 read + <= 8 written; contacts 4 + 64 read + 24 written for an own particle, and per
// candidate in the 27 cells 4 + 64 read (mostly from cache: neighbouring threads visit the same cells), plus 2 x 4 per
// neighbour cell. Reset of the last step's cells: 8 read + 8 written per particle (no pass over all cells).
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/contact_launchers.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/sort_pairs.hpp"

namespace eddy {
namespace {

/// Box over n particles as one flat range: f(0, k, 0) for k in [0, n). (y carries the index: the cpu loop
/// parallelises over y and z, GPUs launch a box this thin as a flat range.)
/// Throws std::length_error beyond 2^31 - 1 particles.
inline Box particle_range(std::int64_t n) {
  if (n > std::int64_t(0x7fffffff)) {
    throw std::length_error("particle kernels: " + std::to_string(n) + " particles on one rank (at most 2^31 - 1)");
  }
  return Box{{0, 0, 0}, {1, int(n), 1}};
}

/// Local cell of coordinate x along `axis`, clamped into the grid (positions outside, or NaN, go to an edge cell).
EDDY_HOST_DEVICE inline int cell_on_axis(const CellGrid& g, int axis, double x) {
  double q = floor(x / g.width[axis]) - double(g.first[axis]);
  const double last = double(g.n[axis] - 1);
  if (!(q >= 0.0)) q = 0.0;
  if (q > last) q = last;
  return int(q);
}

EDDY_HOST_DEVICE inline std::int64_t cell_of(const CellGrid& g, const ParticleView& p, std::int64_t i, int (&c)[3]) {
  for (int a = 0; a < 3; ++a) c[a] = cell_on_axis(g, a, p.x[a][i]);
  return c[0] + std::int64_t(g.n[0]) * (c[1] + std::int64_t(g.n[1]) * c[2]);
}

/// Ids as unsigned keys in the same order: flip the sign bit of the two's complement.
struct IdKeys {
  ParticleView p;
  CellListView list;
  EDDY_HOST_DEVICE void operator()(int, int k, int) const {
    list.keys_in[k] = static_cast<std::uint64_t>(p.id[k]) ^ (std::uint64_t(1) << 63);
    list.values_in[k] = std::uint32_t(k);
  }
};

/// (id, image) as a key in the same order: id * 32 + image code (ids in [0, 2^58)).
struct ImageIdKeys {
  ParticleView p;
  GhostImages images;
  CellListView list;
  EDDY_HOST_DEVICE void operator()(int, int k, int) const {
    list.keys_in[k] = (static_cast<std::uint64_t>(p.id[k]) << 5) | std::uint64_t(images.of(k));
    list.values_in[k] = std::uint32_t(k);
  }
};

/// Position r in id order: key = local cell << 32 | r, value = the particle's index.
struct CellKeys {
  ParticleView p;
  CellGrid grid;
  CellListView list;
  EDDY_HOST_DEVICE void operator()(int, int r, int) const {
    const std::uint32_t i = list.by_id[r];
    int c[3];
    const std::int64_t cell = cell_of(grid, p, i, c);
    list.keys_in[r] = (std::uint64_t(cell) << 32) | std::uint32_t(r);
    list.values_in[r] = i;
  }
};

/// [start, end) of each occupied cell in the sorted order: where the cell part of the key changes.
struct CellRanges {
  CellListView list;
  std::int64_t n;
  EDDY_HOST_DEVICE void operator()(int, int k, int) const {
    const std::uint64_t cell = list.keys_sorted[k] >> 32;
    if (k == 0 || (list.keys_sorted[k - 1] >> 32) != cell) list.cell_start[cell] = std::uint32_t(k);
    if (k == n - 1 || (list.keys_sorted[k + 1] >> 32) != cell) list.cell_end[cell] = std::uint32_t(k + 1);
  }
};

/// Empties the cells named by the keys of the last build.
struct ResetCells {
  CellListView list;
  std::uint64_t cells;
  EDDY_HOST_DEVICE void operator()(int, int k, int) const {
    const std::uint64_t cell = list.keys_sorted[k] >> 32;
    if (cell < cells) list.cell_start[cell] = list.cell_end[cell] = 0;
  }
};

/// Every cell empty; cells indexed (x, y, z) over the grid.
struct ClearCells {
  CellListView list;
  int n0, n1;
  EDDY_HOST_DEVICE void operator()(int x, int y, int z) const {
    const std::int64_t cell = x + std::int64_t(n0) * (y + std::int64_t(n1) * z);
    list.cell_start[cell] = list.cell_end[cell] = 0;
  }
};

/// One thread per particle, in cell order (t -> i = order[t]) so neighbouring threads read the same cells.
struct Contacts {
  ParticleView p;
  CellGrid grid;
  CellListView list;
  ContactParams params;
  bool accumulate;
  std::int64_t targets;  ///< particles [0, targets) get a force; the others (ghost copies) are partners only

  EDDY_HOST_DEVICE ContactSphere sphere(std::int64_t j) const {
    return ContactSphere{{p.x[0][j], p.x[1][j], p.x[2][j]}, {p.v[0][j], p.v[1][j], p.v[2][j]}, 0.5 * p.diameter[j]};
  }

  EDDY_HOST_DEVICE void operator()(int, int t, int) const {
    const std::int64_t i = list.order[t];
    if (i >= targets) return;
    const ContactSphere si = sphere(i);
    const std::int64_t id = p.id[i];
    int c[3];
    cell_of(grid, p, i, c);
    // Offsets per axis: -1, 0, 1; a wrapped axis of one or two cells visits each distinct cell once.
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = (grid.wrap[a] && grid.n[a] <= 2) ? 0 : -1;
      hi[a] = (grid.wrap[a] && grid.n[a] == 1) ? 0 : 1;
    }
    double f[3] = {0.0, 0.0, 0.0};
    for (int dz = lo[2]; dz <= hi[2]; ++dz) {
      int cz = c[2] + dz;
      if (!wrap_cell(2, cz)) continue;
      for (int dy = lo[1]; dy <= hi[1]; ++dy) {
        int cy = c[1] + dy;
        if (!wrap_cell(1, cy)) continue;
        for (int dx = lo[0]; dx <= hi[0]; ++dx) {
          int cx = c[0] + dx;
          if (!wrap_cell(0, cx)) continue;
          const std::int64_t cell = cx + std::int64_t(grid.n[0]) * (cy + std::int64_t(grid.n[1]) * cz);
          const std::uint32_t end = list.cell_end[cell];
          for (std::uint32_t s = list.cell_start[cell]; s < end; ++s) {
            const std::int64_t j = list.order[s];
            if (p.id[j] == id) continue;  // itself, or its own periodic image (a ghost copy)
            add_contact_force(si, sphere(j), grid, params, f);
          }
        }
      }
    }
    for (int a = 0; a < 3; ++a) p.force[a][i] = accumulate ? p.force[a][i] + f[a] : f[a];
  }

  /// Neighbour cell index along `axis`: wrapped on periodic axes held whole, false outside the grid otherwise.
  EDDY_HOST_DEVICE bool wrap_cell(int axis, int& c) const {
    if (grid.wrap[axis]) {
      if (c < 0) c += grid.n[axis];
      if (c >= grid.n[axis]) c -= grid.n[axis];
      return true;
    }
    return c >= 0 && c < grid.n[axis];
  }
};

struct ClearForces {
  ParticleView p;
  EDDY_HOST_DEVICE void operator()(int, int k, int) const { p.force[0][k] = p.force[1][k] = p.force[2][k] = 0.0; }
};

/// Bits of the local cell index: the sort compares 32 + cell_bits bits of the cell key.
int cell_key_bits(const CellGrid& grid) {
  int bits = 0;
  while (bits < 32 && (std::int64_t(1) << bits) < grid.cells()) ++bits;
  return 32 + bits;
}

}  // namespace

std::size_t particle_sort_scratch_bytes(std::int64_t n, const CellGrid& grid) {
  const std::size_t by_id = sort_pairs_scratch_bytes(n, 64);
  const std::size_t by_cell = sort_pairs_scratch_bytes(n, cell_key_bits(grid));
  return by_id > by_cell ? by_id : by_cell;
}

void clear_cell_list(const CellGrid& grid, const CellListView& list, const backend::Stream* stream) {
  parallel_for(Box{{0, 0, 0}, {grid.n[0], grid.n[1], grid.n[2]}}, ClearCells{list, grid.n[0], grid.n[1]},
               "clear_cell_list", stream);
}

void reset_cell_list(const CellGrid& grid, const CellListView& list, std::int64_t n_listed,
                     const backend::Stream* stream) {
  parallel_for(particle_range(n_listed), ResetCells{list, std::uint64_t(grid.cells())}, "reset_cell_list", stream);
}

void sort_particles_by_id(const ParticleView& p, const CellListView& list, const backend::Stream* stream) {
  if (p.n <= 0) return;
  parallel_for(particle_range(p.n), IdKeys{p, list}, "particle_id_keys", stream);
  sort_pairs(list.keys_in, list.keys_sorted, list.values_in, list.by_id, p.n, 64, list.scratch, list.scratch_bytes,
             stream);
}

void sort_particles_by_image(const ParticleView& p, const GhostImages& images, const CellListView& list,
                             std::uint32_t* by_id, const backend::Stream* stream) {
  if (p.n <= 0) return;
  parallel_for(particle_range(p.n), ImageIdKeys{p, images, list}, "particle_image_keys", stream);
  sort_pairs(list.keys_in, list.keys_sorted, list.values_in, by_id, p.n, 64, list.scratch, list.scratch_bytes, stream);
}

void build_cell_list(const ParticleView& p, const CellGrid& grid, const CellListView& list,
                     const backend::Stream* stream) {
  if (p.n <= 0) return;
  const int bits = cell_key_bits(grid);
  parallel_for(particle_range(p.n), CellKeys{p, grid, list}, "particle_cell_keys", stream);
  sort_pairs(list.keys_in, list.keys_sorted, list.values_in, list.order, p.n, bits, list.scratch, list.scratch_bytes,
             stream);
  parallel_for(particle_range(p.n), CellRanges{list, p.n}, "particle_cell_ranges", stream);
}

void contact_forces(const ParticleView& p, std::int64_t targets, const CellGrid& grid, const CellListView& list,
                    const ContactParams& params, bool accumulate, const backend::Stream* stream) {
  if (p.n <= 0 || targets <= 0) return;
  parallel_for(particle_range(p.n), Contacts{p, grid, list, params, accumulate, targets}, "particle_contacts", stream);
}

void clear_particle_forces(const ParticleView& p, const backend::Stream* stream) {
  if (p.n <= 0) return;
  parallel_for(particle_range(p.n), ClearForces{p}, "clear_particle_forces", stream);
}

}  // namespace eddy
