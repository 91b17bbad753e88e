// Gradients through a run: the discrete adjoint of eddy's stream-collide step (kernels/adjoint_step.cpp), swept
// backwards over the forward states with two-level checkpointing.
//
// For a run of N steps from the simulation's current post-collision state s^0 (Simulation::populations()), with
// s^{n+1} = C(S(s^n); F) the fused step, and an objective L of the final arrived state f^N = S(s^N), or the sum
// L = sum_{n = N - W + 1}^{N} L(f^n) over a time window of the last W arrived states, gradient() returns L,
// dL/dF(x) (the per-cell force density, constant over the run: Simulation::force_array()), dL/dalpha(x) (the
// porosity of the Brinkman drag, where the simulation has one: Simulation::porosity_array()), dL/dtau (the
// viscosity), dL/ds^0 and, for a start from an equilibrium s^0 = f_eq(rho0, u0), dL/drho0 and dL/du0, by
// lambda^N = S^T (dL/df^N), lambda^n = S^T (dC/df)^T lambda^{n+1} + S^T (dL/df^n) (the second term for the window's
// states only) and dL/dF = sum_n (dC/dF)^T lambda^{n+1} + the objective's own F/2 terms (Griewank & Walther 2008,
// Evaluating Derivatives, 2nd ed., ch. 3 and 12).
//
// Forward states: every k-th state (k: GradientOptions::checkpoint_every) is kept during the forward run, in device
// memory where it fits (90 % of the free memory, with the adjoint's fields and one segment), else in host memory; the
// states between two kept ones are recomputed by eddy's own fused kernel, on the device, before their segment of the
// reverse sweep (the segment's last read where the simulation holds it). So N + (N - N/k) steps run in all and
// N/k + k states are held besides the simulation's own (two-level checkpointing, the simplest case of Griewank 1992,
// Optim. Methods Softw. 1, 35). On the device a state is kept without a copy: the step that leaves it runs out of
// place (Simulation::advance_into), writing into another array, which the simulation runs on while the one read keeps
// the state; recomputed segments start from a kept state the same way (Simulation::exchange_population_storage). The
// simulation ends in the array it had before the call (its Python views stay valid), with one copy of the final
// state into it. Host memory takes a copy of each state (Simulation::population_storage). The buffers stay with the
// simulation for the next call (Simulation::gradient_workspace). The adjoint step reads the stored states as the
// fused kernel does, in its storage type (fp16 forward runs get a float adjoint).
//
// Differentiable here: BGK and TRT with Guo forcing (uniform body force, per-cell force field, Brinkman drag), halfway
// bounce-back walls and moving walls, solid bodies without interpolated walls, periodic faces, the open faces
// (velocity inlets, pressure outlets, zero-gradient outflow, free slip: kernels/open_adjoint.hpp), in core, any rank
// count. Refused with an InputError naming what is not: the convective outflow (its history), sponge layers,
// interpolated walls, LES, particles, the thermal field, [statistics] (the recomputed steps would be sampled twice),
// out of core.
// Units: lattice throughout.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "solver/device_arrays.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// What L is, as a function of the final arrived state's moments rho(x), u(x) over the rank's fluid cells.
enum class ObjectiveKind {
  velocity_mismatch,  ///< L = 1/2 sum_x |u(x) - u_target(x)|^2 over the fluid cells
  kinetic_energy,     ///< L = sum_x 1/2 rho(x) |u(x)|^2 over the fluid cells of the region
  /// L = F.d: the momentum-exchange force F on one [[solid]] body (solver/solid_forces.hpp, the value its forces
  /// report for the step just taken) along a direction d (drag: d along the flow; lift: across it); a function of
  /// the post-collision state s^N itself (F = sum_links 2 f*_i c_i at its half-way links).
  solid_force,
  /// L = c_s^2 (<rho>_up - <rho>_down): the pressure drop between the means of rho over the fluid cells of two regions
  /// (`lo`, `hi` upstream; `down_lo`, `down_hi` downstream), c_s^2 = 1/3; with a fixed inflow, what the flow's
  /// resistance costs (the dissipated power is the flow rate times it).
  pressure_drop,
};

struct Objective {
  ObjectiveKind kind = ObjectiveKind::kinetic_energy;
  /// velocity_mismatch: u_target at the interior cells, 3 blocks of n values [a * n + k] (k as in
  /// MacroscopicFields, x fastest; n this rank's interior cells), lattice units.
  std::vector<double> target;
  /// kinetic_energy with `region`: the global cells [lo, hi) per axis, 0 <= lo < hi <= size (InputError
  /// otherwise); without: every cell. pressure_drop: the upstream region (`region` must be true).
  bool region = false;
  std::array<int, 3> lo = {0, 0, 0}, hi = {0, 0, 0};
  /// pressure_drop: the downstream region, global cells [down_lo, down_hi) per axis (as `lo`, `hi`). Each region must
  /// hold a fluid cell (InputError otherwise).
  std::array<int, 3> down_lo = {0, 0, 0}, down_hi = {0, 0, 0};
  /// solid_force: the body (index into CaseConfig::solids; InputError outside) and d (lattice units, finite; not
  /// normalised: L = F.d as given).
  int solid = -1;
  std::array<double, 3> direction = {1.0, 0.0, 0.0};
  /// W: L summed over the arrived states of the last W steps' ends, f^{N-W+1} .. f^N (1: the final state only; up to
  /// N + 1, which counts the starting state f^0 too). InputError outside 1 <= W <= N + 1.
  std::int64_t window = 1;
};

struct GradientResult {
  double objective = 0.0;  ///< L, summed over the ranks
  /// dL/dtau, the relaxation time (lattice units; summed over the ranks): the viscosity nu = (tau - 1/2) / 3 as a
  /// parameter, so dL/dnu = 3 dL/dtau. TRT keeps its magic parameter fixed as tau changes.
  double tau = 0.0;
  /// dL/dF, 3 blocks of n values [a * n + k] (k as in MacroscopicFields); 0 on solid cells. Empty unless
  /// GradientOptions::host_copies.
  std::vector<double> force;
  /// dL/ds^0, 19 blocks of n values [i * n + k] (populations() layout). Empty unless GradientOptions::host_copies.
  /// (s_i(x): the post-collision population leaving cell x in direction i, what Simulation::populations() returns)
  std::vector<double> state;
  /// The initial fields as parameters: where the run starts from the equilibrium s^0_i(x) = f_eq_i(rho0(x), u0(x))
  /// (Simulation::set_populations of f_eq, as Python's set_equilibrium writes), dL/drho0 (n values) and dL/du0
  /// (3 blocks of n values [a * n + k]), the chain rule through f_eq at the raw moments of s^0 (rho0 = sum_i s_i,
  /// u0 = sum_i c_i s_i / rho0, no F/2 shift: kernels/adjoint_step.cpp); for a start that is not an equilibrium,
  /// the derivative along the equilibria at the state's own moments. 0 on solid cells. Empty unless
  /// GradientOptions::host_copies.
  std::vector<double> initial_density, initial_velocity;
  /// dL/dalpha of the porosity field (Simulation::porosity_array; n values, 0 on solid cells) where the simulation
  /// has one, else empty (and porosity_array has no data). Empty unless GradientOptions::host_copies.
  std::vector<double> porosity;
  /// The same gradients where the adjoint computed them (device memory; host memory on the cpu backend), in the
  /// arithmetic type (float, double with double storage), kept alive by `device_fields`: force_array of shape
  /// (nz, ny, nx, 3) like Simulation::force_array, state_array of shape (19, nz, ny, nx), initial_density_array
  /// (nz, ny, nx) and initial_velocity_array (nz, ny, nx, 3); block fields, so the strides skip the ghost layer and
  /// row padding.
  DeviceArray force_array, state_array, initial_density_array, initial_velocity_array, porosity_array;
  std::shared_ptr<void> device_fields;
  std::int64_t steps = 0;             ///< N
  std::int64_t checkpoint_every = 0;  ///< k
  std::int64_t recomputed_steps = 0;  ///< forward steps run again during the reverse sweep
  /// Wall-clock seconds of the phases on this rank, the device synchronised at their ends: the set-up (the memory
  /// plan, the adjoint's fields allocated and cleared), the forward run (with the kept states' copies and the
  /// objective's seed), the recomputed segments (with their states' copies), the adjoint steps (with the window's
  /// seeds and the ghost exchanges), and the finish (dL/dtau's sums, the result's arrays).
  double seconds_setup = 0.0, seconds_forward = 0.0, seconds_recompute = 0.0, seconds_adjoint = 0.0,
         seconds_finish = 0.0;
  std::size_t host_bytes = 0;         ///< host memory of the kept states (this rank; 0 when the device holds them)
  /// device memory of the adjoint's fields and the states it holds (this rank); a window (W > 1) adds one field of
  /// 19 values per cell for its objectives' seeds
  std::size_t device_bytes = 0;
};

/// Where gradient() keeps the forward states: automatic (the device where they fit, else host memory), or always
/// on the host (to spare device memory; also how the tests check that path).
enum class StatePlacement { automatic, host };

struct GradientOptions {
  /// k; 0: the smallest k whose states fit 90 % of the free device memory and the budget (1: every state kept,
  /// nothing recomputed), else ceil(sqrt(steps)) with the kept states in host memory.
  std::int64_t checkpoint_every = 0;
  std::size_t state_budget_bytes = 0;  ///< most bytes the kept and recomputed states may take on this rank; 0: none
  StatePlacement placement = StatePlacement::automatic;
  bool host_copies = true;  ///< fill GradientResult::force and ::state (in double, on the host)
  /// Called every interrupt_every steps of the forward run and of the sweep (every rank at the same steps: it may be
  /// collective); an exception it throws (Python's KeyboardInterrupt) ends gradient(), the simulation holding the
  /// state the forward run had reached, or once that run is done, the state after the steps. None: not called.
  std::function<void()> check_interrupt;
  std::int64_t interrupt_every = 64;
};

/// Runs `steps` steps of `sim` from its current state and sweeps back; `sim` ends holding the state after the
/// steps, at time time_step() + steps, as after sim.advance(steps). Collective over the ranks. Throws InputError
/// for a case the adjoint does not cover (the file's list), a target of the wrong size or bad options;
/// OutOfMemoryError when the states would take more than the budget or a segment does not fit the device;
/// InstabilityError when the forward run becomes unstable. The simulation gets a per-cell force field (zero) if it
/// had none.
GradientResult gradient(Simulation& sim, std::int64_t steps, const Objective& objective,
                        const GradientOptions& options = {});

/// Why the adjoint does not cover `config`, or "" when it does (the file's list).
std::string adjoint_unsupported(const CaseConfig& config);

}  // namespace eddy
