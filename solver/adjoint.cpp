// The reverse sweep of solver/adjoint.hpp: forward states kept every k steps, recomputed by eddy's fused kernel
// between them, and the adjoint step (kernels/adjoint_step.cpp) run backwards over them.
#include "solver/adjoint.hpp"

#include <mpi.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "kernels/adjoint_launchers.hpp"
#include "kernels/d3q19.hpp"
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
  if (config.les != LesModel::none) return "numerics.les (the Smagorinsky model is not differentiated yet)";
  if (config.particles.enabled) return "[particles] (the particles' coupling is not differentiated yet)";
  if (config.thermal.enabled) return "[thermal] (the heat transport is not differentiated yet)";
  if (config.out_of_core.mode == OutOfCoreMode::on) return "numerics.out_of_core = \"on\" (the adjoint runs in core)";
  return "";
}

namespace {

/// One rank's adjoint fields and the sweep over them, in the arithmetic type R of the simulation.
template <class R>
class AdjointSweep {
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
        state_(std::size_t(d3q19::Q) * std::size_t(cells_)),
        lambda_(std::size_t(d3q19::Q) * std::size_t(cells_)),
        nu_(std::size_t(d3q19::Q) * std::size_t(cells_)),
        force_bar_(3 * std::size_t(cells_)),
        moments_(4 * std::size_t(cells_)),
        moments_bar_(4 * std::size_t(cells_)) {
    const std::vector<CellFlag> flags = build_flags(sim.config(), d_);
    if (cut_links(sim.config(), d_, flags).interpolated > 0) {
      throw InputError("gradient: interpolated walls (solid.interpolated = true) are not differentiated yet");
    }
    flags_host_ = flags;
    flags_ = DeviceBuffer<CellFlag>(flags.size());
    flags_.upload(flags);
    for (DeviceBuffer<R>* b : {&state_, &lambda_, &nu_, &force_bar_, &moments_, &moments_bar_}) {
      b->upload(std::vector<R>(b->size(), R(0)));
    }
    // The per-cell force field the fused kernel adds (Simulation::force_array, created as zero if absent).
    const DeviceArray force = sim.force_array();
    R* base = static_cast<R*>(force.data) - shape_.index(1, 1, 1);
    for (int a = 0; a < 3; ++a) force_field_.f[a] = base + std::int64_t(a) * cells_;
  }

  std::size_t device_bytes() const {
    return state_.bytes() + lambda_.bytes() + nu_.bytes() + force_bar_.bytes() + moments_.bytes() +
           moments_bar_.bytes() + flags_.bytes();
  }

  /// Loads post-collision populations f* (populations() layout, unshifted) as the forward state, ghosts filled.
  void load_state(const std::vector<double>& f) {
    std::vector<R> block(state_.size(), R(0));
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      for (int i = 0; i < d3q19::Q; ++i) {
        block[std::size_t(i * cells_ + cell)] = R(f[std::size_t(i * n_ + k)] - d3q19::w<double>(i));
      }
    });
    state_.upload(block);
    for (int i = 0; i < d3q19::Q; ++i) halo_.fill_ghosts(state_.data() + i * cells_);
  }

  /// The objective of the loaded (final) state and the seed lambda^N = S^T dL/df^N; force_bar starts with the
  /// objective's own F/2 term. Returns this rank's L.
  double seed(const Objective& objective) {
    arrived_moments_of<R>(in(state_), out(moments_), flags(), shape_, relax_, walls_, force_field_, nullptr);
    const std::vector<R> m = moments_.download();
    std::vector<R> bar(moments_bar_.size(), R(0));
    const std::array<int, 3> lo = objective.lo;
    std::array<int, 3> hi = objective.hi;
    for (int a = 0; a < 3; ++a) {
      if (hi[a] < 0) hi[a] = sim_.config().size[a];
    }
    double value = 0.0;
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      if (is_solid(flags_host_[std::size_t(cell)])) return;
      const double rho = m[std::size_t(cell)];
      const double u[3] = {m[std::size_t(cells_ + cell)], m[std::size_t(2 * cells_ + cell)],
                           m[std::size_t(3 * cells_ + cell)]};
      if (objective.kind == ObjectiveKind::velocity_mismatch) {
        for (int a = 0; a < 3; ++a) {
          const double e = u[a] - objective.target[std::size_t(a * n_ + k)];
          value += 0.5 * e * e;
          bar[std::size_t((1 + a) * cells_ + cell)] = R(e);
        }
      } else {
        const std::array<int, 3> g = interior_to_global(k, d_.local_size, d_.offset);
        for (int a = 0; a < 3; ++a) {
          if (g[a] < lo[a] || g[a] >= hi[a]) return;
        }
        const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        value += 0.5 * rho * usq;
        bar[std::size_t(cell)] = R(0.5 * usq);
        for (int a = 0; a < 3; ++a) bar[std::size_t((1 + a) * cells_ + cell)] = R(rho * u[a]);
      }
    });
    moments_bar_.upload(bar);
    force_bar_.upload(std::vector<R>(force_bar_.size(), R(0)));
    adjoint_moments<R>(in(moments_), in(moments_bar_), out(nu_), out(force_bar_), flags(), shape_, nullptr);
    stream_back();
    return value;
  }

  /// One step back: lambda^n from lambda^{n+1} about the loaded state s^n; adds to force_bar.
  void step_back() {
    adjoint_collide<R>(in(state_), in(lambda_), out(nu_), out(force_bar_), flags(), shape_, relax_, walls_,
                       force_field_, nullptr);
    stream_back();
  }

  /// Interior values of lambda (19 components) or force_bar (3), [c * n + k], in double.
  std::vector<double> interior(bool force) const {
    const DeviceBuffer<R>& b = force ? force_bar_ : lambda_;
    const int components = force ? 3 : d3q19::Q;
    const std::vector<R> all = b.download();
    std::vector<double> out(std::size_t(components) * std::size_t(n_));
    for_each_interior(shape_, [&](std::int64_t k, std::int64_t cell) {
      for (int c = 0; c < components; ++c) out[std::size_t(c * n_ + k)] = double(all[std::size_t(c * cells_ + cell)]);
    });
    return out;
  }

 private:
  BlockFields<const R> in(const DeviceBuffer<R>& b) const { return {b.data(), cells_}; }
  BlockFields<R> out(DeviceBuffer<R>& b) { return {b.data(), cells_}; }
  FlagView flags() const { return FlagView{flags_.data()}; }

  /// lambda = S^T nu, with nu's ghosts filled from the neighbours first.
  void stream_back() {
    for (int i = 0; i < d3q19::Q; ++i) halo_.fill_ghosts(nu_.data() + i * cells_);
    adjoint_stream<R>(in(nu_), out(lambda_), flags(), shape_, nullptr);
  }

  Simulation& sim_;
  Decomposition d_;
  BlockShape shape_;
  std::int64_t cells_, n_;
  Relaxation<R> relax_;
  WallVelocities<R> walls_;
  FieldHalo<R> halo_;
  std::vector<CellFlag> flags_host_;
  DeviceBuffer<CellFlag> flags_;
  DeviceBuffer<R> state_, lambda_, nu_, force_bar_, moments_, moments_bar_;
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

template <class R>
GradientResult sweep(Simulation& sim, std::int64_t steps, const Objective& objective, std::int64_t k,
                     std::size_t budget) {
  const Decomposition& d = sim.decomposition();
  const std::int64_t n = std::int64_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  GradientResult result;
  result.steps = steps;
  result.checkpoint_every = k;
  const std::size_t state_bytes = std::size_t(d3q19::Q) * std::size_t(n) * sizeof(double);
  const std::int64_t kept = (steps + k - 1) / k;  // s^0, s^k, ... below s^N
  result.host_bytes = std::size_t(kept + k + 1) * state_bytes;
  if (budget > 0 && result.host_bytes > budget) {
    throw OutOfMemoryError("gradient: the forward states of " + std::to_string(steps) + " steps kept every " +
                           std::to_string(k) + " need " + std::to_string(result.host_bytes) +
                           " B of host memory on this rank, more than the budget of " + std::to_string(budget) +
                           " B; give a larger budget or fewer steps");
  }
  AdjointSweep<R> adjoint(sim);
  result.device_bytes = adjoint.device_bytes();

  // Forward: keep s^0, s^k, s^2k, ...; then the objective of s^N and the seed.
  std::vector<std::vector<double>> kept_states;
  for (std::int64_t t = 0; t < steps; ++t) {
    if (t % k == 0) kept_states.push_back(sim.populations());
    advance_checked(sim);
  }
  const RawState end = sim.raw_state();
  adjoint.load_state(sim.populations());
  result.objective = adjoint.seed(objective);
  if (!d.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &result.objective, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  }

  // Backward, a segment [start, stop) at a time from the last: its states recomputed from the kept one.
  for (std::int64_t m = std::int64_t(kept_states.size()) - 1; m >= 0; --m) {
    const std::int64_t start = m * k, stop = std::min(steps, start + k);
    std::vector<std::vector<double>> segment;
    segment.push_back(std::move(kept_states[std::size_t(m)]));
    kept_states.pop_back();
    if (stop - start > 1) {
      sim.set_populations(segment.front());
      for (std::int64_t t = start + 1; t < stop; ++t) {
        advance_checked(sim);
        segment.push_back(sim.populations());
        ++result.recomputed_steps;
      }
    }
    for (std::int64_t t = stop - 1; t >= start; --t) {
      adjoint.load_state(segment[std::size_t(t - start)]);
      adjoint.step_back();
    }
  }
  result.state = adjoint.interior(false);
  result.force = adjoint.interior(true);
  sim.set_raw_state(end);
  return result;
}

}  // namespace

GradientResult gradient(Simulation& sim, std::int64_t steps, const Objective& objective, std::int64_t checkpoint_every,
                        std::size_t host_budget_bytes) {
  const std::string why = adjoint_unsupported(sim.config());
  if (!why.empty()) throw InputError("gradient: not available for this case: " + why);
  if (steps < 1) throw InputError("gradient: steps = " + std::to_string(steps) + " must be at least 1");
  if (checkpoint_every < 0) {
    throw InputError("gradient: checkpoint_every = " + std::to_string(checkpoint_every) + " must be 0 or more");
  }
  const Decomposition& d = sim.decomposition();
  const std::size_t n = std::size_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  if (objective.kind == ObjectiveKind::velocity_mismatch && objective.target.size() != 3 * n) {
    throw InputError("gradient: the target velocity has " + std::to_string(objective.target.size()) +
                     " values; this rank's block needs 3 x " + std::to_string(n));
  }
  OutOfCoreStats stats;
  if (sim.out_of_core(stats)) throw InputError("gradient: not available out of core (the adjoint runs in core)");
  const std::int64_t k = checkpoint_every > 0 ? checkpoint_every : std::int64_t(std::ceil(std::sqrt(double(steps))));
  if (sim.temperature_bytes() == 8) return sweep<double>(sim, steps, objective, k, host_budget_bytes);
  return sweep<float>(sim, steps, objective, k, host_budget_bytes);
}

}  // namespace eddy
