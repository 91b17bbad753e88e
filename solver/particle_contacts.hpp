// ParticleContacts: particle-particle forces of one rank (soft-sphere contacts through a cell list or over all
// pairs, all-pairs softened gravity), the owner of the cell-list buffers. Kernels: kernels/contact_launchers.hpp.
#pragma once

#include <array>
#include <cstdint>

#include "io/case_config.hpp"
#include "kernels/contact_launchers.hpp"
#include "kernels/particles.hpp"
#include "solver/device_buffer.hpp"

namespace eddy {

/// Narrowest cell of the contact cell list (lattice cells): see ParticleContacts.
inline constexpr double kMinCellWidth = 2.0;

/// The part of the domain one rank's particle forces cover, in global lattice cells.
struct ContactRegion {
  std::array<int, 3> global_size{};  ///< domain cells per axis (>= 1)
  std::array<bool, 3> periodic{};    ///< periodic axes of the domain
  std::array<int, 3> offset{};       ///< global index of this rank's first cell per axis
  std::array<int, 3> size{};         ///< this rank's cells per axis (>= 1)
  /// Ghost copies of other blocks' particles (and periodic images) up to `halo` cells beyond the region's faces
  /// take part, on the axes in `halo_axes` (solver/particle_ghosts.hpp): the cell list extends over them, and with
  /// halo > 0 no axis wraps (the images come as ghost copies). 0: no ghosts (a periodic axis held whole wraps).
  double halo = 0.0;
  std::array<bool, 3> halo_axes{};
};

/// The cell grid of a contact search over `region` with cells at least `cell_size` wide (the largest particle
/// diameter): per axis cells = max(1, floor(global_size / cell_size)) over the whole domain, width = global_size /
/// cells, and the list holds the global cells that overlap [offset, offset + size), widened by region.halo on the
/// halo axes. An axis wraps (neighbour cells and minimum-image distances across the periodic boundary) when it is
/// periodic, the region spans all of it and there is no halo (region.halo == 0).
/// Throws std::invalid_argument for a non-positive cell_size or sizes, and when the list would exceed 2^32 - 1 cells.
CellGrid make_cell_grid(const ContactRegion& region, double cell_size);

/// Particle-particle forces of the particles of one rank, as configured in ParticleConfig:
///  - contacts (config.contacts): linear spring-dashpot, F_i = sum_j (k delta - gamma (v_i - v_j).n) n for overlap
///    delta = (d_i + d_j)/2 - |x_i - x_j| > 0 (Cundall & Strack 1979), found through a uniform cell list
///    (config.contact_search = cell_list) or over all pairs (all_pairs: cost n^2, no cell arrays; the same pairs and
///    pair terms, summed in id order instead of cell order, so equal to rounding);
///  - pair force gravity (config.pair_force): F_i = sum_{j != i} G m_i m_j (x_j - x_i) / (|x_j - x_i|^2 +
///    eps^2)^(3/2), m = density * pi d^3 / 6, over all pairs (Plummer softening, Aarseth 2003).
/// compute_forces(p) takes the particles of p alone: periodic axes held whole use the minimum image for contacts
/// (a periodic axis shorter than two diameters sees only the nearest image). compute_forces(ContactParticles) adds
/// ghost copies of the neighbours' particles and of the periodic images (solver/particle_ghosts.hpp) as partners,
/// and for gravity a separate list of sources (every particle of the run). Gravity uses positions as stored, no
/// images.
/// Every sum runs in an order fixed by positions and particle ids (and image codes), not by the order of the
/// arrays: permuted arrays, or the same particles on another rank count, give bitwise the same forces.
/// Memory: 28 bytes per particle of capacity plus the sort scratch; with cell-list contacts 8 bytes per cell of the
/// grid (cells about the size of a diameter, over this rank's region).
/// The particles of one compute_forces with ghosts: all.n entries, [0, images.owned) this rank's (they get the
/// force), the rest ghost copies (partners only, image codes in images.code); and the sources of the pair gravity
/// (gravity_sources.n == 0: this rank's particles, as in a one-rank run).
struct ContactParticles {
  ParticleView all{};
  GhostImages images{};
  ParticleView gravity_sources{};
};

class ParticleContacts {
 public:
  /// `max_diameter`: the largest p.diameter that will be passed (0: config.diameter); the cell size is
  /// max(config.diameter, max_diameter) and larger particles would miss contacts.
  /// Throws std::invalid_argument for a bad region (make_cell_grid), a non-positive diameter with contacts, negative
  /// or non-finite stiffness, damping, G or softening, and DeviceError when the cell arrays do not fit.
  /// With all-pairs contacts the diameter sets no cell size (the grid is one cell per axis) and larger particles
  /// miss nothing.
  ParticleContacts(const ParticleConfig& config, const ContactRegion& region, double max_diameter = 0.0);

  /// Sets p.force (device arrays of p.n entries, lattice units) to contact + pair force, or to zero when neither is
  /// enabled (or config.enabled is false). Grows the buffers when p.n exceeds their capacity (after waiting for
  /// the stream). Asynchronous in `stream` on GPUs. Throws std::length_error beyond 2^31 - 1 particles,
  /// DeviceError when an allocation or launch fails.
  void compute_forces(const ParticleView& p, const backend::Stream* stream = nullptr);
  /// The same for the first in.images.owned particles of in.all, the ghost copies behind them counting as partners
  /// (ids in [0, 2^58), (id, image) unique: kernels/contact_launchers.hpp sort_particles_by_image), gravity from
  /// in.gravity_sources. Throws like compute_forces(p).
  void compute_forces(const ContactParticles& in, const backend::Stream* stream = nullptr);

  bool contacts() const { return contacts_; }
  /// Contacts through the cell list (false: over all pairs, or no contacts).
  bool cell_list() const { return cell_list_; }
  bool pair_gravity() const { return gravity_; }
  /// The cell grid of the contact search (a single cell per axis when contacts are off or go over all pairs; its
  /// wrap and length then still give the periodic images of the all-pairs contacts).
  const CellGrid& grid() const { return grid_; }
  /// Particles the buffers hold room for.
  std::int64_t capacity() const { return capacity_; }

 private:
  CellListView view() const;
  void reserve(std::int64_t n, const backend::Stream* stream);

  bool contacts_ = false;
  bool cell_list_ = false;  ///< contacts_ through the cell list (the cell arrays and their reset are used)
  bool gravity_ = false;
  ContactParams contact_params_{};
  PairGravityParams gravity_params_{};
  CellGrid grid_{};
  std::int64_t capacity_ = 0;
  std::int64_t listed_ = 0;   ///< entries of keys_sorted_ whose cells are filled in cell_start_ / cell_end_
  bool cells_dirty_ = false;  ///< a failed build may have left cells filled: clear all before the next
  DeviceBuffer<std::uint64_t> keys_in_, keys_sorted_;
  DeviceBuffer<std::uint32_t> values_in_, by_id_, order_;
  DeviceBuffer<std::uint32_t> source_by_id_;  ///< gravity sources in id order (compute_forces with sources)
  std::int64_t source_capacity_ = 0;
  DeviceBuffer<std::uint32_t> cell_start_, cell_end_;
  DeviceBuffer<unsigned char> scratch_;
};

}  // namespace eddy
