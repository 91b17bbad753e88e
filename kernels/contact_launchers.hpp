// Host-callable launchers of the particle-particle force kernels: the cell list and soft-sphere contacts
// (kernels/particle_contacts.cpp) and the all-pairs softened gravity (kernels/particle_pairs.cpp). The owner of the
// buffers, and the one caller, is solver/particle_contacts.hpp. Asynchronous on GPUs.
//
// The order of every sum is fixed by the particle ids and positions alone, never by the order of the arrays: the
// cell list sorts by (cell, id) and gravity visits sources in id order. So a permutation of the particle arrays, or
// another rank count (given the same particles, e.g. through ghost copies), gives bitwise the same forces on cpu.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/backend.hpp"
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

/// Builds the cell list of p on `grid` (needs list.by_id of sort_particles_by_id and an empty grid: clear or reset):
/// key = local cell << 32 | rank in id order, sorted; then each occupied cell's [cell_start, cell_end) in
/// list.order. Particles outside the grid count in the nearest cell of the grid.
void build_cell_list(const ParticleView& p, const CellGrid& grid, const CellListView& list,
                     const backend::Stream* stream = nullptr);

/// Soft-sphere contact forces from the cell list: for every pair in the 27 neighbour cells with overlap
/// delta = (d_i + d_j)/2 - |r_ij| > 0, F_i += (k delta - gamma (v_i - v_j).n) n, n = r_ij / |r_ij| from j to i
/// (r_ij = x_i - x_j, minimum image on wrapped axes). Neighbour cells in a fixed order (z, y, x offsets -1, 0, 1),
/// each cell's particles in id order. Coincident pairs (r = 0) have no normal and are skipped. The contact range
/// must not exceed the cell width: every p.diameter <= min(grid.width). Writes p.force = contact force
/// (accumulate = false) or adds it (accumulate = true). Lattice units.
void contact_forces(const ParticleView& p, const CellGrid& grid, const CellListView& list, const ContactParams& params,
                    bool accumulate, const backend::Stream* stream = nullptr);

/// All-pairs softened gravity: F_i = sum_{j != i} G m_i m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2),
/// m = density * pi d^3 / 6 (fluid density 1), sources j in ascending id order (by_id from sort_particles_by_id),
/// positions as stored (no periodic images). Double precision throughout; cost n^2 (small counts). Writes p.force
/// (accumulate = false) or adds to it (accumulate = true). Lattice units.
void pair_gravity_forces(const ParticleView& p, const std::uint32_t* by_id, const PairGravityParams& params,
                         bool accumulate, const backend::Stream* stream = nullptr);

/// p.force = 0 for every particle.
void clear_particle_forces(const ParticleView& p, const backend::Stream* stream = nullptr);

}  // namespace eddy
