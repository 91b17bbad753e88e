// The reverse sweep of solver/adjoint.hpp: forward states kept every k steps, recomputed by eddy's fused kernel
// between them, and the adjoint step (kernels/adjoint_step.cpp) run backwards over them.
#include "solver/adjoint.hpp"

#include <mpi.h>

#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

#include "kernels/adjoint_launchers.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/solid_forces.hpp"
#include "solver/device_arrays.hpp"
#include "solver/device_buffer.hpp"
#include "solver/errors.hpp"
#include "solver/field_halo.hpp"
#include "solver/host_memory.hpp"
#include "solver/host_state.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/open_adjoint.hpp"

namespace eddy {

std::string adjoint_unsupported(const CaseConfig& config) {
  for (std::size_t f = 0; f < config.faces.size(); ++f) {
    const FaceBoundary& b = config.faces[f];
    if (is_open_face(b.kind) && b.sponge > 0.0) {
      return std::string("boundary.") + kFaceNames[f] +
             ".sponge (sponge layers, whose relaxation time varies per cell, are not differentiated yet)";
    }
    if (b.kind == FaceKind::outflow && b.scheme == OutflowScheme::convective) {
      return std::string("boundary.") + kFaceNames[f] +
             ".scheme = \"convective\" (the convective outflow's history is not differentiated yet: the "
             "zero-gradient outflow, velocity inlets, pressure outlets and free slip are)";
    }
  }
  for (const SolidConfig& solid : config.solids) {
    if (solid.wall == SolidWall::interpolated) {
      return "[[solid]] \"" + solid.name +
             "\": wall = \"interpolated\" (interpolated walls, the default, are not differentiated yet: set wall = "
             "\"halfway\")";
    }
  }
  if (config.les != LesModel::none) return "numerics.les (the Smagorinsky model is not differentiated yet)";
  if (config.particles.enabled) return "[particles] (the particles' coupling is not differentiated yet)";
  if (config.thermal.enabled) return "[thermal] (the heat transport is not differentiated yet)";
  if (config.out_of_core.mode == OutOfCoreMode::on) return "numerics.out_of_core = true (the adjoint runs in core)";
  if (config.statistics.enabled) {
    return "[statistics] (the recomputed steps would be sampled a second time; run the statistics without it)";
  }
  return "";
}

namespace {

/// A kept forward state: the population array as stored (Simulation::population_storage), in device
/// memory or, where it does not fit, in host memory.
struct KeptState {
  DeviceBuffer<unsigned char> device;
  std::vector<unsigned char> host;
  int layout = 0;
  std::int64_t step = 0;
  const void* data() const { return device.size() ? static_cast<const void*>(device.data()) : host.data(); }
};

/// The kept states' buffers of earlier calls (Simulation::gradient_workspace), all of one state's size: taken before
/// new memory is allocated, given back as the sweep is done with them. Allocating and first touching tens of GB per
/// call would otherwise cost an optimisation loop as much as the steps (on the cpu backend, most of the forward run).
struct StatePool {
  std::size_t bytes = 0;
  std::vector<DeviceBuffer<unsigned char>> device;
  std::vector<std::vector<unsigned char>> host;
  std::size_t device_used = 0, host_used = 0;  // buffers this call took or allocated
  std::size_t device_bytes() const { return device.size() * bytes; }
  /// After a call: keeps as many buffers as it used (an earlier, larger call's others are released).
  void trim() {
    if (device.size() > device_used) device.resize(device_used);
    if (host.size() > host_used) host.resize(host_used);
    device_used = host_used = 0;
  }
  /// A device buffer for one state: the pool's, else new memory.
  DeviceBuffer<unsigned char> take_device() {
    ++device_used;
    if (device.empty()) return DeviceBuffer<unsigned char>(bytes);
    DeviceBuffer<unsigned char> b = std::move(device.back());
    device.pop_back();
    return b;
  }
  /// Gives the buffers of `k` back.
  void recycle(KeptState& k) {
    if (k.device.size() == bytes) device.push_back(std::move(k.device));
    if (k.host.size() == bytes) host.push_back(std::move(k.host));
  }
};

/// Copies the simulation's state into `k`, reusing its memory when it has some, else the pool's (on_host: host
/// memory).
void keep_into(Simulation& sim, KeptState& k, bool on_host, StatePool& pool) {
  const PopulationStorage s = sim.population_storage();
  k.layout = s.layout;
  k.step = s.step;
  if (on_host) {
    if (k.host.size() != s.bytes) {
      ++pool.host_used;
      if (!pool.host.empty()) {
        k.host = std::move(pool.host.back());
        pool.host.pop_back();
      }
    }
    k.host.resize(s.bytes);
    backend::copy_to_host(k.host.data(), s.data, s.bytes);
  } else {
    if (k.device.size() != s.bytes) k.device = pool.take_device();
    backend::copy_on_device(k.device.data(), s.data, s.bytes);
  }
}

KeptState keep(Simulation& sim, bool on_host, StatePool& pool) {
  KeptState k;
  keep_into(sim, k, on_host, pool);
  return k;
}

/// What gradient() keeps between calls (Simulation::gradient_workspace): the kept states' buffers, and the adjoint's
/// fields of the last result (GradientResult::device_fields), which the next call takes where no array of that
/// result is left (only the workspace holds them).
struct GradientWorkspace {
  StatePool states;
  std::vector<CellFlag> host_flags;  // the simulation's cell flags (they do not change), copied once
  std::shared_ptr<void> open_faces;  // OpenFacesAdjoint<T> built from them, with open faces only
  std::shared_ptr<void> fields;  // std::array<std::shared_ptr<DeviceBuffer<R>>, 4> of the last call
  std::size_t field_value_bytes = 0;
  std::int64_t field_cells = 0;
  /// The last call's fields as R of a block of `cells`, where nothing else holds them; else null.
  template <class R>
  std::shared_ptr<std::array<std::shared_ptr<DeviceBuffer<R>>, 4>> free_fields(std::int64_t cells) const {
    if (!fields || fields.use_count() != 1 || field_value_bytes != sizeof(R) || field_cells != cells) return nullptr;
    return std::static_pointer_cast<std::array<std::shared_ptr<DeviceBuffer<R>>, 4>>(fields);
  }
};

/// The simulation's workspace for states of `bytes`, taken out of it (the states of another size are released).
std::shared_ptr<GradientWorkspace> take_workspace(Simulation& sim, std::size_t bytes) {
  std::shared_ptr<GradientWorkspace> w = std::static_pointer_cast<GradientWorkspace>(sim.gradient_workspace());
  sim.gradient_workspace().reset();
  if (!w) w = std::make_shared<GradientWorkspace>();
  if (w->states.bytes != bytes) {
    w->states = StatePool{};  // the old buffers go before new ones are counted
    w->states.bytes = bytes;
  }
  return w;
}

/// The step from the simulation's state s^t that keeps s^t in `k` (device memory) without a copy: the step writes
/// into k's memory (Simulation::advance_into), and the array it read, holding s^t, becomes k's.
void step_keeping(Simulation& sim, KeptState& k, StatePool& pool) {
  const PopulationStorage s = sim.population_storage();
  k.layout = s.layout;
  k.step = s.step;
  if (k.device.size() != s.bytes) k.device = pool.take_device();
  sim.advance_into(k.device);
}

void restore(Simulation& sim, const KeptState& k) {
  const PopulationStorage s = sim.population_storage();
  if (k.device.size()) {
    backend::copy_on_device(s.data, k.device.data(), s.bytes);
  } else {
    backend::copy_to_device(s.data, k.host.data(), s.bytes);
  }
  sim.population_storage_restored(k.layout, k.step);
}

/// One rank's adjoint fields and the steps back over them, for storage type T (arithmetic R = compute_t<T>).
template <class T>
class AdjointSweep {
  using R = compute_t<T>;

 public:
  /// `workspace`: the last call's fields are taken from it where free.
  AdjointSweep(Simulation& sim, GradientWorkspace& workspace)
      : sim_(sim),
        d_(sim.decomposition()),
        shape_(block_shape(d_)),
        cells_(shape_.n_cells()),
        n_(shape_.interior_cells()),
        relax_(relaxation<R>(sim.config())),
        walls_(wall_velocities<R>(sim.config())),
        halo_(d_, shape_),
        moments_(4 * std::size_t(n_)),
        moments_bar_(4 * std::size_t(n_)),
        rows_(std::size_t(d_.local_size[1]) * std::size_t(d_.local_size[2])) {
    // The simulation's own cell flags (block array, ghost layer included); a host copy and the open faces' plan,
    // made by the first call and kept in the workspace (the flags do not change).
    flags_ = static_cast<const CellFlag*>(sim.flag_array().data) - shape_.index(1, 1, 1);
    if (workspace.host_flags.size() != std::size_t(cells_)) {
      workspace.host_flags.resize(std::size_t(cells_));
      backend::synchronize();
      backend::copy_to_host(workspace.host_flags.data(), flags_, workspace.host_flags.size());
      workspace.open_faces.reset();
      if (has_open_faces(sim.config())) {
        workspace.open_faces = std::make_shared<OpenFacesAdjoint<T>>(sim.config(), d_, workspace.host_flags);
      }
    }
    host_flags_ = &workspace.host_flags;
    open_ = std::static_pointer_cast<OpenFacesAdjoint<T>>(workspace.open_faces);
    const auto earlier = workspace.free_fields<R>(cells_);
    workspace.fields.reset();
    const auto field = [&](int which, std::size_t components) {
      if (earlier && (*earlier)[std::size_t(which)]) return (*earlier)[std::size_t(which)];
      return std::make_shared<DeviceBuffer<R>>(components * std::size_t(cells_));
    };
    lambda_[0] = field(1, d3q19::Q);
    lambda_[1] = field(2, d3q19::Q);
    force_bar_ = field(0, 3);
    omega_bar_ = DeviceBuffer<R>(2 * std::size_t(cells_));
    zero_fields<R>(out(omega_bar_), 2, shape_, nullptr);
    zero_fields<R>(out(*lambda_[0]), d3q19::Q, shape_, nullptr);
    zero_fields<R>(out(*lambda_[1]), d3q19::Q, shape_, nullptr);
    zero_fields<R>(out(*force_bar_), 3, shape_, nullptr);
    // The per-cell force field the fused kernel adds (Simulation::force_array, created as zero if absent).
    const DeviceArray force = sim.force_array();
    R* base = static_cast<R*>(force.data) - shape_.index(1, 1, 1);
    for (int a = 0; a < 3; ++a) force_field_.f[a] = base + std::int64_t(a) * cells_;
    if (sim.has_porosity()) {  // the Brinkman drag's field (Simulation::porosity_array) and dL/dalpha
      force_field_.porosity = static_cast<const R*>(sim.porosity_array().data) - shape_.index(1, 1, 1);
      porosity_bar_ = field(3, 1);
      zero_fields<R>(out(*porosity_bar_), 1, shape_, nullptr);
    }
  }

  /// Device bytes of the adjoint's own fields for a block of `shape` in arithmetic type R, with an objective over
  /// a time window (`window`: one more field of 19 values per cell, the window's seeds) or not, and with a porosity
  /// field (one more value per cell, dL/dalpha) or not.
  static std::size_t fields_bytes(const BlockShape& shape, bool window, bool porosity) {
    return (2 * std::size_t(d3q19::Q) + 5 + (window ? std::size_t(d3q19::Q) : 0) + (porosity ? 1 : 0)) *
               std::size_t(shape.n_cells()) * sizeof(R) +
           8 * std::size_t(shape.interior_cells()) * sizeof(R);
  }

  /// The objective L: its region in block coordinates (clipped to this block) and its target, on the device.
  void set_objective(const Objective& objective) {
    view_.kind = objective.kind == ObjectiveKind::velocity_mismatch ? 0
                 : objective.kind == ObjectiveKind::pressure_drop   ? 2
                                                                    : 1;
    solid_ = objective.kind == ObjectiveKind::solid_force ? objective.solid : -1;
    for (int a = 0; a < 3; ++a) direction_[a] = objective.direction[std::size_t(a)];
    for (int a = 0; a < 3; ++a) {
      const int lo = objective.region ? objective.lo[a] : 0;
      const int hi = objective.region ? objective.hi[a] : sim_.config().size[a];
      view_.lo[a] = std::max(1, lo - d_.offset[a] + 1);
      view_.hi[a] = std::min(d_.local_size[a] + 1, hi - d_.offset[a] + 1);
      view_.down_lo[a] = std::max(1, objective.down_lo[a] - d_.offset[a] + 1);
      view_.down_hi[a] = std::min(d_.local_size[a] + 1, objective.down_hi[a] - d_.offset[a] + 1);
    }
    if (view_.kind == 2) {  // the weights c_s^2 / N of the two means, N the fluid cells of each region
      long long counts[2] = {0, 0};
      for (int z = 1; z <= shape_.n[2]; ++z)
        for (int y = 1; y <= shape_.n[1]; ++y)
          for (int x = 1; x <= shape_.n[0]; ++x) {
            if (!is_fluid((*host_flags_)[std::size_t(shape_.index(x, y, z))])) continue;
            counts[0] += view_.upstream(x, y, z) ? 1 : 0;
            counts[1] += view_.downstream(x, y, z) ? 1 : 0;
          }
      if (!d_.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, d_.comm));
      if (counts[0] == 0 || counts[1] == 0) {
        throw InputError(std::string("gradient: the pressure drop's ") + (counts[0] == 0 ? "upstream" : "downstream") +
                         " region holds no fluid cell");
      }
      view_.up_weight = R(1.0 / (3.0 * double(counts[0])));
      view_.down_weight = R(1.0 / (3.0 * double(counts[1])));
    }
    if (view_.kind == 0) {
      target_ = DeviceBuffer<R>(objective.target.size());
      target_.upload(std::vector<R>(objective.target.begin(), objective.target.end()));
      view_.target = target_.data();
    }
  }

  /// L of the simulation's current (final) state and the seed lambda^N = S^T dL/df^N; force_bar starts with the
  /// objective's own F/2 term. Returns this rank's L.
  double seed() {
    const double value = objective_into(*lambda_[current_]);
    send_ghosts(*lambda_[current_]);
    return value;
  }

  /// A window's state s^n, after step_back has made lambda^n: lambda^n += S^T dL/df^n and force_bar += its F/2
  /// term. Leaves s^n in the simulation (restore; null `state`: the simulation holds it already). Returns this rank's
  /// L of f^n.
  double add_objective(const KeptState* state) {
    if (state) restore(sim_, *state);
    if (window_seed_.size() == 0) window_seed_ = DeviceBuffer<R>(std::size_t(d3q19::Q) * std::size_t(cells_));
    zero_fields<R>(out(window_seed_), d3q19::Q, shape_, nullptr);
    const double value = objective_into(window_seed_);
    send_ghosts(window_seed_);
    add_fields<R>(out(*lambda_[current_]), in(window_seed_), d3q19::Q, shape_, nullptr);
    return value;
  }

  /// One step back: lambda^n from lambda^{n+1} about the state s^n at `data` (a kept state, or the simulation's own
  /// array) in `layout`; adds to force_bar.
  void step_back(const void* data, int layout) {
    const PopulationView<T> view{static_cast<T*>(const_cast<void*>(data)), cells_};
    adjoint_step<T>(view, PopulationLayout(layout), in(*lambda_[current_]), out(*lambda_[1 - current_]),
                    out(*force_bar_), out(omega_bar_), porosity_bar(), flags(), shape_, relax_, walls_, force_field_,
                    nullptr);
    current_ = 1 - current_;
    open_faces(view, PopulationLayout(layout), *lambda_[current_]);
    send_ghosts(*lambda_[current_]);
  }
  void step_back(const KeptState& state) { step_back(state.data(), state.layout); }

  /// After the sweep: dL/drho0 and dL/du0 of a start from an equilibrium, about the starting state s^0, into the
  /// other lambda buffer (no longer needed: components 0 and 1-3).
  void initial_equilibrium(const KeptState& start) {
    const PopulationView<T> view{static_cast<T*>(const_cast<void*>(start.data())), cells_};
    initial_equilibrium_adjoint<T>(view, PopulationLayout(start.layout), in(*lambda_[current_]),
                                   out(*lambda_[1 - current_]), flags(), shape_, walls_, nullptr);
  }

  /// Interior values of `components` block fields from `first` of `b`, [c * n + k], in double.
  std::vector<double> interior(const DeviceBuffer<R>& b, int first, int components) const {
    backend::synchronize();
    const std::vector<R> all = b.download();
    std::vector<double> out(std::size_t(components) * std::size_t(n_));
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      for (int c = 0; c < components; ++c) {
        out[std::size_t(c * n_ + k)] = double(all[std::size_t((first + c) * cells_ + cell)]);
      }
    });
    return out;
  }

  /// The host copies of the result (GradientResult::force, state, initial_density, initial_velocity).
  void host_copies(GradientResult& result) const {
    result.state = interior(*lambda_[current_], 0, d3q19::Q);
    result.force = interior(*force_bar_, 0, 3);
    result.initial_density = interior(*lambda_[1 - current_], 0, 1);
    result.initial_velocity = interior(*lambda_[1 - current_], 1, 3);
    if (porosity_bar_) result.porosity = interior(*porosity_bar_, 0, 1);
  }

  /// dL/dtau of this rank's cells: the rates' adjoints summed over the interior cells (in double) and taken to tau
  /// through omega+ = 1 / tau and omega- = omega+ (BGK) or 1 / (Lambda / (tau - 1/2) + 1/2) (TRT, magic Lambda).
  double tau_gradient() {
    double sums[2] = {0.0, 0.0};
    for (int r = 0; r < 2; ++r) {  // on the device, row by row; the rows added here in order
      row_sums<R>(omega_bar_.data() + r * cells_, shape_, rows_.data(), nullptr);
      for (double row : rows_.download()) sums[r] += row;
    }
    const CaseConfig& c = sim_.config();
    const double tau = c.tau, omega_plus = 1.0 / tau;
    const double omega_minus = c.collision == Collision::bgk ? omega_plus : trt_omega_minus(omega_plus, c.magic);
    const double d_plus = -1.0 / (tau * tau);
    const double d_minus =
        c.collision == Collision::bgk ? d_plus : omega_minus * omega_minus * c.magic / ((tau - 0.5) * (tau - 0.5));
    return sums[0] * d_plus + sums[1] * d_minus;
  }

  /// The device views of the result (GradientResult::force_array, state_array, device_fields).
  void hand_over(GradientResult& result) {
    backend::synchronize();
    result.force_array = block_interior_array(force_bar_->data(), shape_, 'f', int(sizeof(R)), false, 3, cells_, true);
    result.state_array =
        block_interior_array(lambda_[current_]->data(), shape_, 'f', int(sizeof(R)), false, d3q19::Q, cells_);
    R* initial = lambda_[1 - current_]->data();
    result.initial_density_array = block_interior_array(initial, shape_, 'f', int(sizeof(R)), false);
    result.initial_velocity_array =
        block_interior_array(initial + cells_, shape_, 'f', int(sizeof(R)), false, 3, cells_, true);
    if (porosity_bar_)
      result.porosity_array = block_interior_array(porosity_bar_->data(), shape_, 'f', int(sizeof(R)), false);
    result.device_fields = std::make_shared<std::array<std::shared_ptr<DeviceBuffer<R>>, 4>>(
        std::array<std::shared_ptr<DeviceBuffer<R>>, 4>{force_bar_, lambda_[0], lambda_[1], porosity_bar_});
    // Order [force_bar, lambda 0, lambda 1, porosity_bar]: what the constructor takes back from the workspace.
  }

 private:
  BlockFields<const R> in(const DeviceBuffer<R>& b) const { return {b.data(), cells_}; }
  BlockFields<R> out(DeviceBuffer<R>& b) { return {b.data(), cells_}; }
  FlagView flags() const { return FlagView{flags_}; }
  BlockFields<R> porosity_bar() { return porosity_bar_ ? out(*porosity_bar_) : BlockFields<R>{}; }

  /// The open faces' part of S^T (kernels/open_adjoint.hpp) on `lambda`, about the state `view` in `layout`.
  void open_faces(const PopulationView<T>& view, PopulationLayout layout, DeviceBuffer<R>& lambda) {
    if (open_) {
      open_->apply(view, layout, out(lambda), out(*force_bar_), porosity_bar(), flags(), shape_, walls_, relax_.force,
                   force_field_);
    }
  }

  /// What the transposed streaming wrote into the ghost layer of `lambda`, to the cells that own those slots.
  void send_ghosts(DeviceBuffer<R>& lambda) {
    for (int i = 0; i < d3q19::Q; ++i) halo_.add_ghosts_to_owners(lambda.data() + i * cells_);
  }

  /// S^T dL/df of the simulation's current state into `lambda` (set at the slots the streaming feeds, the others
  /// left as they are) and the F/2 term into force_bar; returns this rank's L, its rows summed in a fixed order.
  double objective_into(DeviceBuffer<R>& lambda) {
    if (solid_ >= 0) return force_objective_into(lambda);
    sim_.moments_to_device(moments_.data());
    sim_.synchronize();
    adjoint_objective<R>(moments_.data(), view_, moments_bar_.data(), rows_.data(), shape_, nullptr);
    adjoint_seed<R>(moments_.data(), moments_bar_.data(), out(lambda), out(*force_bar_), porosity_bar(),
                    force_field_.porosity, flags(), shape_, nullptr);
    if (open_) {  // the open faces made part of f from the state now held: their share of S^T
      const PopulationStorage s = sim_.population_storage();
      open_faces(PopulationView<T>{static_cast<T*>(s.data), cells_}, PopulationLayout(s.layout), lambda);
    }
    double value = 0.0;
    for (double row : rows_.download()) value += row;
    return value;
  }

  /// The force objective's seed dL/ds = 2 c_i.d at the solid's links into `lambda`; returns this rank's L = F.d
  /// of the current state (its momentum-exchange sums, as the solid's forces report them).
  double force_objective_into(DeviceBuffer<R>& lambda) {
    const std::vector<unsigned long long> sums = sim_.local_solid_force_sums();
    const auto [links, n_links] = sim_.device_cut_links();
    R d[3];
    for (int a = 0; a < 3; ++a) d[a] = R(direction_[a]);
    adjoint_force_seed<R>(links, n_links, solid_, d, out(lambda), nullptr);
    double value = 0.0;
    for (int a = 0; a < 3; ++a) value += from_force_fixed(sums[std::size_t(solid_) * kForceSums + a]) * direction_[a];
    return value;
  }

  Simulation& sim_;
  Decomposition d_;
  BlockShape shape_;
  std::int64_t cells_, n_;
  Relaxation<R> relax_;
  WallVelocities<R> walls_;
  FieldHalo<R> halo_;
  const CellFlag* flags_ = nullptr;                         // the simulation's
  const std::vector<CellFlag>* host_flags_ = nullptr;       // a host copy (the workspace's)
  std::shared_ptr<OpenFacesAdjoint<T>> open_;               // with open faces only (the workspace's)
  std::shared_ptr<DeviceBuffer<R>> lambda_[2], force_bar_;  // shared with the result's device views
  std::shared_ptr<DeviceBuffer<R>> porosity_bar_;           // dL/dalpha, with a porosity field only (shared too)
  DeviceBuffer<R> omega_bar_, moments_, moments_bar_;
  DeviceBuffer<double> rows_;  // the objective's sum over each x-row of the interior
  DeviceBuffer<R> window_seed_;  // a window's seeds before they join lambda (allocated with the first)
  ObjectiveView<R> view_;
  int solid_ = -1;  // the force objective's solid, -1 for the objectives of the moments
  double direction_[3] = {1.0, 0.0, 0.0};
  DeviceBuffer<R> target_;
  int current_ = 0;  ///< which lambda_ holds the latest adjoint
  ForceFieldView<R> force_field_;
};

/// Advances one step and stops with InstabilityError if the fused kernel's watch found a cell beyond the limit.
/// Throws InstabilityError when the step just taken became unstable.
void check_stable(Simulation& sim) {
  if (sim.unstable_step() >= 0 || (sim.synchronize(), sim.unstable_step() >= 0)) {
    throw InstabilityError("gradient: the forward run became unstable at step " +
                           std::to_string(sim.unstable_step() + 1) + " (|u| > 0.5 or a NaN)");
  }
}

void advance_checked(Simulation& sim) {
  sim.advance(1);
  check_stable(sim);
}

/// The free device memory (host memory on the cpu backend) of this rank's device.
std::size_t free_device_memory() { return backend::device_info(backend::current_device()).free_memory; }

/// The memory plan of a sweep: the kept-state interval k and where the states live.
struct StatePlan {
  std::int64_t k = 1;
  bool kept_on_host = false;
  std::size_t device_bytes = 0, host_bytes = 0;
};

/// Device and host bytes of kept-state interval k for `steps` steps (states of `state` bytes, adjoint fields of
/// `fields` bytes): ceil(steps / k) kept states and the final one (on the device, one of them is the simulation's own
/// array: the state it runs on takes the place), k - 2 of a segment's recomputed states (on the device; its last
/// stays in the simulation's array) and, where the kept ones are on the host, a device one of the segment's first.
StatePlan plan_for(std::int64_t steps, std::int64_t k, bool on_host, std::size_t state, std::size_t fields) {
  StatePlan p;
  p.k = k;
  p.kept_on_host = on_host;
  // Saturated at SIZE_MAX: step counts near 2^63 give sizes no machine has, not wrapped small ones.
  const std::size_t kept = std::size_t(steps / k) + (steps % k != 0 ? 1 : 0) + 1;
  const std::size_t segment = std::size_t(std::max<std::int64_t>(0, std::min(k, steps) - 2) + (on_host ? 1 : 0));
  const auto bytes = [&](std::size_t count) {
    return double(count) * double(state) + double(fields) >= double(SIZE_MAX) ? SIZE_MAX : count * state + fields;
  };
  p.device_bytes = bytes(segment + (on_host ? 0 : kept));
  p.host_bytes = on_host ? bytes(kept) - fields : 0;
  return p;
}

/// Bytes of the forward states of plan p (all of them, wherever they are).
std::size_t state_bytes_of(const StatePlan& p, std::size_t fields) {
  const std::size_t device = p.device_bytes - fields;
  return p.host_bytes > SIZE_MAX - device ? SIZE_MAX : p.host_bytes + device;
}

/// The plan with the fewest recomputed steps that fits 90 % of the device's free memory and the budget: the
/// smallest k (1: every state kept, nothing recomputed) whose states fit there, else the states kept every
/// k = ceil(sqrt(steps)) (or the k asked for) in host memory, with one segment on the device. The same on every
/// rank (the largest k and host placement if any rank needs them), since the ranks step together. Throws
/// OutOfMemoryError on every rank when the plan does not fit one of them.
StatePlan choose_plan(std::int64_t steps, const GradientOptions& options, std::size_t state, std::size_t fields,
                      std::size_t pooled, const Decomposition& d) {
  const std::size_t room = free_device_memory() / 10 * 9 + pooled;
  const std::size_t budget = options.state_budget_bytes;
  const auto acceptable = [&](const StatePlan& p) {
    return p.device_bytes <= room && (budget == 0 || state_bytes_of(p, fields) <= budget);
  };
  const std::int64_t root = std::int64_t(std::ceil(std::sqrt(double(steps))));
  StatePlan plan = plan_for(steps, options.checkpoint_every > 0 ? options.checkpoint_every : root, true, state, fields);
  if (options.placement != StatePlacement::host) {
    const std::int64_t first = options.checkpoint_every > 0 ? options.checkpoint_every : 1;
    const std::int64_t last = options.checkpoint_every > 0 ? options.checkpoint_every : root;
    for (std::int64_t k = first; k <= last; ++k) {
      const StatePlan p = plan_for(steps, k, false, state, fields);
      if (acceptable(p)) {
        plan = p;
        break;
      }
    }
  }
  if (!d.serial()) {  // one plan for all ranks
    long long agreed[2] = {plan.k, plan.kept_on_host ? 1 : 0};
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_LONG_LONG, MPI_MAX, d.comm));
    plan = plan_for(steps, agreed[0], agreed[1] != 0, state, fields);
  }
  // Host memory for the kept states there: what the host can give without swapping (0: unknown, not checked).
  const std::size_t host_room = host_available_memory() / 10 * 9;
  const bool host_fits = plan.host_bytes == 0 || host_room == 0 || plan.host_bytes <= host_room;
  int fits = acceptable(plan) && host_fits ? 1 : 0;
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, d.comm));
  if (fits) return plan;
  int host_short = host_fits ? 0 : 1;
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &host_short, 1, MPI_INT, MPI_MAX, d.comm));
  if (host_short && (budget == 0 || state_bytes_of(plan, fields) <= budget)) {
    throw OutOfMemoryError("gradient: the forward states of " + std::to_string(steps) + " steps kept every " +
                           std::to_string(plan.k) + " in host memory need " + std::to_string(plan.host_bytes) +
                           " B on a rank, more than 90 % of the host's available memory (" +
                           std::to_string(host_available_memory()) +
                           " B here); keep states less often (a larger checkpoint_every), run fewer steps or use "
                           "more ranks");
  }
  if (budget > 0 && state_bytes_of(plan, fields) > budget) {
    throw OutOfMemoryError("gradient: the forward states of " + std::to_string(steps) + " steps kept every " +
                           std::to_string(plan.k) + " need " + std::to_string(state_bytes_of(plan, fields)) +
                           " B on this rank, more than the budget of " + std::to_string(budget) +
                           " B; give a larger budget, fewer steps or another checkpoint_every");
  }
  throw OutOfMemoryError("gradient: the adjoint's fields (" + std::to_string(fields) + " B) and " +
                         std::to_string(std::min(plan.k, steps)) + " forward states of a segment (" +
                         std::to_string(plan.device_bytes - fields) + " B) need more than 90 % of the free device " +
                         "memory (" + std::to_string(room / 9 * 10) + " B) on a rank; keep states more often (a " +
                         "smaller checkpoint_every) or use more ranks");
}

template <class T>
GradientResult sweep(Simulation& sim, std::int64_t steps, const Objective& objective, const GradientOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point start) {
    backend::synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Clock::time_point phase = Clock::now();
  GradientResult result;
  result.steps = steps;
  const BlockShape shape = block_shape(sim.decomposition());
  const std::size_t state_bytes = std::size_t(d3q19::Q) * std::size_t(shape.n_cells()) * sizeof(T);
  const std::shared_ptr<GradientWorkspace> workspace = take_workspace(sim, state_bytes);
  StatePool* const pool = &workspace->states;
  // The last call's fields, where free, are memory this call has already.
  std::size_t free_fields = 0;
  if (const auto fields = workspace->free_fields<compute_t<T>>(shape.n_cells())) {
    for (const auto& b : *fields) free_fields += b ? b->size() * sizeof(compute_t<T>) : 0;
  }
  const StatePlan plan = choose_plan(steps, options, state_bytes,
                                     AdjointSweep<T>::fields_bytes(shape, objective.window > 1, sim.has_porosity()),
                                     pool->device_bytes() + free_fields, sim.decomposition());
  const std::int64_t k = plan.k;
  const bool kept_on_host = plan.kept_on_host;
  result.checkpoint_every = k;
  result.host_bytes = plan.host_bytes;
  result.device_bytes = plan.device_bytes;
  AdjointSweep<T> adjoint(sim, *workspace);

  // Forward: keep s^0, s^k, s^2k, ... and s^N; then the objective of s^N and the seed.
  const auto check_interrupt = [&](std::int64_t count) {
    if (options.check_interrupt && options.interrupt_every > 0 && count % options.interrupt_every == 0) {
      options.check_interrupt();
    }
  };
  result.seconds_setup = seconds_since(phase);
  phase = Clock::now();
  // Buffers swap places with the simulation's array without copies (step_keeping, exchange_population_storage); the
  // array the simulation had at the start (`original`: Python's arrays of it stay valid) is handed back to it at the
  // end, holding the state after the steps.
  const void* const original = sim.population_storage().data;
  std::vector<KeptState> kept_states;
  // s^{start+1} .. s^{stop-2} of a recomputed segment: the segment's last state stays in the simulation.
  std::vector<KeptState> later(std::size_t(std::max<std::int64_t>(0, std::min(k, steps) - 2)));
  KeptState first_copy;  // s^start on the device, where the kept one is on the host
  KeptState end;         // s^N
  const auto original_buffer = [&]() -> DeviceBuffer<unsigned char>* {
    for (std::vector<KeptState>* list : {&kept_states, &later}) {
      for (KeptState& kept : *list) {
        if (kept.device.data() == original) return &kept.device;
      }
    }
    for (KeptState* kept : {&first_copy, &end}) {
      if (kept->device.data() == original) return &kept->device;
    }
    for (DeviceBuffer<unsigned char>& b : pool->device) {
      if (b.data() == original) return &b;
    }
    return nullptr;  // the simulation holds it
  };
  const FlagView flags{static_cast<const CellFlag*>(sim.flag_array().data) - shape.index(1, 1, 1)};
  // Leaves `state` (null: the simulation's current state) in the simulation, in the original array; the slots of
  // solid cells, which no step reads or writes, stay the original array's.
  const auto leave_in_original = [&](const KeptState* state) {
    DeviceBuffer<unsigned char>* home = original_buffer();
    const PopulationStorage now = sim.population_storage();
    if (!state && !home) return;
    const int layout = state ? state->layout : now.layout;
    const std::int64_t step = state ? state->step : now.step;
    const void* from = state ? state->data() : now.data;
    void* to = home ? static_cast<void*>(home->data()) : now.data;
    const std::int64_t cells = shape.n_cells();
    if (state && state->host.size() != 0) {
      backend::copy_to_device(to, from, now.bytes);
    } else if (from != to) {
      copy_fluid_populations<T>(PopulationView<T>{static_cast<T*>(to), cells},
                                PopulationView<T>{static_cast<T*>(const_cast<void*>(from)), cells}, flags, shape);
    }
    if (home) {
      sim.exchange_population_storage(*home, layout, step);
    } else {
      sim.population_storage_restored(layout, step);
    }
  };

  // Forward: keep s^0, s^k, s^2k, ... and s^N; then the objective of s^N and the seed.
  try {
    for (std::int64_t t = 0; t < steps; ++t) {
      if (t % k == 0 && !kept_on_host) {
        kept_states.emplace_back();
        step_keeping(sim, kept_states.back(), *pool);
        check_stable(sim);
      } else {
        if (t % k == 0) kept_states.push_back(keep(sim, true, *pool));
        advance_checked(sim);
      }
      if (t + 1 < steps) check_interrupt(t + 1);
    }
  } catch (...) {
    leave_in_original(nullptr);  // the state the forward run had reached, as documented
    throw;
  }
  adjoint.set_objective(objective);
  result.objective = adjoint.seed();
  if (kept_on_host) {
    end = keep(sim, true, *pool);
  } else {
    // s^N leaves the simulation's array for a spare one, which the first recomputed segment replaces.
    const PopulationStorage s = sim.population_storage();
    end.layout = s.layout;
    end.step = s.step;
    end.device = pool->take_device();
    sim.exchange_population_storage(end.device, end.layout, end.step);
  }
  result.seconds_forward = seconds_since(phase);
  // The window's other states: f^n for n > N - W, each added to lambda^n once step_back has made it.
  const auto in_window = [&](std::int64_t n) { return n < steps && n > steps - objective.window; };

  // Backward, a segment [start, stop) at a time from the last: its states recomputed from the kept one, on the
  // device, each step keeping the state it starts from (step_keeping) in buffers reused from segment to segment.
  std::int64_t swept = 0;  // steps swept back so far, for the interrupt checks
  try {
    for (std::int64_t m = std::int64_t(kept_states.size()) - 1; m >= 0; --m) {
      const std::int64_t start = m * k, stop = std::min(steps, start + k);
      KeptState& kept_state = kept_states[std::size_t(m)];
      phase = Clock::now();
      if (kept_on_host) {
        restore(sim, kept_state);
        if (stop - start > 1) {
          step_keeping(sim, first_copy, *pool);
        } else {
          keep_into(sim, first_copy, false, *pool);
        }
      } else if (stop - start > 1) {
        // s^start into the simulation, the array it held into kept_state; the step writes s^{start+1} there and
        // hands s^start back.
        sim.exchange_population_storage(kept_state.device, kept_state.layout, kept_state.step);
        sim.advance_into(kept_state.device);
      }
      if (stop - start > 1) ++result.recomputed_steps;
      for (std::int64_t t = start + 2; t < stop; ++t) {
        step_keeping(sim, later[std::size_t(t - start - 2)], *pool);
        ++result.recomputed_steps;
      }
      result.seconds_recompute += seconds_since(phase);
      phase = Clock::now();
      for (std::int64_t t = stop - 1; t > start; --t) {
        if (t + 1 == stop) {
          const PopulationStorage live = sim.population_storage();
          adjoint.step_back(live.data, live.layout);
          if (in_window(t)) result.objective += adjoint.add_objective(nullptr);
        } else {
          const KeptState& state = later[std::size_t(t - start - 1)];
          adjoint.step_back(state);
          if (in_window(t)) result.objective += adjoint.add_objective(&state);
        }
        check_interrupt(++swept);
      }
      const KeptState& first = kept_on_host ? first_copy : kept_state;
      adjoint.step_back(first);
      if (in_window(start)) result.objective += adjoint.add_objective(&first);
      if (m == 0) adjoint.initial_equilibrium(first);
      result.seconds_adjoint += seconds_since(phase);
      if (m > 0) {  // the first kept state may be the original array (leave_in_original finds it)
        pool->recycle(kept_states.back());
        kept_states.pop_back();
      }
      if (m > 0) check_interrupt(++swept);
    }
  } catch (...) {
    leave_in_original(&end);  // interrupted: the state after the steps, as documented
    throw;
  }
  phase = Clock::now();
  const Decomposition& d = sim.decomposition();
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &result.objective, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  result.tau = adjoint.tau_gradient();
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &result.tau, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  if (options.host_copies) adjoint.host_copies(result);
  adjoint.hand_over(result);
  leave_in_original(&end);
  // The buffers this call used stay with the simulation for the next (those of earlier, larger calls go).
  for (KeptState& kept : kept_states) pool->recycle(kept);
  for (KeptState& kept : later) pool->recycle(kept);
  pool->recycle(first_copy);
  pool->recycle(end);
  pool->trim();
  workspace->fields = result.device_fields;
  workspace->field_value_bytes = sizeof(compute_t<T>);
  workspace->field_cells = shape.n_cells();
  sim.gradient_workspace() = workspace;
  result.seconds_finish = seconds_since(phase);
  return result;
}

}  // namespace

GradientResult gradient(Simulation& sim, std::int64_t steps, const Objective& objective,
                        const GradientOptions& options) {
  const std::string why = adjoint_unsupported(sim.config());
  if (!why.empty()) throw InputError("gradient: not available for this case: " + why);
  if (steps < 1) throw InputError("gradient: steps = " + std::to_string(steps) + " must be at least 1");
  if (options.checkpoint_every < 0) {
    throw InputError("gradient: checkpoint_every = " + std::to_string(options.checkpoint_every) + " must be 0 or more");
  }
  const Decomposition& d = sim.decomposition();
  const std::size_t n = std::size_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  if (objective.kind == ObjectiveKind::velocity_mismatch && objective.target.size() != 3 * n) {
    throw InputError("gradient: the target velocity has " + std::to_string(objective.target.size()) +
                     " values; this rank's block needs 3 x " + std::to_string(n));
  }
  if (objective.window < 1 || objective.window - 1 > steps) {
    throw InputError("gradient: window = " + std::to_string(objective.window) +
                     " must be between 1 (the final state) " +
                     "and steps + 1 = " + std::to_string(std::uint64_t(steps) + 1) + " (every state from the start)");
  }
  if (objective.kind == ObjectiveKind::solid_force) {
    const int solids = int(sim.config().solids.size());
    if (objective.solid < 0 || objective.solid >= solids) {
      throw InputError("gradient: the force objective's solid " + std::to_string(objective.solid) +
                       " does not exist (the case has " + std::to_string(solids) + " [[solid]] bodies)");
    }
    for (double d : objective.direction) {
      if (!std::isfinite(d)) throw InputError("gradient: the force objective's direction must be finite");
    }
  }
  const auto check_region = [&](const char* name, const std::array<int, 3>& lo, const std::array<int, 3>& hi) {
    const char* axis = "xyz";
    for (std::size_t a = 0; a < 3; ++a) {
      if (!(0 <= lo[a] && lo[a] < hi[a] && hi[a] <= sim.config().size[a])) {
        throw InputError(std::string("gradient: the ") + name + "'s " + axis[a] + " range [" + std::to_string(lo[a]) +
                         ", " + std::to_string(hi[a]) + ") must satisfy 0 <= lo < hi <= " +
                         std::to_string(sim.config().size[a]) + " (global cells, the end excluded)");
      }
    }
  };
  if (objective.kind == ObjectiveKind::kinetic_energy && objective.region)
    check_region("region", objective.lo, objective.hi);
  if (objective.kind == ObjectiveKind::pressure_drop) {
    if (!objective.region) throw InputError("gradient: the pressure drop needs an upstream region");
    check_region("upstream region", objective.lo, objective.hi);
    check_region("downstream region", objective.down_lo, objective.down_hi);
  }
  OutOfCoreStats stats;
  if (sim.out_of_core(stats)) throw InputError("gradient: not available out of core (the adjoint runs in core)");
  const std::int64_t k =
      options.checkpoint_every > 0 ? options.checkpoint_every : std::int64_t(std::ceil(std::sqrt(double(steps))));
  switch (sim.population_bytes()) {
    case 8:
      return sweep<double>(sim, steps, objective, options);
    case 2:
      return sweep<half_t>(sim, steps, objective, options);
    default:
      return sweep<float>(sim, steps, objective, options);
  }
}

}  // namespace eddy
