// `eddy bench`: throughput of the fused kernel on a lid-driven cavity N^3, following a GPU benchmark method:
// warm-up excluded, device synchronised before and after each timed region, several repetitions, mean and
// standard deviation, effective bandwidth, host-device transfers timed separately, and the device's own
// copy bandwidth measured in the same run for comparison.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/simulation.hpp"

namespace eddy {

struct BenchOptions {
  int size = 128;                ///< N: cells per axis of the N^3 cavity
  std::optional<std::array<int, 3>> grid;  ///< --grid: a non-cubic global grid instead of size
  HaloTransport transport = HaloTransport::host;  ///< halo transport when run on several MPI ranks
  bool overlap = true;           ///< overlap the halo exchange with interior updates
  std::int64_t steps = 0;        ///< steps per repetition; 0 = calibrate to about 1 s per repetition
  int repetitions = 5;
  std::int64_t warmup_steps = 10;
  Precision precision = Precision::float32;
  Collision collision = Collision::trt;
  std::string json_path;         ///< write results as JSON here when not empty
  int block_size_x = 128;        ///< GPU threads per block along x (used when block_size_given)
  bool block_size_given = false;
  /// The fused kernel's odd step on GPUs: "staged" (x-shifted stores through shared memory, the default) or
  /// "direct" (every store at its slot); kernels/odd_step_stage.hpp.
  std::string odd_step = "staged";
  /// Inertial particles seeded uniformly in the cavity (0: none); the bench then also times the same steps
  /// without particles and reports the particle step's cost.
  std::int64_t particles = 0;
  /// Particle-particle forces with particles: "none", "contacts" (cell list), "contacts_all_pairs" (the same
  /// contacts over all pairs) or "gravity" (all pairs).
  std::string particle_forces = "none";
  /// Also time the stencil operators (vorticity, Q-criterion) on the grid, plain against tiled.
  bool stencils = false;
  /// A buoyant temperature field ([thermal]: Pr 0.71, Ra 1e5, hot wall x_min, cold x_max) in the cavity; the bench
  /// then also times the same steps without it and reports the thermal step's cost.
  bool thermal = false;
  /// Run out of core (solver/out_of_core.hpp) within a device budget of memory_limit ("8 GiB"; empty: 90 % of the
  /// free device memory), with time_block and slabs (0: chosen from the budget); the bench then also times the same
  /// grid in core, when it fits, and reports the host-device traffic and how busy the copy engines and kernels were.
  bool out_of_core = false;
  /// --voxelise: time the device voxeliser on a UV sphere of about this many triangles instead of the fluid
  /// (solver/bench_voxelise.hpp); 0: off.
  std::int64_t voxelise_triangles = 0;
  std::string memory_limit;
  bool memory_limit_given = false;
  int time_block = 0;
  int slabs = 0;
  /// --solid: "none" (the lid-driven cavity) or "sphere": a sphere of diameter N/4 (N = the smallest of the grid's
  /// axes) with interpolated walls in a channel along x, a uniform velocity inlet (u = 0.05, no ramp) at x_min, a
  /// pressure outlet (rho = 1) at x_max, free-slip y and z faces; the bench then also times the empty cavity on the
  /// same grid in the same run and reports the body case's share of it (issue 22's target: >= 95 % at 512^3).
  std::string solid = "none";
  /// --les: the Smagorinsky model in the fused kernel ([numerics] les), timed beside the plain kernel in the same run.
  bool les = false;
};

struct BenchResult {
  std::string backend, device, precision;
  std::array<int, 3> grid = {0, 0, 0};
  int ranks = 1;
  std::int64_t steps = 0;
  std::vector<double> mlups;           ///< one value per repetition
  double mlups_mean = 0, mlups_sd = 0;
  double bytes_per_cell_step = 0;      ///< fused kernel traffic per cell update
  double bandwidth_gbs = 0;            ///< bytes_per_cell_step * mean updates per second
  double copy_bandwidth_gbs = 0;       ///< device-to-device memcpy, bytes read + written per second
  double stream_copy_gbs = 0;          ///< STREAM Copy through parallel_for (all threads / GPU launch), best of 10
  int block_size_x = 0;                ///< GPU threads per block along x used (0 on cpu)
  std::string odd_step;                ///< the odd step's launch on GPUs ("staged", "direct"; empty on cpu)
  double copy_bytes = 0;               ///< bytes of each copy reference: the population array, or less when memory is short
  double transfer_bytes = 0;           ///< bytes of the timed transfers: the population array, at most 1 GiB
  double upload_seconds = 0;           ///< host -> device copy of transfer_bytes
  double download_seconds = 0;         ///< device -> host copy of transfer_bytes
  double memory_per_cell = 0;          ///< device bytes per interior cell (populations + flags, ghost layer and row padding included)
  bool state_finite = false;           ///< the benchmarked state stayed finite and mass-conserving
  double mass_drift = 0;
  std::int64_t particles = 0;          ///< particles at the end (all ranks)
  std::string particle_forces;         ///< --particle-forces of the run
  /// --stencils: milliseconds per call of vorticity and Q-criterion, plain and tiled (one rank's block).
  double vorticity_plain_ms = 0, vorticity_tiled_ms = 0, q_plain_ms = 0, q_tiled_ms = 0;
  double stencil_cells = 0;  ///< interior cells of the block they ran on (for their GB/s)
  bool thermal = false;                 ///< the run had a temperature field (--thermal)
  double thermal_seconds_per_step = 0;  ///< step time with the temperature field minus without
  double lattice_only_mlups = 0;       ///< the same steps without particles and temperature (when either is on)
  double particle_seconds_per_step = 0;  ///< step time with particles minus without
  double particles_per_second = 0;     ///< particle updates per second of particle step time
  /// Ghost particles (contacts across ranks and periodic faces, solver/particle_ghosts.hpp), over every step of the
  /// run with particles (warm-up and calibration included), the slowest rank: seconds of the exchange per step
  /// (waiting for the neighbours included), and the ghost copies a rank received per step (the most of any rank).
  /// 0 without ghosts.
  double ghost_seconds_per_step = 0;
  double ghosts_per_step = 0;
  /// --out-of-core: the plan, and the counters summed over the timed repetitions (rank 0's block).
  bool out_of_core = false;
  OutOfCoreStats out_of_core_stats;
  double host_bytes = 0;      ///< pinned host bytes of rank 0's populations
  double in_core_mlups = 0;   ///< the same grid in core, same run (0: it did not fit on the device)
  /// --solid sphere: the empty cavity on the same grid, timed the same way in the same run; the sphere's solid cells
  /// and cut links (interpolated walls, all ranks).
  double empty_mlups = 0;
  /// --les: the same case without the model, timed the same way in the same run.
  double plain_mlups = 0;
  std::int64_t solid_cells = 0;
  std::int64_t cut_links = 0;
};

/// Runs the benchmark on the ranks of `world` (collective; MLUPS count the whole grid, each repetition timed by
/// the slowest rank); only rank 0 logs. Throws CollectiveInputError on bad options, DeviceError when the domain
/// does not fit.
BenchResult run_bench(const BenchOptions& options, MPI_Comm world, std::ostream& log);

}  // namespace eddy
