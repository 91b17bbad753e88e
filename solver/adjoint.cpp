// The reverse sweep of solver/adjoint.hpp: forward states kept every k steps, recomputed by eddy's fused kernel
// between them, and the adjoint step (kernels/adjoint_step.cpp) run backwards over them.
#include "solver/adjoint.hpp"

#include <mpi.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>

#include "kernels/adjoint_launchers.hpp"
#include "kernels/d3q19.hpp"
#include "solver/device_arrays.hpp"
#include "solver/device_buffer.hpp"
#include "solver/errors.hpp"
#include "solver/field_halo.hpp"
#include "solver/host_state.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/moment_readout.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

std::string adjoint_unsupported(const CaseConfig& config) {
  for (std::size_t f = 0; f < config.faces.size(); ++f) {
    if (is_open_face(config.faces[f].kind)) {
      return std::string("boundary.") + kFaceNames[f] + ".type = \"" + face_kind_name(config.faces[f].kind) +
             "\" (open faces are not differentiated yet: walls, moving walls and periodic faces are)";
    }
  }
  for (const SolidConfig& solid : config.solids) {
    if (solid.wall == SolidWall::interpolated) {
      return "[[solid]] \"" + solid.name +
             "\": wall = \"interpolated\" (the default; interpolated walls are not differentiated yet: set wall = "
             "\"halfway\")";
    }
  }
  if (config.les != LesModel::none) return "numerics.les (the Smagorinsky model is not differentiated yet)";
  if (config.particles.enabled) return "[particles] (the particles' coupling is not differentiated yet)";
  if (config.thermal.enabled) return "[thermal] (the heat transport is not differentiated yet)";
  if (config.out_of_core.mode == OutOfCoreMode::on) return "numerics.out_of_core = \"on\" (the adjoint runs in core)";
  return "";
}

namespace {

/// A kept forward state: a copy of the population array as stored (Simulation::population_storage), in device
/// memory or, where it does not fit, in host memory.
struct KeptState {
  DeviceBuffer<unsigned char> device;
  std::vector<unsigned char> host;
  int layout = 0;
  std::int64_t step = 0;
  const void* data() const { return device.size() ? static_cast<const void*>(device.data()) : host.data(); }
};

/// Copies the simulation's state into `k`, reusing its memory when it has some (on_host: host memory).
void keep_into(Simulation& sim, KeptState& k, bool on_host) {
  const PopulationStorage s = sim.population_storage();
  k.layout = s.layout;
  k.step = s.step;
  if (on_host) {
    k.host.resize(s.bytes);
    backend::copy_to_host(k.host.data(), s.data, s.bytes);
  } else {
    if (k.device.size() != s.bytes) k.device = DeviceBuffer<unsigned char>(s.bytes);
    backend::copy_on_device(k.device.data(), s.data, s.bytes);
  }
}

KeptState keep(Simulation& sim, bool on_host) {
  KeptState k;
  keep_into(sim, k, on_host);
  return k;
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
  explicit AdjointSweep(Simulation& sim)
      : sim_(sim),
        d_(sim.decomposition()),
        shape_(block_shape(d_)),
        cells_(shape_.n_cells()),
        n_(shape_.interior_cells()),
        relax_(relaxation<R>(sim.config())),
        walls_(wall_velocities<R>(sim.config())),
        halo_(d_, shape_),
        moments_(4 * std::size_t(n_)),
        moments_bar_(4 * std::size_t(n_)) {
    // The simulation's own cell flags (block array, ghost layer included), on the device and a host copy.
    flags_ = static_cast<const CellFlag*>(sim.flag_array().data) - shape_.index(1, 1, 1);
    flags_host_.resize(std::size_t(cells_));
    backend::synchronize();
    backend::copy_to_host(flags_host_.data(), flags_, flags_host_.size() * sizeof(CellFlag));
    for (auto& l : lambda_) l = std::make_shared<DeviceBuffer<R>>(std::size_t(d3q19::Q) * std::size_t(cells_));
    force_bar_ = std::make_shared<DeviceBuffer<R>>(3 * std::size_t(cells_));
    zero_fields<R>(out(*lambda_[0]), d3q19::Q, shape_, nullptr);
    zero_fields<R>(out(*lambda_[1]), d3q19::Q, shape_, nullptr);
    zero_fields<R>(out(*force_bar_), 3, shape_, nullptr);
    // The per-cell force field the fused kernel adds (Simulation::force_array, created as zero if absent).
    const DeviceArray force = sim.force_array();
    R* base = static_cast<R*>(force.data) - shape_.index(1, 1, 1);
    for (int a = 0; a < 3; ++a) force_field_.f[a] = base + std::int64_t(a) * cells_;
  }

  /// Device bytes of the adjoint's own fields for a block of `shape` in arithmetic type R.
  static std::size_t fields_bytes(const BlockShape& shape) {
    return (2 * std::size_t(d3q19::Q) + 3) * std::size_t(shape.n_cells()) * sizeof(R) +
           8 * std::size_t(shape.interior_cells()) * sizeof(R);
  }

  /// The objective of the simulation's current (final) state and the seed lambda^N = S^T dL/df^N; force_bar
  /// starts with the objective's own F/2 term. Returns this rank's L.
  double seed(const Objective& objective) {
    sim_.moments_to_device(moments_.data());
    sim_.synchronize();
    const std::vector<R> m = moments_.download();
    std::vector<R> bar(moments_bar_.size(), R(0));
    std::array<int, 3> hi = objective.hi;
    for (int a = 0; a < 3; ++a) {
      if (hi[a] < 0) hi[a] = sim_.config().size[a];
    }
    double value = 0.0;
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      if (is_solid(flags_host_[std::size_t(cell)])) return;
      const double rho = m[std::size_t(k)];
      const double u[3] = {m[std::size_t(n_ + k)], m[std::size_t(2 * n_ + k)], m[std::size_t(3 * n_ + k)]};
      if (objective.kind == ObjectiveKind::velocity_mismatch) {
        for (int a = 0; a < 3; ++a) {
          const double e = u[a] - objective.target[std::size_t(a * n_ + k)];
          value += 0.5 * e * e;
          bar[std::size_t((1 + a) * n_ + k)] = R(e);
        }
      } else {
        const std::array<int, 3> g = interior_to_global(k, d_.local_size, d_.offset);
        for (int a = 0; a < 3; ++a) {
          if (g[a] < objective.lo[a] || g[a] >= hi[a]) return;
        }
        const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        value += 0.5 * rho * usq;
        bar[std::size_t(k)] = R(0.5 * usq);
        for (int a = 0; a < 3; ++a) bar[std::size_t((1 + a) * n_ + k)] = R(rho * u[a]);
      }
    });
    moments_bar_.upload(bar);
    adjoint_seed<R>(moments_.data(), moments_bar_.data(), out(*lambda_[current_]), out(*force_bar_), flags(), shape_,
                    nullptr);
    send_ghosts();
    return value;
  }

  /// One step back: lambda^n from lambda^{n+1} about the kept state s^n; adds to force_bar.
  void step_back(const KeptState& state) {
    const PopulationView<T> view{static_cast<T*>(const_cast<void*>(state.data())), cells_};
    adjoint_step<T>(view, PopulationLayout(state.layout), in(*lambda_[current_]), out(*lambda_[1 - current_]),
                    out(*force_bar_), flags(), shape_, relax_, walls_, force_field_, nullptr);
    current_ = 1 - current_;
    send_ghosts();
  }

  /// Interior values of lambda (19 components) or force_bar (3), [c * n + k], in double.
  std::vector<double> interior(bool force) const {
    backend::synchronize();
    const DeviceBuffer<R>& b = force ? *force_bar_ : *lambda_[current_];
    const int components = force ? 3 : d3q19::Q;
    const std::vector<R> all = b.download();
    std::vector<double> out(std::size_t(components) * std::size_t(n_));
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      for (int c = 0; c < components; ++c) out[std::size_t(c * n_ + k)] = double(all[std::size_t(c * cells_ + cell)]);
    });
    return out;
  }

  /// The device views of the result (GradientResult::force_array, state_array, device_fields).
  void hand_over(GradientResult& result) {
    backend::synchronize();
    result.force_array = block_interior_array(force_bar_->data(), shape_, 'f', int(sizeof(R)), false, 3, cells_, true);
    result.state_array =
        block_interior_array(lambda_[current_]->data(), shape_, 'f', int(sizeof(R)), false, d3q19::Q, cells_);
    result.device_fields =
        std::make_shared<std::pair<std::shared_ptr<DeviceBuffer<R>>, std::shared_ptr<DeviceBuffer<R>>>>(
            force_bar_, lambda_[current_]);
  }

 private:
  BlockFields<const R> in(const DeviceBuffer<R>& b) const { return {b.data(), cells_}; }
  BlockFields<R> out(DeviceBuffer<R>& b) { return {b.data(), cells_}; }
  FlagView flags() const { return FlagView{flags_}; }

  /// What the transposed streaming wrote into the ghost layer, to the cells that own those slots.
  void send_ghosts() {
    for (int i = 0; i < d3q19::Q; ++i) halo_.add_ghosts_to_owners(lambda_[current_]->data() + i * cells_);
  }

  Simulation& sim_;
  Decomposition d_;
  BlockShape shape_;
  std::int64_t cells_, n_;
  Relaxation<R> relax_;
  WallVelocities<R> walls_;
  FieldHalo<R> halo_;
  std::vector<CellFlag> flags_host_;
  const CellFlag* flags_ = nullptr;                         // the simulation's
  std::shared_ptr<DeviceBuffer<R>> lambda_[2], force_bar_;  // shared with the result's device views
  DeviceBuffer<R> moments_, moments_bar_;
  int current_ = 0;  ///< which lambda_ holds the latest adjoint
  ForceFieldView<R> force_field_;
};

/// Advances one step and stops with InstabilityError if the fused kernel's watch found a cell beyond the limit.
void advance_checked(Simulation& sim) {
  sim.advance(1);
  if (sim.unstable_step() >= 0 || (sim.synchronize(), sim.unstable_step() >= 0)) {
    throw InstabilityError("gradient: the forward run became unstable at step " +
                           std::to_string(sim.unstable_step() + 1) + " (|u| > 0.5 or a NaN)");
  }
}

/// The free device memory (host memory on the cpu backend) of this rank's device.
std::size_t free_device_memory() { return backend::device_info(backend::current_device()).free_memory; }

template <class T>
GradientResult sweep(Simulation& sim, std::int64_t steps, const Objective& objective, std::int64_t k,
                     const GradientOptions& options) {
  const std::size_t budget = options.state_budget_bytes;
  GradientResult result;
  result.steps = steps;
  result.checkpoint_every = k;
  const BlockShape shape = block_shape(sim.decomposition());
  const std::size_t state_bytes = std::size_t(d3q19::Q) * std::size_t(shape.n_cells()) * sizeof(T);
  const std::int64_t kept = (steps + k - 1) / k;  // s^0, s^k, ... below s^N; and s^N, to end with
  const std::size_t fields = AdjointSweep<T>::fields_bytes(shape);
  const std::size_t segment = std::size_t(std::min(k, steps)) * state_bytes;
  const std::size_t free = free_device_memory();
  const bool kept_on_host = options.placement == StatePlacement::host ||
                            fields + segment + std::size_t(kept + 1) * state_bytes > free / 10 * 9;
  if (fields + segment > free / 10 * 9) {
    throw OutOfMemoryError("gradient: the adjoint's fields (" + std::to_string(fields) + " B) and a segment of " +
                           std::to_string(std::min(k, steps)) + " forward states (" + std::to_string(segment) +
                           " B) need more than 90 % of the free device memory (" + std::to_string(free) +
                           " B); keep states more often (a smaller checkpoint_every) or use more ranks");
  }
  result.host_bytes = kept_on_host ? std::size_t(kept + 1) * state_bytes : 0;
  result.device_bytes = fields + segment + (kept_on_host ? 0 : std::size_t(kept + 1) * state_bytes);
  const std::size_t states = segment + std::size_t(kept + 1) * state_bytes;
  if (budget > 0 && states > budget) {
    throw OutOfMemoryError("gradient: the forward states of " + std::to_string(steps) + " steps kept every " +
                           std::to_string(k) + " need " + std::to_string(states) +
                           " B on this rank, more than the budget of " + std::to_string(budget) +
                           " B; give a larger budget, fewer steps or another checkpoint_every");
  }
  AdjointSweep<T> adjoint(sim);

  // Forward: keep s^0, s^k, s^2k, ... and s^N; then the objective of s^N and the seed.
  std::vector<KeptState> kept_states;
  for (std::int64_t t = 0; t < steps; ++t) {
    if (t % k == 0) kept_states.push_back(keep(sim, kept_on_host));
    advance_checked(sim);
  }
  const KeptState end = keep(sim, kept_on_host);
  result.objective = adjoint.seed(objective);
  const Decomposition& d = sim.decomposition();
  if (!d.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &result.objective, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  }

  // Backward, a segment [start, stop) at a time from the last: its states recomputed from the kept one, on the
  // device, into buffers reused from segment to segment.
  std::vector<KeptState> later(std::size_t(std::max<std::int64_t>(0, std::min(k, steps) - 1)));  // s^{start+1}...
  KeptState first_copy;  // s^start on the device, where the kept one is on the host
  for (std::int64_t m = std::int64_t(kept_states.size()) - 1; m >= 0; --m) {
    const std::int64_t start = m * k, stop = std::min(steps, start + k);
    const KeptState& kept_state = kept_states[std::size_t(m)];
    if (stop - start > 1 || kept_on_host) restore(sim, kept_state);
    if (kept_on_host) keep_into(sim, first_copy, false);
    for (std::int64_t t = start + 1; t < stop; ++t) {
      advance_checked(sim);
      keep_into(sim, later[std::size_t(t - start - 1)], false);
      ++result.recomputed_steps;
    }
    backend::synchronize();
    for (std::int64_t t = stop - 1; t > start; --t) adjoint.step_back(later[std::size_t(t - start - 1)]);
    adjoint.step_back(kept_on_host ? first_copy : kept_state);
    kept_states.pop_back();
  }
  if (options.host_copies) {
    result.state = adjoint.interior(false);
    result.force = adjoint.interior(true);
  }
  adjoint.hand_over(result);
  restore(sim, end);
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
  OutOfCoreStats stats;
  if (sim.out_of_core(stats)) throw InputError("gradient: not available out of core (the adjoint runs in core)");
  const std::int64_t k =
      options.checkpoint_every > 0 ? options.checkpoint_every : std::int64_t(std::ceil(std::sqrt(double(steps))));
  switch (sim.population_bytes()) {
    case 8:
      return sweep<double>(sim, steps, objective, k, options);
    case 2:
      return sweep<half_t>(sim, steps, objective, k, options);
    default:
      return sweep<float>(sim, steps, objective, k, options);
  }
}

}  // namespace eddy
