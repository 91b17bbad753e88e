// ParticleContacts (solver/particle_contacts.hpp): buffers and call order of the particle-particle force kernels.
#include "solver/particle_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace eddy {
namespace {

const char* const kAxisNames[3] = {"x", "y", "z"};

void require_finite_nonnegative(double value, const char* what) {
  if (!std::isfinite(value) || value < 0.0) {
    throw std::invalid_argument(std::string("particle forces: ") + what + " must be finite and >= 0 (got " +
                                std::to_string(value) + ")");
  }
}

}  // namespace

CellGrid make_cell_grid(const ContactRegion& region, double cell_size) {
  if (!(cell_size > 0.0) || !std::isfinite(cell_size)) {
    throw std::invalid_argument("particle contacts: cell size (largest diameter) must be > 0 (got " +
                                std::to_string(cell_size) + ")");
  }
  CellGrid grid{};
  for (int a = 0; a < 3; ++a) {
    const int global = region.global_size[a], offset = region.offset[a], size = region.size[a];
    if (global < 1 || size < 1) {
      throw std::invalid_argument(std::string("particle contacts: domain and region need >= 1 cell along ") +
                                  kAxisNames[a] + " (domain " + std::to_string(global) + ", region " +
                                  std::to_string(size) + ")");
    }
    const double cells = std::floor(double(global) / cell_size);
    const int global_cells = cells < 1.0 ? 1 : cells > 1e9 ? 1000000000 : int(cells);
    const double width = double(global) / global_cells;
    grid.width[a] = width;
    grid.length[a] = double(global);
    const double halo = region.halo_axes[a] ? region.halo : 0.0;
    grid.wrap[a] = region.periodic[a] && offset == 0 && size == global && !(region.halo > 0.0);
    if (grid.wrap[a]) {
      grid.first[a] = 0;
      grid.n[a] = global_cells;
    } else {
      // The same expression as the kernels' cell of a position: floor(x / width).
      const double first = std::floor((double(offset) - halo) / width);
      const double last = std::ceil((double(offset + std::int64_t(size)) + halo) / width);
      grid.first[a] = int(first);
      grid.n[a] = last - first < 1.0 ? 1 : int(last - first);
    }
  }
  if (grid.cells() > std::int64_t(std::numeric_limits<std::uint32_t>::max())) {
    throw std::invalid_argument("particle contacts: the cell list would have " + std::to_string(grid.cells()) +
                                " cells (at most 2^32 - 1): the particle diameter is too small for this region");
  }
  return grid;
}

ParticleContacts::ParticleContacts(const ParticleConfig& config, const ContactRegion& region, double max_diameter) {
  contacts_ = config.enabled && config.contacts;
  cell_list_ = contacts_ && config.contact_search == ContactSearch::cell_list;
  gravity_ = config.enabled && config.pair_force == PairForce::gravity;
  if (contacts_) {
    require_finite_nonnegative(config.contact_stiffness, "contact_stiffness");
    require_finite_nonnegative(config.contact_damping, "contact_damping");
    contact_params_ = ContactParams{config.contact_stiffness, config.contact_damping};
    const double cell_size = max_diameter > config.diameter ? max_diameter : config.diameter;
    if (!(cell_size > 0.0) || !std::isfinite(cell_size)) {
      throw std::invalid_argument("particle contacts: the diameter must be > 0 (got " + std::to_string(cell_size) +
                                  ")");
    }
    if (cell_list_) {
      // Cells at least kMinCellWidth lattice cells wide: larger than needed for small particles (wider cells only
      // add candidate pairs), and the list stays at most 1/8 of the block's cells (8 bytes each), whatever the
      // diameter; a tiny diameter would otherwise ask for more cells than memory holds.
      grid_ = make_cell_grid(region, std::max(cell_size, kMinCellWidth));
      cell_start_ = DeviceBuffer<std::uint32_t>(std::size_t(grid_.cells()));
      cell_end_ = DeviceBuffer<std::uint32_t>(std::size_t(grid_.cells()));
      clear_cell_list(grid_, view());
    } else {
      // All pairs: one cell per axis (no cell arrays); the grid only carries the periodic images (wrap, length),
      // made by the same rule as the cell list's.
      int whole = 1;
      for (int a = 0; a < 3; ++a) whole = region.global_size[a] > whole ? region.global_size[a] : whole;
      grid_ = make_cell_grid(region, double(whole));
    }
  } else {
    // One cell over the domain: without contacts only the id sort (for gravity) uses the grid, for its scratch size.
    for (int a = 0; a < 3; ++a) {
      grid_.first[a] = 0;
      grid_.n[a] = 1;
      grid_.length[a] = grid_.width[a] = double(region.global_size[a] > 0 ? region.global_size[a] : 1);
      grid_.wrap[a] = false;
    }
  }
  if (gravity_) {
    if (!std::isfinite(config.gravity_constant)) {
      throw std::invalid_argument("particle forces: gravity_constant must be finite");
    }
    require_finite_nonnegative(config.softening, "softening");
    gravity_params_ = PairGravityParams{config.gravity_constant, config.softening};
  }
}

CellListView ParticleContacts::view() const {
  return CellListView{keys_in_.data(),    keys_sorted_.data(), values_in_.data(), by_id_.data(),  order_.data(),
                      cell_start_.data(), cell_end_.data(),    scratch_.data(),   scratch_.size()};
}

void ParticleContacts::reserve(std::int64_t n, const backend::Stream* stream) {
  const bool grow = n > capacity_;
  const std::int64_t capacity = grow ? n + n / 4 : capacity_;
  const std::size_t scratch = particle_sort_scratch_bytes(grow ? capacity : n, grid_);
  if (!grow && scratch <= scratch_.size()) return;
  // Queued kernels may still read the old buffers.
  if (stream) {
    stream->synchronize();
  } else {
    backend::synchronize();
  }
  if (grow) {
    const auto count = std::size_t(capacity);
    keys_in_ = DeviceBuffer<std::uint64_t>();  // release before allocating, so peak memory stays at one set
    keys_sorted_ = DeviceBuffer<std::uint64_t>();
    values_in_ = DeviceBuffer<std::uint32_t>();
    by_id_ = DeviceBuffer<std::uint32_t>();
    order_ = DeviceBuffer<std::uint32_t>();
    capacity_ = 0;
    keys_in_ = DeviceBuffer<std::uint64_t>(count);
    keys_sorted_ = DeviceBuffer<std::uint64_t>(count);
    values_in_ = DeviceBuffer<std::uint32_t>(count);
    by_id_ = DeviceBuffer<std::uint32_t>(count);
    order_ = DeviceBuffer<std::uint32_t>(count);
    capacity_ = capacity;
  }
  if (scratch > scratch_.size()) {
    scratch_ = DeviceBuffer<unsigned char>();
    scratch_ = DeviceBuffer<unsigned char>(scratch);
  }
}

void ParticleContacts::compute_forces(const ParticleView& p, const backend::Stream* stream) {
  ContactParticles in;
  in.all = p;
  in.images.owned = p.n;
  compute_forces(in, stream);
}

void ParticleContacts::compute_forces(const ContactParticles& in, const backend::Stream* stream) {
  const ParticleView& p = in.all;
  ParticleView own = p;  // the targets
  own.n = std::min(in.images.owned, p.n);
  if (!contacts_ && !gravity_) {
    clear_particle_forces(own, stream);
    return;
  }
  if (own.n <= 0) return;
  const bool ghosts = p.n > own.n;
  const ParticleView& sources = in.gravity_sources.n > 0 ? in.gravity_sources : own;
  const std::int64_t largest = std::max(p.n, gravity_ ? sources.n : 0);
  if (largest > std::int64_t(std::numeric_limits<std::int32_t>::max())) {
    throw std::length_error("particle forces: " + std::to_string(largest) +
                            " particles on one rank, ghost copies and gravity sources included (at most 2^31 - 1)");
  }
  if (cell_list_) {
    // Empty the cells of the last build while its keys are still in keys_sorted_ (the id sort overwrites them).
    if (cells_dirty_) {
      clear_cell_list(grid_, view(), stream);
    } else if (listed_ > 0) {
      reset_cell_list(grid_, view(), listed_, stream);
    }
    cells_dirty_ = false;
    listed_ = 0;
  }
  reserve(largest, stream);
  if (gravity_ && sources.n > source_capacity_) {
    if (stream) {
      stream->synchronize();
    } else {
      backend::synchronize();
    }
    source_by_id_ = DeviceBuffer<std::uint32_t>();
    source_capacity_ = 0;
    source_by_id_ = DeviceBuffer<std::uint32_t>(std::size_t(sources.n + sources.n / 4));
    source_capacity_ = sources.n + sources.n / 4;
  }
  const CellListView list = view();
  try {
    // The sources of gravity first: every sort overwrites keys_sorted, which must end with the cell list's keys.
    if (gravity_) {
      CellListView by_source = list;
      by_source.by_id = source_by_id_.data();
      sort_particles_by_id(sources, by_source, stream);
    }
    if (contacts_) {
      if (ghosts) {
        sort_particles_by_image(p, in.images, list, list.by_id, stream);
      } else {
        sort_particles_by_id(p, list, stream);
      }
      if (cell_list_) {
        listed_ = p.n;
        build_cell_list(p, grid_, list, stream);
        contact_forces(p, own.n, grid_, list, contact_params_, false, stream);
      } else {
        contact_forces_all_pairs(p, own.n, list.by_id, grid_, contact_params_, false, stream);
      }
    }
    if (gravity_) pair_gravity_forces(own, sources, source_by_id_.data(), gravity_params_, contacts_, stream);
  } catch (...) {
    cells_dirty_ = cell_list_;
    listed_ = 0;
    throw;
  }
}

}  // namespace eddy
