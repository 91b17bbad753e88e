// Simulation: the lattice Boltzmann state of this rank's block and its time stepping, on this build's backend.
//
// Two kinds of block implement the small virtual part (storage and stepping): LatticeSimulation
// (solver/lattice_simulation.hpp), whose populations live on the device, one array updated in place, and
// OutOfCoreSimulation (solver/out_of_core_simulation.hpp), whose populations live in pinned host memory and visit
// the device slab by slab. Both store float, double or fp16 populations as the case chooses at run time; callers see
// one precision-free interface. The read-outs (fields, diagnostics, VTK pieces, derived fields, checkpoint state)
// are written once over that part (solver/simulation.cpp); particles and the temperature field are optional
// components the in-core block owns and the read-outs reach through particle_system() and thermal_field().
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/backend.hpp"
#include "kernels/block.hpp"
#include "kernels/cut_links.hpp"
#include "kernels/views.hpp"
#include "solver/block_solids.hpp"
#include "solver/decomposition.hpp"
#include "solver/device_arrays.hpp"
#include "solver/device_buffer.hpp"
#include "solver/flow_statistics.hpp"
#include "solver/output_box.hpp"
#include "solver/particle_system.hpp"
#include "solver/thermal_field.hpp"

namespace eddy {

/// Largest lattice speed accepted during a run: beyond it the lattice Boltzmann model is meaningless.
inline constexpr double kMaxLatticeSpeed = 0.5;

/// Macroscopic fields on the interior cells of this rank's block, lattice units, x fastest:
/// k = x + nx * (y + ny * z), 0-based local indices; global index = offset + local.
struct MacroscopicFields {
  std::array<int, 3> size{};
  std::array<int, 3> offset{};       ///< global index of cell (0, 0, 0)
  std::array<int, 3> global_size{};  ///< the whole grid
  std::vector<double> rho;
  std::array<std::vector<double>, 3> u;
  std::int64_t index(int x, int y, int z) const { return x + std::int64_t(size[0]) * (y + std::int64_t(size[1]) * z); }
};

/// Health of the current state: mass, fastest cell, first bad cell (global 0-based cell coordinates).
struct Diagnostics {
  double mass = 0.0;                  ///< sum of rho over fluid cells (lattice units)
  double kinetic_energy = 0.0;        ///< sum of |u|^2 / 2 over fluid cells (lattice units, per unit density)
  std::int64_t fluid_cells = 0;       ///< cells with rho != 0 (solid cells read rho = 0)
  double max_speed = 0.0;             ///< max |u| over fluid cells (lattice units)
  std::array<int, 3> fastest_cell{};  ///< 0-based interior coordinates of max |u|
  bool finite = true;                 ///< false if any rho or u is NaN or infinite
  std::array<int, 3> first_nonfinite_cell{};
};

/// Scaling of output: lengths divided by `length` (cells), velocities by `velocity` (lattice), time by
/// length / velocity. The cavity then spans [0, 1] with lid speed 1, and node i sits at (i + 0.5) / length.
struct OutputScaling {
  double length = 1.0;
  double velocity = 1.0;
  /// With [units] the output is in SI instead: length = 1 / dx (cells per m), velocity = dt / dx (lattice per
  /// m/s), so time = step dt; density = rho in kg/m^3 per lattice density; si names the units in the files.
  double density = 1.0;
  bool si = false;
  static OutputScaling of(const CaseConfig& config);
  double time(std::int64_t step) const { return double(step) * velocity / length; }
};

/// One VTK file of the fields: the nodes of `box`, written to `path` (on several ranks: this rank's piece).
struct VtiTarget {
  std::string path;
  OutputBox box;
};

/// A rank's piece of one VTK file, staged in host memory: its extent (size 0: this rank holds none of the box and
/// writes nothing), the bytes it holds, and the write itself, which owns the data and may run on another thread.
struct StagedPiece {
  PieceExtent piece;
  std::size_t bytes = 0;
  std::function<void()> write;  ///< writes the file (temporary name, then renamed); throws OutputError
};

/// The whole evolving state of one rank's block, exactly as stored, for checkpoints (io/checkpoint.hpp): with it
/// and the case, a run continues bit for bit, on any decomposition.
struct RawState {
  std::int64_t step = 0;
  int layout = 0;  ///< PopulationLayout of the population slots (kernels/launchers.hpp)
  /// The 19 population slots of each interior cell as stored (f_i - w_i in the storage type: value_bytes each),
  /// [i * interior_cells + k], k in MacroscopicFields order, after any pending halo exchange: the interior slots then
  /// hold the complete state in either layout (the next exchange refills the ghosts).
  std::vector<unsigned char> populations;
  /// T of the interior cells in the arithmetic type (compute_t of the storage), [k]; empty without [thermal].
  std::vector<unsigned char> temperature;
  /// With particles: this rank's particles, and with two-way coupling the force they apply to the fluid in the next
  /// step on the interior cells (3 components back to back, arithmetic type; empty otherwise).
  ParticleSnapshot particles;
  std::vector<unsigned char> particle_force;
  /// With [statistics]: the running sums of the interior cells exactly as stored (FlowStatistics::interior_bytes:
  /// components x interior cells doubles), the sample count and the first sample's step (-1: none); empty, 0, -1
  /// otherwise. A state with empty sums restores a block with statistics to no samples.
  std::vector<unsigned char> statistics;
  std::int64_t statistics_samples = 0;
  std::int64_t statistics_first_step = -1;
};

/// Slab plan and transfer counters of an out-of-core run (solver/out_of_core_simulation.hpp), summed since the run
/// began; eddy bench --out-of-core reports the difference over its timed steps.
struct OutOfCoreStats {
  int time_block = 0;             ///< k: steps per slab visit
  int slabs = 0;                  ///< slabs of this rank's block
  int buffer_planes = 0;          ///< z-planes of each of the two device buffers
  std::int64_t device_bytes = 0;  ///< the device buffers' bytes
  std::int64_t budget = 0;        ///< the device memory budget (bytes)
  double work_factor = 1.0;       ///< planes updated per step over the block's planes (SlabPlan::work_factor)
  /// The same for the plan eddy chooses from the budget alone, when the case set time_block or slabs (else 0).
  double default_work_factor = 0.0;
  std::int64_t sweeps = 0;                  ///< sweeps over the block (each advances time_block steps or fewer)
  double bytes_up = 0.0, bytes_down = 0.0;  ///< host -> device, device -> host
  /// Sums over the slab visits of the time each phase took on its stream (timing events), and the wall time of
  /// the sweeps: busy fraction of the copy engines and the kernels = phase seconds / total seconds.
  double seconds_up = 0.0, seconds_down = 0.0, seconds_compute = 0.0, seconds_total = 0.0;
};

/// Simulation::population_storage: the device array of the populations as stored, its layout and step.
struct PopulationStorage {
  void* data = nullptr;
  std::size_t bytes = 0;
  int layout = 0;  ///< PopulationLayout (kernels/launchers.hpp)
  std::int64_t step = 0;
};

/// One slab of the macroscopic fields of the current time (Simulation::for_each_moment_slab): `values` holds 4
/// blocks of `slab` values (rho, ux, uy, uz, lattice units) in the arithmetic type (double for double storage,
/// else float: Simulation::temperature_bytes()), of which the first `cells` are interior cells first, first + 1, ...
/// (MacroscopicFields order).
struct MomentSlab {
  const void* values = nullptr;
  std::int64_t slab = 0, first = 0, cells = 0;
};

/// The velocity of a slab of z-planes on the device (Simulation::for_each_velocity_slab), ready for the stencils of
/// the derived fields: `u` holds 3 cell fields of `shape` (arithmetic type, lattice units), ghost cells filled as
/// the in-core exchange would; `scratch` 3 more for the stencils' results. Planes [lo, hi) of `shape` are this
/// rank's interior planes first_plane, first_plane + 1, ... (1-based). Device work goes on `stream`.
struct VelocitySlab {
  void* u[3] = {nullptr, nullptr, nullptr};
  void* scratch[3] = {nullptr, nullptr, nullptr};
  /// The faces of u's outer layer (OuterLayerView of the arithmetic type; null where there is none).
  const void* outer[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  FlagView flags{};
  BlockShape shape{};
  int lo = 0, hi = 0, first_plane = 1;
  const backend::Stream* stream = nullptr;
};

class Simulation {
 public:
  /// Allocates device memory for `config` (finalized) and sets the initial state, for a one-rank run without MPI.
  /// Throws DeviceError (out_of_memory) naming the bytes needed when the domain does not fit.
  static std::unique_ptr<Simulation> create(const CaseConfig& config);
  /// The same for this rank's block of `decomposition` (halo exchange over its communicator); out of core when
  /// the case asks for it or, on "auto", when the block does not fit (solver/out_of_core.hpp).
  static std::unique_ptr<Simulation> create(const CaseConfig& config, const Decomposition& decomposition);
  virtual ~Simulation() = default;

  // ---- Stepping and storage: what each kind of block implements ----------------------------------------------

  /// Advances `steps` time steps (asynchronous on GPUs; synchronize() before timing).
  virtual void advance(std::int64_t steps) = 0;
  /// Waits for queued device work.
  virtual void synchronize() = 0;
  /// Time steps done so far.
  virtual std::int64_t time_step() const = 0;
  /// The first step (0-based index) whose collision found a fluid cell beyond the stability limit, |u| >
  /// kMaxLatticeSpeed or a NaN or infinite moment (the fused kernel's watch, StabilityView in kernels/views.hpp),
  /// or -1 while none has. Cheap, for every few steps: it returns what the device had reported when the previous
  /// call was made, and asks for the current report without waiting for the queued steps. On one rank the fused
  /// kernel then stops updating the populations, and the first call that returns a step s waits for the queued
  /// work and sets the time back to s + 1: fields() and write_vti() show the state right after the instability
  /// appeared (particles and temperature, which go on, as they are). On several ranks each block runs on, and
  /// the state is that of the time of the call. Blocks without the watch (out of core) return -1: their state is
  /// checked at reports.
  virtual std::int64_t unstable_step() { return -1; }
  virtual const Decomposition& decomposition() const = 0;

  /// Post-collision populations f_i (not shifted) of the interior cells, [i * interior_cells + k], k as in
  /// MacroscopicFields.
  virtual std::vector<double> populations() = 0;
  /// Replaces the interior post-collision populations (layout as populations()); the next step streams them. Used
  /// by tests to start from any state.
  virtual void set_populations(const std::vector<double>& f) = 0;

  /// Bytes per cell where the populations live (device in core, host out of core): populations and flags, and with
  /// [thermal] its two T buffers and the three velocity components (5 R).
  virtual std::size_t bytes_per_cell() const = 0;
  /// Device bytes of this rank's block in all: in core populations and flags of every cell, ghost layer included,
  /// the output slab (4 fields for at most 2^24 cells), the particles' fields and arrays and the thermal fields
  /// when present; out of core the slab buffers.
  virtual std::size_t device_bytes() const = 0;
  /// The out-of-core plan and counters; false for an in-core run.
  virtual bool out_of_core(OutOfCoreStats& /*stats*/) const { return false; }

  // ---- Read-outs, written once over the storage (solver/simulation.cpp) --------------------------------------

  /// Fields at the current time (moments of the populations streaming in; at step 0 of the initial populations),
  /// copied to the host. Collective (the pending halo exchange is done first).
  MacroscopicFields fields();
  /// Mass, max |u| and non-finite check of this rank's fields (reduce over ranks with reduce_diagnostics).
  /// Collective like fields().
  Diagnostics diagnose();
  /// Stages the output fields of the case (kOutputFields order) at the current time, scaled by `scaling`, in the
  /// arithmetic precision, for each target: the nodes of its box (solver/output_box.hpp), a .vti on one rank; on
  /// several ranks this rank's piece of the target's path (extended by one node of the box towards its upper
  /// neighbours so pieces join without gaps; nothing where the rank holds none of the box). The fields are read
  /// from the device once for all targets; the files are written when each StagedPiece's write is called (then or
  /// on a background thread, solver/snapshot_writer.hpp), compressed as output.compression says. With
  /// `diagnostics`, the same read-out also gives this rank's diagnose(), bitwise: a step that writes a snapshot and
  /// checks the state reads the populations once. Collective.
  std::vector<StagedPiece> stage_vti(const std::vector<VtiTarget>& targets, const OutputScaling& scaling,
                                     Diagnostics* diagnostics = nullptr);
  /// A field derived from the velocity by finite differences (kernels/stencil_launchers.hpp): "vorticity" (3
  /// components back to back), "q_criterion" or "strain_rate", on this rank's interior cells (MacroscopicFields
  /// order), lattice units (1/step, 1/step^2 for Q). Collective (the velocity's ghost planes are exchanged first).
  /// Throws std::invalid_argument for another name.
  std::vector<double> derived_field(const std::string& name);

  /// The state for a checkpoint: the populations, and T and the particles when present (collective: the pending
  /// halo exchange is done first).
  RawState raw_state();
  /// Hands back the populations of an earlier raw_state() once they are written: the next raw_state() fills that
  /// array instead of a new one (no allocation, no page faults: a checkpoint's staging is then a copy). Kept in
  /// host memory until then.
  void recycle_populations(std::vector<unsigned char>&& populations) { recycled_populations_ = std::move(populations); }
  /// Restores a state taken by raw_state() on any decomposition of the same case (its blocks assembled by the
  /// caller). Throws std::invalid_argument when the sizes do not fit this block and case.
  void set_raw_state(const RawState& state);
  /// Bytes of one stored population value (2, 4 or 8) and of one value of the arithmetic type (temperature,
  /// particle force, read-outs: 4 or 8).
  int population_bytes() const;
  int temperature_bytes() const;
  /// Bytes moved through device memory per fluid cell per step by the fused kernel: 19 populations read and
  /// written, and the flag.
  std::size_t kernel_bytes_per_cell() const;

  // ---- Forces on the [[solid]] bodies (kernels/solid_forces.hpp) -----------------------------------------------

  /// This rank's momentum-exchange sums for the step just taken, kForceSums fixed-point integers per solid (Fx, Fy,
  /// Fz, Tx, Ty, Tz); all zero without cut links. Collective (in core it completes the step first: the interpolated
  /// walls' pass and the pending halo exchange). In core and out of core the same pass over the same populations, so
  /// the same bits (out of core the walls are half-way: interpolated ones are refused there).
  virtual std::vector<unsigned long long> local_solid_force_sums() = 0;

  // ---- Probes ([[output.probe]], solver/probes.hpp) ------------------------------------------------------------

  /// kProbeValues values per cell (kernels/probe_samples.hpp: solid flag, rho, ux, uy, uz, T; lattice units, T 0
  /// without [thermal]) of this rank's interior cells `cells` (0-based local indices, MacroscopicFields order) at
  /// the current time, [j * kProbeValues + v]; the same values as fields() and temperature() there. Only the listed
  /// cells are computed and copied to the host (a small kernel; the list is uploaded when it changes). Collective
  /// (the pending halo exchange). Out of core: throws std::logic_error (no populations on the device to sample).
  virtual std::vector<double> probe_values(const std::vector<std::int64_t>& cells) {
    (void)cells;
    throw not_in_core("probes");
  }

  // ---- Device arrays for zero-copy views (the Python module, python/): in core only ------------------------------
  // Each describes memory the block owns for its whole life; out of core (no such arrays on the device) they throw
  // std::logic_error saying so. GPU builds: device memory, ordered on stream_handle()'s stream.

  /// The populations exactly as stored (f_i - w_i in the storage type, fp16 scaled by kernels/storage.hpp's
  /// Stored<half_t>::kScale), shape (19, nz, ny, nx) over the interior cells, writable: slot i of a cell holds
  /// population i arrived there with population_layout() "own", the post-collision population opp(i) leaving it
  /// with "swapped" (kernels/launchers.hpp PopulationLayout, kernels/streaming.hpp), except that the wall slot
  /// (opp(i), x_f) of an interpolated wall's cut link (kernels/cut_links.hpp) holds the population that wall sends
  /// back to x_f in either layout. The step is completed first (the interpolated walls' pass and the pending halo
  /// exchange; collective), and the exchange redone before the next step where that step reads ghosts, so writes to
  /// the interior are what the next step streams.
  virtual DeviceArray population_array() { throw not_in_core("populations"); }
  /// The whole population array as stored (19 * n_cells values of population_bytes() each, [i * n_cells + cell],
  /// kernels/block.hpp's index, ghost layer included) with its layout and step, after the pending exchange (and
  /// synchronised): everything the next step reads. For the adjoint's kept forward states (solver/adjoint.cpp),
  /// which copies it on the device and may later copy it back and call population_storage_restored. In core only;
  /// collective.
  virtual PopulationStorage population_storage() { throw not_in_core("populations"); }
  /// The caller has copied a state taken by population_storage() back into that array: its layout and step.
  virtual void population_storage_restored(int layout, std::int64_t step) {
    (void)layout;
    (void)step;
    throw not_in_core("populations");
  }
  /// One step, as advance(1), whose fused kernel writes into `spare` (device memory of population_storage()'s bytes)
  /// instead of the simulation's array (out of place, kernels/streaming.hpp); `spare`'s memory then becomes that
  /// array, and the array of before the step is handed back in `spare`: the state population_storage() would have
  /// given before the step (layout and step as then), which survives the step without a copy. For the adjoint's kept
  /// forward states (solver/adjoint.cpp). The slots no step writes (solid cells') keep spare's values. Only while the
  /// run is stable (after an instability the frozen cells write nothing). In core only; std::logic_error with
  /// particles or interpolated walls (not covered) or a spare of another size; collective.
  virtual void advance_into(DeviceBuffer<unsigned char>& spare) {
    (void)spare;
    throw not_in_core("populations");
  }
  /// Makes `state`'s memory the simulation's array (no copy): a state population_storage() gave with `layout` and
  /// `step`, as population_storage_restored takes it; the array of before goes to `state`. std::logic_error for a
  /// buffer of another size. In core only.
  virtual void exchange_population_storage(DeviceBuffer<unsigned char>& state, int layout, std::int64_t step) {
    (void)state;
    (void)layout;
    (void)step;
    throw not_in_core("populations");
  }
  /// Memory that gradient() (solver/adjoint.hpp) keeps between its calls, its forward states' buffers, so that an
  /// optimisation loop does not allocate and touch them again on every call; released with the simulation or here.
  std::shared_ptr<void>& gradient_workspace() { return gradient_workspace_; }
  void release_gradient_memory() { gradient_workspace_.reset(); }
  /// "own" or "swapped": what population_array() holds now (it changes with every step).
  virtual std::string population_layout() const { throw not_in_core("populations"); }
  /// The cell flags (kernels/cell_flags.hpp: kFluid, kFluidNearSolid, kWall, kMovingWall + face), unsigned bytes
  /// of shape (nz, ny, nx), read-only.
  virtual DeviceArray flag_array() { throw not_in_core("flags"); }
  /// T of [thermal] in the arithmetic type, shape (nz, ny, nx), writable: the field the next step advances. T is
  /// held in two buffers that swap with every step: the array is the current one until the next step. Throws
  /// std::logic_error without [thermal].
  virtual DeviceArray temperature_array() { throw not_in_core("temperature"); }
  /// A per-cell force density F (lattice units, the arithmetic type) that every later step adds to [physics]
  /// body_force and any buoyancy in the Guo forcing of the fused kernel, and to the F/2 of every read-out; shape
  /// (nz, ny, nx, 3), writable, components 3 planes apart. The first call allocates it, all zero (3 values per
  /// block cell); from then on the steps run the kernel variant with a per-cell force (kernels/stream_collide.cpp,
  /// Source::coupled). Throws std::logic_error with two-way coupled particles, whose deposit is that per-cell
  /// force.
  virtual DeviceArray force_array() { throw not_in_core("force"); }
  /// A per-cell porosity alpha (the Brinkman drag coefficient, lattice units per step, >= 0: kernels/brinkman.hpp),
  /// shape (nz, ny, nx), writable. The first access allocates it, all zero; from then on every step and read-out
  /// adds the drag F_B = -alpha rho u (implicit in the cell) to the cell's force: alpha = 0 is fluid, large alpha
  /// stops the flow (u ~ F / alpha), for porous media and density-based topology optimisation. It stays until
  /// changed (it is not part of checkpoints). Throws std::logic_error with particles (their coupling reads the
  /// force without it); out of core, not_in_core.
  virtual DeviceArray porosity_array() { throw not_in_core("porosity"); }
  /// Whether porosity_array() has been asked for.
  virtual bool has_porosity() const { return false; }
  /// This block's cut links of the [[solid]] bodies on the device (kernels/cut_links.hpp; interpolated ones first)
  /// and their count, for the adjoint's force objectives; {nullptr, 0} without solids. Out of core: std::logic_error.
  virtual std::pair<const CutLink*, std::int64_t> device_cut_links() { throw not_in_core("cut links"); }
  /// Writes the macroscopic fields of the current time (as fields(): moments of the arrived populations with the
  /// F/2 shift) into device memory at `out`: 4 blocks of interior_cells values (rho, ux, uy, uz; lattice units, the
  /// arithmetic type, MacroscopicFields order), queued on the stream. Collective (the pending halo exchange).
  virtual void moments_to_device(void* out) {
    (void)out;
    throw not_in_core("density and velocity");
  }
  /// The average `name` of [statistics] (kOutputFields, source statistics) of this rank's interior cells into device
  /// memory at `out`: its 1, 3 or 6 components as blocks of interior_cells doubles (MacroscopicFields order; lattice
  /// units; 0 in solids, NaN before the first sample), computed from the sums on the device (statistics_readout,
  /// kernels/statistics_launchers.hpp), queued on the stream. Throws std::logic_error without [statistics],
  /// std::invalid_argument for a name the sums do not hold (statistics_quantity).
  virtual void statistics_to_device(const std::string& name, double* out) {
    (void)name;
    (void)out;
    throw not_in_core("statistics");
  }
  /// This rank's particles' positions and velocities (cells, cells per step; doubles) into device memory at `out`:
  /// 6 blocks of local_particle_count() values x, y, z, vx, vy, vz. Throws std::logic_error without [particles].
  virtual void particles_to_device(double* out) {
    (void)out;
    throw not_in_core("particles");
  }
  /// Particles on this rank now (0 without [particles]).
  virtual std::int64_t local_particle_count() const { return 0; }
  /// The runtime stream (cudaStream_t / hipStream_t) the block's device work is queued on; nullptr on cpu.
  virtual void* stream_handle() const { return nullptr; }
  /// Makes the block's later work wait for the work queued so far on the runtime stream `stream` (a handle as
  /// CUDA and HIP take it: nullptr for the default stream), and `stream`'s later work wait for the block's work
  /// so far, as `before` and `after` ask. No-op on cpu.
  void order_with_stream(void* stream, bool before, bool after);

  // ---- Optional components: particles ([particles]) and the temperature field ([thermal]) ----------------------

  /// This rank's particles (solver/particle_system.hpp), advanced with every step; nullptr without [particles].
  ParticleComponent* particle_system() const { return particle_component_; }
  /// The temperature field (solver/thermal_field.hpp), advanced with every step; nullptr without [thermal].
  ThermalComponent* thermal_field() const { return thermal_component_; }

  bool has_particles() const { return particle_component_ != nullptr; }
  /// This rank's particles on the host (empty without particles).
  ParticleSnapshot particles() const {
    return particle_component_ ? particle_component_->snapshot() : ParticleSnapshot();
  }
  /// Particles on all ranks (collective; 0 without particles).
  std::int64_t particle_count() const { return particle_component_ ? particle_component_->global_count() : 0; }
  /// Health of the particles on all ranks (collective; all finite and no particle at speed 0 without particles).
  ParticleDiagnostics particle_diagnostics() const {
    return particle_component_ ? particle_component_->diagnose() : ParticleDiagnostics();
  }
  /// Force the particles apply to this rank's fluid in the next step (two-way coupling; else zero), lattice units.
  std::array<double, 3> particle_force_on_fluid() const {
    return particle_component_ ? particle_component_->force_on_fluid() : std::array<double, 3>{0.0, 0.0, 0.0};
  }

  /// The running sums of [statistics] (solver/flow_statistics.hpp), added to by every sampled step; nullptr without
  /// [statistics].
  const FlowStatistics* flow_statistics() const { return statistics_component_; }
  bool has_statistics() const { return statistics_component_ != nullptr; }
  /// This rank's statistics sums on the host (waits for the queued device work). Throws std::logic_error without
  /// [statistics].
  StatisticsSums statistics_sums() const;
  /// Statistics field `name` (kOutputFields, source statistics) of this rank's interior cells, components back to back
  /// (MacroscopicFields order), lattice units (statistics_field_values; NaN before the first sample, 0 in solids).
  /// Throws std::logic_error without [statistics], std::invalid_argument for a field the sums do not hold.
  std::vector<double> statistics_field(const std::string& name) const;

  bool has_thermal() const { return thermal_component_ != nullptr; }
  /// T on this rank's interior cells (MacroscopicFields order), lattice units; empty without [thermal].
  std::vector<double> temperature() const {
    return thermal_component_ ? thermal_component_->interior() : std::vector<double>();
  }
  /// Replaces T on the interior cells (layout as temperature()); used by tests. Throws std::logic_error without
  /// [thermal].
  void set_temperature(const std::vector<double>& t);
  /// Heat entering the fluid per step through each domain face (kFaceNames order), summed over the face and the
  /// ranks; 0 for faces that are not fixed-temperature walls and without [thermal]. Collective.
  std::array<double, 6> face_heat_inflow() const {
    return thermal_component_ ? thermal_component_->face_inflow() : std::array<double, 6>{};
  }
  /// Range, total and finiteness of T on all ranks (collective; defaults without [thermal]).
  ThermalDiagnostics thermal_diagnostics() const {
    return thermal_component_ ? thermal_component_->diagnose() : ThermalDiagnostics();
  }

  const CaseConfig& config() const { return config_; }
  /// What the set-up found about each [[solid]] (solver/block_solids.hpp: cells covered, a mesh's triangles and
  /// odd rays, the voxelisation time), over all ranks; empty without solids. The meshes' triangles (lattice
  /// coordinates) are config().solids[k].surface.
  const std::vector<SolidSummary>& solid_summary() const { return solid_summary_; }

 protected:
  explicit Simulation(const CaseConfig& config) : config_(config) {}

  /// Computes the macroscopic fields of the current time slab by slab and calls fn for each (MomentSlab says
  /// what it holds); the slabs cover the interior in order. Collective (the pending halo exchange is done first).
  virtual void for_each_moment_slab(const std::function<void(const MomentSlab&)>& fn) = 0;
  /// Computes the velocity of the current time with its ghost cells slab by slab and calls fn for each
  /// (VelocitySlab says what it holds); the slabs' interior planes cover the block in order. Collective.
  virtual void for_each_velocity_slab(const std::function<void(const VelocitySlab&)>& fn) = 0;
  /// The step, the layout and the interior population slots of RawState (collective like raw_state()).
  virtual RawState raw_populations() = 0;
  /// The array recycle_populations() gave back (empty when none), for raw_populations() to fill.
  std::vector<unsigned char> take_recycled_populations() { return std::move(recycled_populations_); }
  /// Restores what raw_populations() took, from a state whose sizes set_raw_state() checked.
  virtual void restore_populations(const RawState& state) = 0;

  /// Registers the block's components (owned by the derived class, which lives as long as they do).
  void attach(ParticleComponent* particles, ThermalComponent* thermal, FlowStatistics* statistics = nullptr) {
    particle_component_ = particles;
    thermal_component_ = thermal;
    statistics_component_ = statistics;
  }

  CaseConfig config_;
  std::vector<SolidSummary> solid_summary_;  ///< set by the derived class's set-up
  /// The `solid` output field of this rank's interior cells (solid_labels, solver/lattice_setup.hpp), found once at
  /// set-up from the block's solids when the case writes that field (set_up_solid_labels); empty otherwise.
  std::vector<std::int32_t> solid_labels_;
  /// Sets solid_labels_ from `solids`, the block's BlockSolids (`margin_z`: the planes an out-of-core block's
  /// extended one has before this rank's own), when the case writes the `solid` field.
  void set_up_solid_labels(const BlockSolids& solids, int margin_z);

 private:
  template <class R>
  std::vector<R> moments();
  template <class R>
  std::vector<R> derived_values(const OutputScaling& scaling, const std::vector<std::string>& names);
  template <class R>
  std::vector<StagedPiece> stage_pieces(const std::vector<VtiTarget>& targets, const OutputScaling& scaling,
                                        Diagnostics* diagnostics);
  /// The host array stage_pieces fills, kept between snapshots (no allocation and no page faults at the next one)
  /// unless a staged write still holds it; one per arithmetic type.
  template <class R>
  std::shared_ptr<std::vector<R>>& staging_buffer();
  std::vector<unsigned char> recycled_populations_;
  std::shared_ptr<std::vector<float>> staging_float_;
  std::shared_ptr<std::vector<double>> staging_double_;

  /// The error of a device array that an out-of-core block does not have.
  static std::logic_error not_in_core(const std::string& what) {
    return std::logic_error(what +
                            ": not available out of core (the populations live in host memory); run the case "
                            "in core (numerics.out_of_core = false)");
  }

  ParticleComponent* particle_component_ = nullptr;
  ThermalComponent* thermal_component_ = nullptr;
  FlowStatistics* statistics_component_ = nullptr;
  std::shared_ptr<void> gradient_workspace_;
};

}  // namespace eddy
