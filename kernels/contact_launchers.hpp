// Host-callable launchers of the particle-particle force kernels: the cell list and soft-sphere contacts
// (kernels/particle_contacts.cpp), and the all-pairs soft-sphere contacts and softened gravity
// (kernels/particle_pairs.cpp). The owner of the buffers, and the one caller, is solver/particle_contacts.hpp.
// Asynchronous on GPUs.
//
// The order of every sum is fixed by the particle ids and positions alone, never by the order of the arrays: the
// cell list sorts by (cell, id) and the all-pairs kernels visit sources in id order (with ghost copies: by (id,
// image), kernels/ghost_launchers.hpp). So a permutation of the particle arrays, or another rank count (given the
// same particles through ghost copies, solver/particle_ghosts.hpp), gives bitwise the same forces on every backend.
// With ghosts, forces are computed for the first `targets` particles only (this rank's); the rest are sources. The two
// contact searches compute every pair term with the same function (add_contact_force) but sum the terms of a particle
// in different orders (neighbour cells, then ids; ids alone), so they agree to rounding, not bitwise.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/backend.hpp"
#include "kernels/ghost_launchers.hpp"
#include "kernels/particles.hpp"

namespace eddy {

/// Uniform cell grid of a cell list, aligned to the global domain: global cell c along an axis spans
/// [c * width, (c + 1) * width) with width = global length / cells on that axis (>= the contact range), so the same
/// particle falls in the same global cell on every rank. The list covers the global cells [first, first + n) per axis
/// (this rank's region). Local cell (cx, cy, cz) has index cx + n[0] * (cy + n[1] * cz) (< 2^32).
struct CellGrid {
  int first[3];      ///< global index of the first cell of the list, per axis
  int n[3];          ///< cells of the list per axis (>= 1)
  double width[3];   ///< cell width per axis (lattice units)
  double length[3];  ///< global domain length per axis (cells), the period of wrapped axes
  bool wrap[3];      ///< periodic axis held whole by this list: neighbour cells wrap, distances use the minimum image

  EDDY_HOST_DEVICE std::int64_t cells() const { return std::int64_t(n[0]) * n[1] * n[2]; }
};

/// Device arrays of a cell list over `capacity` >= n particles (solver/particle_contacts.hpp owns them).
struct CellListView {
  std::uint64_t* keys_in;      ///< capacity: sort input
  std::uint64_t* keys_sorted;  ///< capacity: after build_cell_list, (local cell << 32 | rank of id) ascending
  std::uint32_t* values_in;    ///< capacity: sort input
  std::uint32_t* by_id;        ///< capacity: after sort_particles_by_id, particle indices in ascending id order
                               ///< (with ghosts: ascending (id, image))
  std::uint32_t* order;        ///< capacity: after build_cell_list, particle indices in ascending (cell, id)
  std::uint32_t* cell_start;   ///< grid.cells(): first position in `order` of each cell's particles
  std::uint32_t* cell_end;     ///< grid.cells(): one past the last; start == end (0, 0) for an empty cell
  void* scratch;               ///< sort scratch, scratch_bytes >= particle_sort_scratch_bytes(n, grid)
  std::size_t scratch_bytes;
};

/// Linear spring-dashpot contact (Cundall & Strack 1979, Geotechnique 29(1), 47-65; normal force only, no
/// tangential friction): stiffness k (force per cell of overlap) and damping gamma (force per unit normal relative
/// velocity), lattice units.
struct ContactParams {
  double stiffness;
  double damping;
};

/// What the contact force needs of one sphere: position x (global lattice coordinates), velocity v and radius
/// d / 2, lattice units.
struct ContactSphere {
  double x[3];
  double v[3];
  double radius;
};

/// Adds to `f` the contact force on sphere i from sphere j, the one pair formula of both contact searches:
/// r = x_i - x_j, on the axes with grid.wrap set shifted to the minimum image (r -= L when r > L/2, r += L when
/// r < -L/2, L = grid.length; exactly antisymmetric in i and j); delta = (r_i + r_j) - |r|; when delta > 0 and
/// r != 0: f += (k delta - gamma (v_i - v_j).n) n with n = r / |r| (from j to i). Adds nothing otherwise
/// (coincident spheres have no normal). Only grid.length and grid.wrap are read. Lattice units. Linear
/// spring-dashpot, normal part (Cundall & Strack 1979, Geotechnique 29(1), 47-65).
EDDY_HOST_DEVICE inline void add_contact_force(const ContactSphere& i, const ContactSphere& j, const CellGrid& grid,
                                               const ContactParams& params, double (&f)[3]) {
  double r[3];
  for (int a = 0; a < 3; ++a) {
    double d = i.x[a] - j.x[a];
    if (grid.wrap[a]) {
      const double half = 0.5 * grid.length[a];
      if (d > half) {
        d -= grid.length[a];
      } else if (d < -half) {
        d += grid.length[a];
      }
    }
    r[a] = d;
  }
  const double dist2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  const double reach = i.radius + j.radius;
  if (dist2 >= reach * reach || dist2 == 0.0) return;
  const double dist = sqrt(dist2);
  const double delta = reach - dist;
  if (!(delta > 0.0)) return;
  const double n[3] = {r[0] / dist, r[1] / dist, r[2] / dist};
  const double vn = (i.v[0] - j.v[0]) * n[0] + (i.v[1] - j.v[1]) * n[1] + (i.v[2] - j.v[2]) * n[2];
  const double magnitude = params.stiffness * delta - params.damping * vn;
  for (int a = 0; a < 3; ++a) f[a] += magnitude * n[a];
}

/// Softened gravity (Plummer softening; Aarseth 2003, Gravitational N-Body Simulations, Cambridge UP):
/// G and eps (cells), lattice units.
struct PairGravityParams {
  double gravity_constant;
  double softening;
};

/// Device scratch bytes the two sorts of sort_particles_by_id and build_cell_list need for n particles on `grid`
/// (host-side query). Throws std::length_error when n > 2^31 - 1.
std::size_t particle_sort_scratch_bytes(std::int64_t n, const CellGrid& grid);

/// Sets every cell of the list empty (cell_start = cell_end = 0): once, after allocating the cell arrays.
void clear_cell_list(const CellGrid& grid, const CellListView& list, const backend::Stream* stream = nullptr);

/// Empties the cells the last build_cell_list filled: reads list.keys_sorted[0, n_listed) of that build, so the
/// next build finds every cell empty in O(n) instead of O(cells). Call before the key arrays are reused or replaced.
void reset_cell_list(const CellGrid& grid, const CellListView& list, std::int64_t n_listed,
                     const backend::Stream* stream = nullptr);

/// list.by_id = indices of the n particles of p in ascending p.id (ids unique; any int64 value).
void sort_particles_by_id(const ParticleView& p, const CellListView& list, const backend::Stream* stream = nullptr);

/// `by_id` = indices of the n particles of p (own and ghost copies, `images`) in ascending (id, image): key
/// id * 32 + image code, so ids must lie in [0, 2^58) (the run's ids are 0 .. N-1) and (id, image) be unique.
/// Sorts with list's keys, values and scratch (by_id may be list.by_id or another array of n entries).
void sort_particles_by_image(const ParticleView& p, const GhostImages& images, const CellListView& list,
                             std::uint32_t* by_id, const backend::Stream* stream = nullptr);

/// Builds the cell list of p on `grid` (needs list.by_id of sort_particles_by_id and an empty grid: clear or reset):
/// key = local cell << 32 | rank in id order, sorted; then each occupied cell's [cell_start, cell_end) in
/// list.order. Particles outside the grid count in the nearest cell of the grid.
void build_cell_list(const ParticleView& p, const CellGrid& grid, const CellListView& list,
                     const backend::Stream* stream = nullptr);

/// Soft-sphere contact forces from the cell list: for every pair in the 27 neighbour cells with overlap
/// delta = (d_i + d_j)/2 - |r_ij| > 0, F_i += (k delta - gamma (v_i - v_j).n) n, n = r_ij / |r_ij| from j to i
/// (r_ij = x_i - x_j, minimum image on wrapped axes; add_contact_force). Neighbour cells in a fixed order (z, y, x
/// offsets -1, 0, 1), each cell's particles in id order (by_id: (id, image) with ghosts). Partners with the particle's
/// own id (itself, its own periodic images) and coincident pairs (r = 0, no normal) are skipped.
/// The contact range must not exceed the cell width: every p.diameter <= min(grid.width). Only the particles
/// [0, targets) get a force (the others, ghost copies, are partners only): writes p.force = contact force
/// (accumulate = false) or adds it (accumulate = true). Lattice units.
void contact_forces(const ParticleView& p, std::int64_t targets, const CellGrid& grid, const CellListView& list,
                    const ContactParams& params, bool accumulate, const backend::Stream* stream = nullptr);

/// All-pairs soft-sphere contact forces: for every particle i, add_contact_force over every j with another id, sources
/// j in ascending id order (by_id from sort_particles_by_id, or (id, image) from sort_particles_by_image), with the
/// same minimum image on the axes `grid` wraps (only grid.length and grid.wrap are read). The same pairs and pair terms
/// as contact_forces on a cell list of `grid` (where the cell list finds every partner: diameters <= the cell width),
/// summed in id order instead of cell order; no limit on the diameters. Cost targets * n (small counts; a reference for
/// the cell list). Only the particles [0, targets) get a force: p.force = contact force (accumulate = false) or + it
/// (accumulate = true). Lattice units.
void contact_forces_all_pairs(const ParticleView& p, std::int64_t targets, const std::uint32_t* by_id,
                              const CellGrid& grid, const ContactParams& params, bool accumulate,
                              const backend::Stream* stream = nullptr);

/// All-pairs softened gravity on the targets `p` (p.n of them) from the sources `s` (s.n; e.g. every particle of
/// every rank, or p itself): F_i = sum_{j, id_j != id_i} G m_i m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2),
/// m = density * pi d^3 / 6 (fluid density 1), sources j in ascending id order (s_by_id from sort_particles_by_id
/// on s), positions as stored (no periodic images; only x, diameter, density and id of s are read). Double precision
/// throughout; cost p.n * s.n (small counts). Writes p.force (accumulate = false) or adds to it (accumulate = true).
/// Lattice units.
void pair_gravity_forces(const ParticleView& p, const ParticleView& s, const std::uint32_t* s_by_id,
                         const PairGravityParams& params, bool accumulate, const backend::Stream* stream = nullptr);

/// p.force = 0 for every particle.
void clear_particle_forces(const ParticleView& p, const backend::Stream* stream = nullptr);

}  // namespace eddy
