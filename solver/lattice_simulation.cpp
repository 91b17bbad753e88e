// LatticeSimulation<T>: the in-core Simulation of one block on this build's backend, T = storage precision
// (solver/lattice_simulation.hpp).
//
// One population array, updated in place by the AA pattern (kernels/streaming.hpp): even steps are local, odd
// steps read and write the neighbours, ghost layer included. The halo exchange fills the ghosts before an odd step
// (into_ghosts) and delivers what the odd step wrote into them afterwards (out_of_ghosts); each is done lazily,
// just before the next step or read-out needs it. With overlap on, a step first updates the inner cells (which touch
// no ghost and no boundary slot the exchange moves) on the compute stream while the pending exchange runs on the
// communication stream, then the boundary shell once it is done.
//
// Two sparse passes complete each step, due before the next step or read-out like the exchange (settle, the one
// place that orders them; the overlapped advance runs the same order of the same operations on every slot):
//   1. the early interpolated walls ([[solid]] wall = "interpolated", kernels/interpolated_walls.hpp): the cut links
//      whose second node x_b is an interior cell and whose x_f lies kOpenPassReach layers or more from every open
//      face; they read and write no slot the exchange or the open-face pass touches;
//   2. the pending halo exchange;
//   3. the open-face pass (kernels/open_boundaries.hpp): it reads neighbours along the face that the exchange
//      delivers, and post-collision populations of the first two layers next to the face, among them those that sit
//      in cut links' wall slots (x + c_k inside a body), which step 4 overwrites with the wall's answer;
//   4. the late interpolated walls: links whose x_b is a ghost cell (they read what the exchange delivered, or, at
//      an open face's ghost node, the population that the open-face pass just set: f*_i(x_b) of a near link is what
//      the face sends into x_f along c_i), and links whose x_f is next to an open face (their wall slot was read by
//      step 3). Their x_f lie in the shell (the boundary layer, or kOpenFaceShell layers next to an open face).
// So the open faces go before the walls that touch them: each reads what it needs before the other writes it, and
// the two never write the same slot (docs/boundaries.md, "The order of the passes within a step"). With overlap,
// step 1 runs before the inner cells' update, steps 2-4 before the shell's.
#include "solver/lattice_simulation.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <new>
#include <string>

#include "kernels/d3q19.hpp"
#include "kernels/field_launchers.hpp"
#include "kernels/interpolated_walls.hpp"
#include "kernels/launchers.hpp"
#include "kernels/open_boundaries.hpp"
#include "kernels/probe_samples.hpp"
#include "kernels/solid_forces.hpp"
#include "kernels/statistics_launchers.hpp"
#include "kernels/storage.hpp"
#include "kernels/streaming.hpp"
#include "solver/checkpointing.hpp"
#include "solver/derived_fields.hpp"
#include "solver/device_buffer.hpp"
#include "solver/field_halo.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/halo_exchange.hpp"
#include "solver/host_memory.hpp"
#include "solver/host_state.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/outer_layer.hpp"
#include "solver/precision.hpp"

namespace eddy {

namespace {

/// Cells per slab of LatticeSimulation::for_each_moment_slab (16 B or 32 B each): 16 Mi cells, 256 MiB in float.
constexpr std::int64_t kMomentSlabCells = std::int64_t(1) << 24;

/// Bytes of one output value (rho or a velocity component): the arithmetic type.
double output_value_bytes(const CaseConfig& config) { return double(arithmetic_bytes(config.precision)); }

/// Device bytes of the particles of a block of `decomposition`: the seeded count in proportion to the block, twice
/// over for clustering (at most the count).
double particle_bytes_needed(const CaseConfig& config, const Decomposition& decomposition) {
  const BlockShape shape = block_shape(decomposition);
  const double share = double(shape.interior_cells()) / (double(config.size[0]) * config.size[1] * config.size[2]);
  const double particles = std::min(double(config.particles.count), 2.0 * share * double(config.particles.count));
  return particle_device_bytes(config, decomposition, std::int64_t(particles));
}

/// Device bytes a block of `decomposition` takes: populations and flags of every cell (ghosts included), the
/// output slab of 4 fields for at most kMomentSlabCells cells, the particles, the thermal fields and the statistics'
/// sums (4, 10 or 11 doubles per cell).
double device_bytes_needed(const CaseConfig& config, const Decomposition& decomposition) {
  const BlockShape shape = block_shape(decomposition);
  const double stored_bytes = double(storage_bytes(config.precision));
  const double slab_cells = std::min(double(shape.interior_cells()), double(kMomentSlabCells));
  // Derived output fields (vorticity, Q, |S|): the velocity of every cell and at most 3 output components at once,
  // and the velocity's outer layer (solver/outer_layer.hpp: 3 values of a plane for each of the 6 faces and the 2
  // messages).
  const bool derived = std::any_of(config.output_fields.begin(), config.output_fields.end(), is_derived_field);
  const double largest_plane = double(std::max({plane_cells(shape, 0), plane_cells(shape, 1), plane_cells(shape, 2)}));
  const double derived_bytes =
      derived ? (double(shape.n_cells()) * 6.0 + 24.0 * largest_plane) * output_value_bytes(config) : 0.0;
  return double(shape.n_cells()) * (d3q19::Q * stored_bytes + sizeof(CellFlag)) +
         slab_cells * 4.0 * output_value_bytes(config) + particle_bytes_needed(config, decomposition) + derived_bytes +
         double(thermal_device_bytes(config, shape.n_cells())) +
         double(shape.n_cells()) * double(statistics_components(config)) * double(sizeof(double));
}

/// Host bytes of the read-outs: the flags built at set-up, the downloaded fields (4 per interior cell) and one
/// downloaded slab.
double host_readout_bytes(const CaseConfig& config, const Decomposition& decomposition) {
  const BlockShape shape = block_shape(decomposition);
  const double slab_cells = std::min(double(shape.interior_cells()), double(kMomentSlabCells));
  return double(shape.n_cells()) * sizeof(CellFlag) +
         (double(shape.interior_cells()) + slab_cells) * 4.0 * output_value_bytes(config);
}

/// Layers of the block next to an open face that the overlapped step keeps out of the inner box: the open-face
/// pass, which waits for the exchange, reads the face cells and the next layer inwards (kOpenPassReach), and so do
/// the late interpolated links after it (x_f in those layers, x_b one further in); the inner update must not write
/// them before (an odd step writes one layer beyond its cells).
constexpr int kOpenFaceShell = kOpenPassReach + 1;

/// Splits the interior into the inner box (cells that read no ghost of an exchanged axis, and lie kOpenFaceShell
/// layers or more from an open face) and the shell slabs around it, peeled axis by axis so that no cell is in two
/// boxes.
void split_interior(const BlockShape& shape, const Decomposition& d, const CaseConfig& config, Box& inner,
                    std::vector<Box>& shell) {
  Box remaining = shape.interior();
  for (int axis = 0; axis < 3; ++axis) {
    const bool open_low = is_open_face(config.faces[2 * axis].kind) && d.offset[axis] == 0;
    const bool open_high =
        is_open_face(config.faces[2 * axis + 1].kind) && d.offset[axis] + d.local_size[axis] == d.global_size[axis];
    if ((!d.exchanges(axis) && !open_low && !open_high) || remaining.empty()) continue;
    const int depth_low = open_low ? kOpenFaceShell : (d.exchanges(axis) ? 1 : 0);
    const int depth_high = open_high ? kOpenFaceShell : (d.exchanges(axis) ? 1 : 0);
    Box low = remaining, high = remaining;
    low.hi[axis] = std::min(remaining.lo[axis] + depth_low, remaining.hi[axis]);
    high.lo[axis] = std::max(remaining.hi[axis] - depth_high, low.hi[axis]);
    if (!low.empty()) shell.push_back(low);
    if (!high.empty()) shell.push_back(high);
    remaining.lo[axis] = low.hi[axis];
    remaining.hi[axis] = high.lo[axis];
  }
  inner = remaining;
}

template <class T>
class LatticeSimulation final : public Simulation {
  using R = compute_t<T>;  // arithmetic, relaxation, wall velocities and output fields

 public:
  LatticeSimulation(const CaseConfig& config, const Decomposition& decomposition)
      : Simulation(config),
        decomposition_(decomposition),
        shape_(block_shape(decomposition)),
        relax_(relaxation<R>(config)),
        les_(smagorinsky<R>(config)),
        sponge_(sponge_layers<R>(config, decomposition)),
        walls_(wall_velocities<R>(config)),
        halo_(decomposition, shape_, config.parallel.transport),
        overlap_(config.parallel.overlap) {
    std::vector<CellFlag> flags;
    CutLinkList links;
    {  // before the populations: voxelising a mesh takes device memory of its own, freed here
      const BlockSolids solids(config, decomposition);
      flags = build_flags(config, decomposition, solids);
      links = cut_links(config, decomposition, flags, solids);
      solid_summary_ = solids.summary();
      set_up_solid_labels(solids, 0);
    }
    const std::size_t populations = std::size_t(d3q19::Q) * std::size_t(shape_.n_cells());
    f_ = DeviceBuffer<T>(populations);
    flags_ = DeviceBuffer<CellFlag>(std::size_t(shape_.n_cells()));
    flags_.upload(flags);
    set_up_cut_links(config, std::move(links));
    const InitialField init = initial_field(config, decomposition);
    initialize_populations(view(), shape_, init);  // the "own" layout
    reset_watch();
    split_interior(shape_, decomposition_, config, inner_, shell_);
    if (config.particles.enabled) {
      try {
        particles_ = std::make_unique<ParticleSystem<T>>(config, decomposition, shape_);
      } catch (const std::bad_alloc&) {  // the host's seeding and staging arrays (an address-space limit, say)
        throw OutOfMemoryError("out of host memory while setting up " + std::to_string(config.particles.count) +
                               " particles; use fewer particles (particles.count) or more ranks");
      }
    }
    if (config.thermal.enabled) thermal_ = std::make_unique<ThermalField<R>>(config, decomposition, shape_, flags);
    if (config.statistics.enabled) {
      statistics_ = std::make_unique<FlowStatistics>(config.statistics, shape_, flags, config.thermal.enabled);
    }
    if (has_open_faces(config)) {
      open_ = std::make_unique<OpenFaces<T>>(config, decomposition, flags);
      open_->restore(view(), layout_, &compute_);  // the initial f_i of the links: the convective history
    }
    attach(particles_.get(), thermal_.get(), statistics_.get());
    backend::synchronize();
  }

  void advance(std::int64_t steps) override {
    for (std::int64_t s = 0; s < steps; ++s) {
      const RoundingKey key{static_cast<std::uint32_t>(step_),
                            {decomposition_.offset[0], decomposition_.offset[1], decomposition_.offset[2]}};
      // A sampled step: the fused kernel adds the moments it collides (the state at time step_) to the sums.
      const bool sample = statistics_ && statistics_->samples_at(step_);
      step_statistics_ = sample ? statistics_->view() : StatisticsView{};
      if (overlap_ && halo_pending_) {
        interior_wall_pass();
        step_done_.record(compute_);  // the previous step's writes are complete before the exchange reads them
        step_done_.wait(comm_);
        update(inner_, key);
        halo_.exchange(view(), FlagView{flags_.data()}, pending_direction(), comm_);
        halo_done_.record(comm_);
        halo_done_.wait(compute_);
        complete_open();       // the inner update left the cells it reads alone (kOpenFaceShell)
        boundary_wall_pass();  // after the open faces: the late links read what that pass wrote (see above)
        for (const Box& box : shell_) update(box, key);
      } else {
        settle();
        update(shape_.interior(), key);
      }
      if (spare_) {  // advance_into: the step wrote into the spare array, which becomes the simulation's
        f_.swap_memory(*spare_);
        spare_ = nullptr;
      }
      if (sample) {
        // T at the same time (the scalar step below advances it), then the count.
        if (statistics_->temperature()) {
          accumulate_cell_field<R>(thermal_->current_field(), FlagView{flags_.data()}, shape_,
                                   statistics_->temperature_sums(), &compute_);
        }
        statistics_->count(step_);
        step_statistics_ = StatisticsView{};
      }
      layout_ = after_step(layout_);
      halo_pending_ = halo_.active();
      ++step_;
      if (open_) open_pending_ = OpenPending::apply;  // after the exchange, before the next step or read-out
      wall_pass_pending_ = n_interpolated_ > 0;       // the step's interpolated walls (settle)
      saved_valid_ = false;
      if (thermal_) thermal_->step(FlagView{flags_.data()}, &compute_);  // reads no population
      if (particles_) {
        settle();
        const ForceFieldView<R> user = user_force();
        particles_->step(view(), layout_, FlagView{flags_.data()}, relax_, walls_, &compute_,
                         user.present() ? &user : nullptr);
      }
    }
  }

  void synchronize() override { backend::synchronize(); }
  std::int64_t time_step() const override { return step_; }

  std::int64_t unstable_step() override {
    if (unstable_step_ < 0) {
      watch_copied_.synchronize();  // the copy asked for by the previous call (queued behind the steps before it)
      const std::uint32_t seen = *watch_seen_.data();
      if (seen == StabilityView<R>::kNoInstability) {
        backend::copy_to_host_async(watch_seen_.data(), watch_.data(), sizeof(std::uint32_t), compute_);
        watch_copied_.record(compute_);
        return -1;
      }
      unstable_step_ = std::int64_t(seen);
    }
    const std::int64_t frozen_at = unstable_step_ + 1;
    if (freezes() && step_ != frozen_at) {
      // The steps after the unstable one left the populations alone (StabilityView::frozen) but turned the host's
      // layout over: undo that, and go back to the time right after the unstable step.
      backend::synchronize();
      if ((step_ - frozen_at) % 2 != 0) layout_ = after_step(layout_);
      step_ = frozen_at;
      // The unstable step's own open-face and wall passes ran before the next step; the later ones left the state
      // alone.
      open_pending_ = OpenPending::none;
      wall_pass_pending_ = false;
    }
    return unstable_step_;
  }
  const Decomposition& decomposition() const override { return decomposition_; }

  /// Computes rho, ux, uy, uz of the current time on the device a slab of z-planes at a time (at most
  /// kMomentSlabCells cells, so the device buffer stays small). Collective on several ranks: the pending exchange
  /// is done first.
  void for_each_moment_slab(const std::function<void(const MomentSlab&)>& fn) override {
    settle();
    const std::int64_t plane = std::int64_t(shape_.n[0]) * shape_.n[1];
    const int slab_planes =
        int(std::max<std::int64_t>(1, std::min<std::int64_t>(shape_.n[2], kMomentSlabCells / plane)));
    const std::size_t slab = std::size_t(plane) * std::size_t(slab_planes);
    if (moments_.size() < 4 * slab) {
      moments_ = DeviceBuffer<R>(4 * slab);
      moments_host_ = PinnedBuffer<R>(4 * slab);  // kept: no allocation and faster copies at the next read-outs
    }
    R* base = moments_.data();
    const MomentView<R> out{base, {base + slab, base + 2 * slab, base + 3 * slab}};
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    for (int z = 1; z <= shape_.n[2]; z += slab_planes) {
      const int z_end = std::min(z + slab_planes, shape_.n[2] + 1);
      compute_moments(view(), layout_, FlagView{flags_.data()}, shape_, force, walls_, out, z, z_end, &compute_,
                      force_field());
      backend::synchronize();
      backend::copy_to_host(moments_host_.data(), base, 4 * slab * sizeof(R));
      fn(MomentSlab{moments_host_.data(), std::int64_t(slab), plane * (z - 1), plane * (z_end - z)});
    }
  }

  /// One slab, the whole block: the velocity of every block cell is computed, its ghost planes exchanged
  /// (collective), with scratch fields for the stencils.
  void for_each_velocity_slab(const std::function<void(const VelocitySlab&)>& fn) override {
    settle();
    const std::size_t cells = std::size_t(shape_.n_cells());
    DeviceBuffer<R> u[3] = {DeviceBuffer<R>(cells), DeviceBuffer<R>(cells), DeviceBuffer<R>(cells)};
    R* const u_ptr[3] = {u[0].data(), u[1].data(), u[2].data()};
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    compute_velocity_field(view(), layout_, FlagView{flags_.data()}, shape_, force, force_field(), walls_, u_ptr,
                           &compute_);
    FieldHalo<R> halo(decomposition_, shape_);
    for (R* component : u_ptr) halo.fill_ghosts(component, &compute_);
    OuterLayer<R> outer(decomposition_, shape_);
    outer.fill(u_ptr, FlagView{flags_.data()}, &compute_);
    DeviceBuffer<R> w[3] = {DeviceBuffer<R>(cells), DeviceBuffer<R>(cells), DeviceBuffer<R>(cells)};
    VelocitySlab slab;
    for (int a = 0; a < 3; ++a) {
      slab.u[a] = u_ptr[a];
      slab.scratch[a] = w[a].data();
    }
    const OuterLayerView<R> faces = outer.view();
    for (int face = 0; face < 6; ++face) slab.outer[face] = faces.face[face];
    slab.flags = FlagView{flags_.data()};
    slab.shape = shape_;
    slab.lo = 1;
    slab.hi = shape_.n[2] + 1;
    slab.first_plane = 1;
    slab.stream = &compute_;
    fn(slab);
  }

  std::vector<double> populations() override {
    settle();
    std::vector<T> all = f_.download();
    if (saved_valid_ && n_interpolated_ > 0) {
      // The wall slots of interpolated links hold the arriving populations: put back the f*_i(x_f) they replaced.
      const std::vector<T> saved = saved_.download();
      for (std::int64_t k = 0; k < n_interpolated_; ++k) {
        all[std::size_t(wall_slot(host_links_[std::size_t(k)], shape_.n_cells()))] = saved[std::size_t(k)];
      }
    }
    const std::vector<CellFlag> flags = flags_.download();
    return interior_populations(all.data(), flags.data(), shape_, layout_, walls_);
  }

  void set_populations(const std::vector<double>& f) override {
    complete_halo();
    std::vector<T> all = f_.download();
    set_interior_populations(all.data(), shape_, f);
    f_.upload(all);
    layout_ = PopulationLayout::swapped;  // post-collision populations, not yet streamed
    halo_pending_ = halo_.active();
    if (open_) {
      open_->forget_history();
      open_pending_ = OpenPending::apply_from_populations;
    }
    wall_pass_pending_ = n_interpolated_ > 0;  // the interpolated walls of the streaming to come
    saved_valid_ = false;
    reset_watch();
  }

  RawState raw_populations() override {
    settle();  // the state after the step's wall pass: all the next step needs, on any decomposition
    RawState state;
    state.step = step_;
    state.layout = int(layout_);
    backend::synchronize();
    if (open_ && layout_ == PopulationLayout::swapped) {  // the open faces' link values come from the whole array
      const std::vector<T> all = f_.download();
      state.populations = packed_interior_bytes(all.data(), shape_);
      open_->pack_link_values(all.data(), shape_, reinterpret_cast<T*>(state.populations.data()));
    } else {
      state.populations = download_interior_bytes(f_.data(), shape_, take_recycled_populations());
    }
    return state;
  }

  void restore_populations(const RawState& state) override {
    backend::synchronize();
    upload_interior_bytes(state.populations, shape_, f_.data());
    layout_ = PopulationLayout(state.layout);
    step_ = state.step;
    // The interior slots hold the whole state: before an odd step ("swapped") the ghosts are filled from the
    // neighbours' interiors; after one ("own") nothing is owed, the scattered values having been delivered before
    // the state was taken.
    halo_pending_ = layout_ == PopulationLayout::swapped && halo_.active();
    // The open faces' values are in slot i of their face cells (raw_populations): back where the next step reads
    // them, after the exchange (which may write the ghost nodes of the rank boundaries' edges).
    if (open_) open_pending_ = OpenPending::restore;
    wall_pass_pending_ = false;  // the state was taken after the wall pass
    saved_valid_ = false;        // the replaced values are not in it: forces count its links half-way until a step
    reset_watch();
  }

  DeviceArray population_array() override {
    settle();
    // An odd step next ("swapped") reads ghosts filled from the interior: fill them again from what the caller
    // writes. After an odd step ("own") the ghosts' contents have been delivered and the even step reads none.
    if (layout_ == PopulationLayout::swapped) halo_pending_ = halo_.active();
    return block_interior_array(f_.data(), shape_, 'f', int(sizeof(T)), true, d3q19::Q, shape_.n_cells());
  }

  PopulationStorage population_storage() override {
    settle();
    backend::synchronize();
    return PopulationStorage{f_.data(), f_.bytes(), int(layout_), step_};
  }

  void population_storage_restored(int layout, std::int64_t step) override {
    backend::synchronize();
    took_state(layout, step);
    reset_watch();
  }

  void advance_into(DeviceBuffer<unsigned char>& spare) override {
    if (particles_ || n_interpolated_ > 0) {
      throw std::logic_error("advance_into: not for particles or interpolated walls");
    }
    if (spare.bytes() != f_.bytes()) throw std::logic_error("advance_into: a spare array of another size");
    // The open faces' ghost slots the step does not write keep what they hold now, as in place (a later exchange
    // may carry them to where a step reads them: kernels/population_copy.cpp).
    settle();
    bool open_faces[6];
    for (int face = 0; face < 6; ++face) open_faces[face] = is_open_face(config().faces[std::size_t(face)].kind);
    copy_open_ghost_populations(PopulationView<T>{reinterpret_cast<T*>(spare.data()), shape_.n_cells()}, view(),
                                FlagView{flags_.data()}, shape_, open_faces, &compute_);
    spare_ = &spare;
    try {
      advance(1);
    } catch (...) {
      spare_ = nullptr;
      throw;
    }
  }

  void exchange_population_storage(DeviceBuffer<unsigned char>& state, int layout, std::int64_t step) override {
    backend::synchronize();
    f_.swap_memory(state);
    took_state(layout, step);  // the stability watch stays: the states exchanged are those of this run
  }

  std::string population_layout() const override { return layout_ == PopulationLayout::own ? "own" : "swapped"; }

  DeviceArray flag_array() override {
    return block_interior_array(flags_.data(), shape_, 'u', int(sizeof(CellFlag)), false);
  }

  DeviceArray temperature_array() override {
    if (!thermal_) throw std::logic_error("temperature: the case has no [thermal] section");
    return block_interior_array(thermal_->current_field(), shape_, 'f', int(sizeof(R)), true);
  }

  DeviceArray force_array() override {
    if (particles_ && config_.particles.two_way) {
      throw std::logic_error(
          "force: not available with particles.two_way = true (the particles' deposit is the per-cell force of the "
          "fused kernel); set particles.two_way = false or use [physics] body_force");
    }
    if (user_force_.size() == 0) {
      user_force_ = DeviceBuffer<R>(3 * std::size_t(shape_.n_cells()));
      user_force_.upload(std::vector<R>(user_force_.size(), R(0)));
    }
    return block_interior_array(user_force_.data(), shape_, 'f', int(sizeof(R)), true, 3, shape_.n_cells(), true);
  }

  void statistics_to_device(const std::string& name, double* out) override {
    if (!statistics_) throw std::logic_error("statistics: the case has no [statistics] section");
    const StatisticsQuantity quantity =
        statistics_quantity(name, statistics_->second_moments(), statistics_->temperature());
    statistics_readout(statistics_->view().sums, FlagView{flags_.data()}, shape_, quantity, statistics_->samples(),
                       statistics_->temperature_component(), StatisticsUnits{}, out, &compute_);
  }

  void moments_to_device(void* out) override {
    settle();
    const std::int64_t n = shape_.interior_cells();
    R* base = static_cast<R*>(out);
    const MomentView<R> view_out{base, {base + n, base + 2 * n, base + 3 * n}};
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    compute_moments(view(), layout_, FlagView{flags_.data()}, shape_, force, walls_, view_out, 1, shape_.n[2] + 1,
                    &compute_, force_field());
  }

  std::vector<double> probe_values(const std::vector<std::int64_t>& cells) override {
    settle();  // on every rank: the pending halo exchange is collective
    if (cells.empty()) return {};
    if (cells != probe_host_cells_) {
      std::vector<std::int64_t> block(cells.size());
      const std::int64_t nx = shape_.n[0], ny = shape_.n[1];
      for (std::size_t j = 0; j < cells.size(); ++j) {
        const std::int64_t k = cells[j];
        block[j] = shape_.index(int(k % nx) + 1, int(k / nx % ny) + 1, int(k / (nx * ny)) + 1);
      }
      probe_cells_ = DeviceBuffer<std::int64_t>(block.size());
      probe_cells_.upload(block);
      probe_out_ = DeviceBuffer<R>(block.size() * kProbeValues);
      probe_host_cells_ = cells;
    }
    const R force[3] = {relax_.force[0], relax_.force[1], relax_.force[2]};
    sample_probe_cells(view(), layout_, FlagView{flags_.data()}, shape_, force, walls_, force_field(),
                       thermal_ ? static_cast<const R*>(thermal_->current_field()) : nullptr, probe_cells_.data(),
                       int(cells.size()), probe_out_.data(), &compute_);
    const std::vector<R> values = probe_out_.download();
    return std::vector<double>(values.begin(), values.end());
  }

  void particles_to_device(double* out) override {
    if (!particles_) throw std::logic_error("particles: the case has no [particles] section");
    particles_->copy_state_to_device(out, compute_);
  }

  std::int64_t local_particle_count() const override { return particles_ ? particles_->local_count() : 0; }

  void* stream_handle() const override { return compute_.handle(); }

  std::vector<unsigned long long> local_solid_force_sums() override {
    settle();  // on every rank: the pending halo exchange is collective
    std::vector<unsigned long long> zero(std::size_t(n_solids_) * kForceSums, 0ull);
    if (n_links_ == 0) return zero;
    force_sums_.upload(zero);
    sum_cut_link_forces(view(), links_.data(), n_links_, saved_.data(), saved_valid_ ? n_interpolated_ : 0,
                        force_sums_.data(), &compute_);
    return force_sums_.download();
  }

  DeviceArray porosity_array() override {
    if (particles_) {
      throw std::logic_error(
          "porosity: not available with [particles] (their coupling reads the fluid's force "
          "without the Brinkman drag)");
    }
    if (porosity_.size() == 0) {
      porosity_ = DeviceBuffer<R>(std::size_t(shape_.n_cells()));
      porosity_.upload(std::vector<R>(porosity_.size(), R(0)));
    }
    return block_interior_array(porosity_.data(), shape_, 'f', int(sizeof(R)), true);
  }
  bool has_porosity() const override { return porosity_.size() != 0; }

  std::pair<const CutLink*, std::int64_t> device_cut_links() override {
    return {n_links_ > 0 ? links_.data() : nullptr, n_links_};
  }

  std::size_t bytes_per_cell() const override {
    return d3q19::Q * sizeof(T) + sizeof(CellFlag) + (thermal_ ? 5 * sizeof(R) : 0) +
           std::size_t(statistics_components(config_)) * sizeof(double);
  }
  std::size_t device_bytes() const override { return std::size_t(device_bytes_needed(config_, decomposition_)); }

 private:
  /// The block's cut links of the [[solid]] bodies, uploaded once (kernels/cut_links.hpp, interpolated ones
  /// first); none without solids. The host keeps the interpolated ones (populations()).
  void set_up_cut_links(const CaseConfig& config, CutLinkList list) {
    n_solids_ = int(config.solids.size());
    n_links_ = std::int64_t(list.links.size());
    n_early_interpolated_ = list.early_interpolated;
    n_interpolated_ = list.interpolated;
    if (n_links_ == 0) return;
    links_ = DeviceBuffer<CutLink>(list.links.size());
    links_.upload(list.links);
    force_sums_ = DeviceBuffer<unsigned long long>(std::size_t(n_solids_) * kForceSums);
    if (n_interpolated_ == 0) return;
    saved_ = DeviceBuffer<T>(std::size_t(n_interpolated_));
    list.links.resize(std::size_t(n_interpolated_));
    host_links_ = std::move(list.links);
  }

  /// The pending wall pass over interpolated links [begin, end) (kernels/interpolated_walls.hpp), for the step
  /// just taken (index step_ - 1).
  void wall_pass(std::int64_t begin, std::int64_t end) {
    const RoundingKey key{static_cast<std::uint32_t>(step_ - 1),
                          {decomposition_.offset[0], decomposition_.offset[1], decomposition_.offset[2]}};
    const StabilityView<R> stability{watch_.data(), R(kMaxLatticeSpeed * kMaxLatticeSpeed), freezes()};
    apply_interpolated_walls(view(), layout_, links_.data(), begin, end, saved_.data(), key, stability, &compute_);
  }
  /// The early links (x_b interior, x_f away from open faces): they may run before the exchange and the open faces.
  void interior_wall_pass() {
    if (wall_pass_pending_) wall_pass(0, n_early_interpolated_);
  }
  /// The late links (x_b a ghost cell, or x_f next to an open face), after the exchange and the open-face pass;
  /// completes the pass.
  void boundary_wall_pass() {
    if (!wall_pass_pending_) return;
    wall_pass(n_early_interpolated_, n_interpolated_);
    wall_pass_pending_ = false;
    saved_valid_ = true;
  }

  /// Completes the step just taken, in the order of the file's head: the early interpolated links, the pending
  /// halo exchange and the open-face pass (complete_halo), the late interpolated links. What every read-out and the
  /// next step need first.
  void settle() {
    interior_wall_pass();
    complete_halo();       // the exchange, then the open faces (which read wall slots the late links overwrite)
    boundary_wall_pass();  // after the open faces: near links through an open face read what that pass set
  }

  void update(const Box& box, const RoundingKey& key) {
    const StabilityView<R> stability{watch_.data(), R(kMaxLatticeSpeed * kMaxLatticeSpeed), freezes()};
    stream_collide(view(), layout_, FlagView{flags_.data()}, shape_, box, relax_, walls_, key, &compute_, false,
                   force_field(), thermal_ ? thermal_->velocity_out() : VelocityOutView<R>{}, stability,
                   open_ ? open_->step_moments() : OutletMomentsView<R>{}, les_, sponge_, statistics_view(),
                   spare_ ? reinterpret_cast<T*>(spare_->data()) : nullptr);
  }

  /// Where this step's fused kernel adds its moments to the turbulence statistics: the sums on a sampled step
  /// (advance), null otherwise.
  StatisticsView statistics_view() const { return step_statistics_; }

  /// The array holds a state population_storage() gave, taken after the exchange, ghosts included: nothing is owed
  /// to or from the neighbours, or by the open faces and the walls.
  void took_state(int layout, std::int64_t step) {
    layout_ = PopulationLayout(layout);
    step_ = step;
    halo_pending_ = false;
    if (open_) open_pending_ = OpenPending::none;
    wall_pass_pending_ = false;
    saved_valid_ = false;
  }

  /// A fresh stability watch, for a new state.
  void reset_watch() {
    watch_.upload({StabilityView<R>::kNoInstability});
    *watch_seen_.data() = StabilityView<R>::kNoInstability;
    unstable_step_ = -1;
  }

  /// The fused kernel freezes the state at the first unstable step on one rank only: on several, the other
  /// blocks would run on and the ranks' times would disagree.
  bool freezes() const { return decomposition_.size == 1; }

  PopulationView<T> view() { return PopulationView<T>{f_.data(), shape_.n_cells()}; }
  /// The per-cell force of force_array() (absent until it is asked for).
  ForceFieldView<R> user_force() const {
    ForceFieldView<R> user;
    if (user_force_.size() == 0) return user;
    for (int a = 0; a < 3; ++a) user.f[a] = user_force_.data() + std::int64_t(a) * shape_.n_cells();
    return user;
  }
  /// Per-cell force of two-way coupled particles or of force_array() (never both), of the buoyant temperature and
  /// the Brinkman drag of porosity_array() (absent otherwise).
  ForceFieldView<R> force_field() const {
    ForceFieldView<R> cells = user_force_.size() != 0 ? user_force()
                              : particles_            ? particles_->force_field()
                                                      : ForceFieldView<R>{};
    if (porosity_.size() != 0) cells.porosity = porosity_.data();
    return thermal_ ? thermal_->with_buoyancy(cells) : cells;
  }

  /// The exchange the next step or read-out needs: into the ghosts before an odd step ("swapped" layout), out of
  /// them after one ("own").
  HaloDirection pending_direction() const {
    return layout_ == PopulationLayout::swapped ? HaloDirection::into_ghosts : HaloDirection::out_of_ghosts;
  }

  /// Runs the pending exchange, if any, on the compute stream (collective on several ranks), then the pending
  /// open-face pass.
  void complete_halo() {
    if (halo_pending_) {
      halo_.exchange(view(), FlagView{flags_.data()}, pending_direction(), compute_);
      halo_pending_ = false;
    }
    complete_open();
  }

  /// The open-face pass owed by the last step (or the copy owed by a restored state), on the compute stream: after
  /// the exchange, before the next step or read-out (kernels/open_boundaries.hpp).
  void complete_open() {
    const OpenPending pending = open_pending_;
    open_pending_ = OpenPending::none;
    if (pending == OpenPending::apply || pending == OpenPending::apply_from_populations) {
      const StabilityView<R> stability{watch_.data(), R(kMaxLatticeSpeed * kMaxLatticeSpeed), freezes()};
      const std::array<int, 3> origin = {decomposition_.offset[0], decomposition_.offset[1], decomposition_.offset[2]};
      open_->apply(view(), layout_, FlagView{flags_.data()}, shape_, walls_, relax_.force, force_field(), origin, step_,
                   stability, pending == OpenPending::apply, &compute_);
    } else if (pending == OpenPending::restore) {
      open_->restore(view(), layout_, &compute_);
    }
  }

  Decomposition decomposition_;
  BlockShape shape_;
  Relaxation<R> relax_;
  Smagorinsky<R> les_;
  SpongeLayers<R> sponge_;  // none without open faces' sponge layers
  WallVelocities<R> walls_;
  backend::Stream compute_, comm_;
  backend::Event step_done_, halo_done_;
  HaloExchange<T> halo_;
  bool overlap_;
  Box inner_{};
  std::vector<Box> shell_;
  DeviceBuffer<T> f_;
  DeviceBuffer<unsigned char>* spare_ = nullptr;  // advance_into's array, which the step in progress writes
  DeviceBuffer<CellFlag> flags_;
  DeviceBuffer<R> moments_;
  PinnedBuffer<R> moments_host_;  // the host copy of moments_ (page-locked)
  DeviceBuffer<std::int64_t> probe_cells_;       // probe_values(): the listed cells (block indices)
  DeviceBuffer<R> probe_out_;                    // and their kProbeValues values each
  std::vector<std::int64_t> probe_host_cells_;   // the list as given (local interior indices)
  DeviceBuffer<R> user_force_;                   // force_array(): 3 components of n_cells values; empty until asked for
  DeviceBuffer<R> porosity_;                     // alpha per block cell (porosity_array; empty until asked for)
  DeviceBuffer<CutLink> links_;                  // cut links of the [[solid]] bodies (set_up_cut_links)
  DeviceBuffer<unsigned long long> force_sums_;  // their fixed-point sums, kForceSums per solid
  DeviceBuffer<T> saved_;                        // the wall slots the last wall pass replaced, per interpolated link
  std::vector<CutLink> host_links_;              // the interpolated links [0, n_interpolated_)
  std::int64_t n_links_ = 0;
  std::int64_t n_early_interpolated_ = 0;  // the early interpolated links (settle): [0, this)
  std::int64_t n_interpolated_ = 0;        // all interpolated links: [0, this)
  bool wall_pass_pending_ = false;         // the step just taken still owes its interpolated walls (settle)
  bool saved_valid_ = false;               // saved_ holds the values the last step's wall pass replaced
  int n_solids_ = 0;
  std::unique_ptr<ParticleSystem<T>> particles_;
  std::unique_ptr<ThermalField<R>> thermal_;
  std::unique_ptr<OpenFaces<T>> open_;  // the open faces' links and pass (none without open faces)
  std::unique_ptr<FlowStatistics> statistics_;  // [statistics]' running sums (none without the section)
  StatisticsView step_statistics_{};            // the sums while a sampled step is updated, null otherwise
  /// What the open faces owe: nothing, the pass after a step (whose fused kernel wrote the outlet moments), the pass
  /// after set_populations (no step: the pass computes them), the copy of a restored state.
  enum class OpenPending { none, apply, apply_from_populations, restore };
  OpenPending open_pending_ = OpenPending::none;
  DeviceBuffer<std::uint32_t> watch_{1};       // StabilityView's word: the first unstable step
  PinnedBuffer<std::uint32_t> watch_seen_{1};  // its last copy on the host
  backend::Event watch_copied_;
  std::int64_t unstable_step_ = -1;
  PopulationLayout layout_ = PopulationLayout::own;
  bool halo_pending_ = false;  // the exchange of pending_direction() is due before the next step or read-out
  std::int64_t step_ = 0;
};

}  // namespace

namespace {

/// Refuses a run whose ranks on this node need more host memory than the node has available (MemAvailable):
/// `rank_bytes` is this rank's need (the field read-outs and one staged checkpoint), summed over the ranks that share
/// the node (MPI_COMM_TYPE_SHARED; collective). Throws OutOfMemoryError; nothing when MemAvailable is unknown.
void check_host_memory(const CaseConfig& config, const Decomposition& decomposition, double rank_bytes) {
  double node_bytes = rank_bytes;
  int node_ranks = 1;
  if (!decomposition.serial()) {
    MPI_Comm node = MPI_COMM_NULL;
    EDDY_MPI_CHECK(MPI_Comm_split_type(decomposition.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    EDDY_MPI_CHECK(MPI_Allreduce(&rank_bytes, &node_bytes, 1, MPI_DOUBLE, MPI_SUM, node));
    EDDY_MPI_CHECK(MPI_Comm_size(node, &node_ranks));
    EDDY_MPI_CHECK(MPI_Comm_free(&node));
  }
  const double available = double(host_available_memory());
  if (available <= 0 || node_bytes <= 0.95 * available) return;
  const double checkpoint = checkpoint_staging_bytes(config, decomposition);
  char text[400];
  std::snprintf(text, sizeof text,
                "the output of the block of %d x %d x %d cells needs %.3g GB of host memory (%.3g GB of it to stage a "
                "checkpoint, every %lld steps), %.3g GB for the %d rank(s) on this node, but only %.3g GB are "
                "available; use more nodes or ranks%s",
                decomposition.local_size[0], decomposition.local_size[1], decomposition.local_size[2],
                rank_bytes * 1e-9, checkpoint * 1e-9, static_cast<long long>(config.checkpoint_every),
                node_bytes * 1e-9, node_ranks, available * 1e-9,
                checkpoint > 0 ? ", or [checkpoint] every = 0" : "");
  throw OutOfMemoryError(text);
}

/// Refuses a block that cannot fit before anything is allocated (allocations alone may succeed under memory
/// overcommit and fail later, when the pages are touched).
void check_memory(const CaseConfig& config, const Decomposition& decomposition) {
  double needed = device_bytes_needed(config, decomposition);
  // Host memory: the read-outs and a staged checkpoint (solver/checkpointing.hpp), on GPUs checked here on their own.
  const double host_needed = host_readout_bytes(config, decomposition) + checkpoint_staging_bytes(config, decomposition);
  // On cpu the "device" is host memory, which holds them too.
  if (!backend::is_gpu()) needed += host_needed;
  if (backend::is_gpu()) check_host_memory(config, decomposition, host_needed);
  const backend::DeviceInfo device = backend::device_info(backend::current_device());
  if (device.free_memory > 0 && needed > 0.95 * double(device.free_memory)) {
    // "auto" would have gone out of core for a fluid-only case (solver/out_of_core.hpp); say why it did not.
    const std::string not_out_of_core =
        backend::is_gpu() && config.out_of_core.mode == OutOfCoreMode::automatic && config.particles.enabled
            ? "; numerics.out_of_core = \"auto\" stays in core: out-of-core runs take no [particles] (they couple to "
              "the whole block at every step)"
            : "";
    const double particle_bytes = particle_bytes_needed(config, decomposition);
    if (particle_bytes > 0.5 * needed) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "the block of %d x %d x %d cells with its share of %lld particles needs %.3g GB of %s memory, "
                    "%.3g GB of it for the particles, but only %.3g GB are free; use fewer particles "
                    "(particles.count)",
                    decomposition.local_size[0], decomposition.local_size[1], decomposition.local_size[2],
                    static_cast<long long>(config.particles.count), needed * 1e-9,
                    backend::is_gpu() ? "device" : "host", particle_bytes * 1e-9, double(device.free_memory) * 1e-9);
      throw OutOfMemoryError(text + not_out_of_core);
    }
    char text[320];
    std::snprintf(text, sizeof text,
                  "the block of %d x %d x %d cells needs %.3g GB of %s memory (populations, flags, output slab) "
                  "but only %.3g GB are free; use a smaller domain%s or more ranks",
                  decomposition.local_size[0], decomposition.local_size[1], decomposition.local_size[2], needed * 1e-9,
                  backend::is_gpu() ? "device" : "host", double(device.free_memory) * 1e-9,
                  fp16_storage_hint(config.precision));
    throw OutOfMemoryError(text + not_out_of_core);
  }
}

}  // namespace

std::unique_ptr<Simulation> create_in_core(const CaseConfig& config, const Decomposition& decomposition) {
  check_memory(config, decomposition);
  switch (config.precision) {
    case Precision::float64:
      return std::make_unique<LatticeSimulation<double>>(config, decomposition);
    case Precision::float16:
      return std::make_unique<LatticeSimulation<half_t>>(config, decomposition);
    case Precision::float32:
      break;
  }
  return std::make_unique<LatticeSimulation<float>>(config, decomposition);
}

double in_core_device_bytes(const CaseConfig& config, const Decomposition& decomposition) {
  return device_bytes_needed(config, decomposition);
}

}  // namespace eddy
