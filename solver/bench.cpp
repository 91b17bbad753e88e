#include "solver/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "solver/bench_references.hpp"
#include "solver/bench_report.hpp"
#include "solver/bench_voxelise.hpp"
#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/precision.hpp"
#include "solver/rank_device.hpp"
#include "solver/reductions.hpp"
#include "solver/simulation.hpp"
#include "solver/timing.hpp"

namespace eddy {

namespace {

/// A message about the bench's case in the bench's own terms: its options instead of the case keys they set.
std::string with_bench_options(std::string text) {
  const std::pair<const char*, const char*> names[] = {{"case: ", "bench: "},
                                                       {"numerics.device_memory_limit", "--memory-limit"},
                                                       {"numerics.time_block", "--time-block"},
                                                       {"numerics.slabs", "--slabs"}};
  for (const auto& [key, option] : names) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + std::strlen(option))) {
      text.replace(at, std::strlen(key), option);
    }
  }
  return text;
}

/// Bytes of --memory-limit: "<number> <unit>" like the case key, or an integer number of bytes.
std::int64_t memory_limit_bytes(const std::string& text) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  std::optional<std::int64_t> bytes;
  if (digits && text.size() <= 18) {
    bytes = std::stoll(text);
    if (*bytes < 1 || *bytes > (std::int64_t(1) << 60)) bytes.reset();
  } else {
    bytes = memory_size_bytes(text);
  }
  if (!bytes) {
    throw InputError("bench: --memory-limit \"" + text +
                     "\" is not a memory size of 1 byte to 2^60 bytes: write \"<number> <unit>\", e.g. \"8 GiB\" (units "
                     "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), or an integer number of bytes");
  }
  return *bytes;
}

/// --solid sphere's body case on the grid of `c` (BenchOptions::solid): a sphere of diameter D = N/4 (N the
/// smallest axis, at least 1 cell) at (N/2 + 0.3, ny/2 + 0.2, nz/2 + 0.1) -- a centre off the lattice, so the wall
/// distances q vary link by link -- with interpolated walls, in a channel: x_min a uniform velocity inlet at
/// u = 0.05 (Ma 0.087) from the first step, x_max a pressure outlet at rho = 1, free-slip y and z faces (a wind
/// tunnel's far field). In 2D grids (nz = 1) the sphere becomes a disc across z (z periodic).
void make_sphere_channel(CaseConfig& c) {
  c.name = "bench_sphere_channel";
  const double u = 0.05;
  c.velocity = u;
  for (FaceBoundary& face : c.faces) face = FaceBoundary{};  // no lid
  c.faces[0].kind = FaceKind::velocity_inlet;
  c.faces[0].profile = InletProfile::uniform;
  c.faces[0].velocity = {u, 0.0, 0.0};
  c.faces[1].kind = FaceKind::pressure_outlet;
  c.faces[1].density = 1.0;
  for (int face = 2; face < 6; ++face) c.faces[face].kind = FaceKind::free_slip;
  if (c.size[2] == 1) c.faces[4].kind = c.faces[5].kind = FaceKind::periodic;
  const int n = std::min({c.size[0], c.size[1], c.size[2] == 1 ? c.size[1] : c.size[2]});
  if (n < 8) {
    throw InputError("bench: --solid sphere needs at least 8 cells along x and y (and z, unless it is 1): the sphere's "
                     "diameter is N/4 of the smallest of them, " + std::to_string(n) + " here");
  }
  SolidConfig sphere;
  sphere.name = "sphere";
  sphere.shape = SolidShape::sphere;
  sphere.radius = n / 8.0;
  sphere.center = {c.size[0] / 2.0 + 0.3, c.size[1] / 2.0 + 0.2, c.size[2] / 2.0 + 0.1};
  sphere.wall = SolidWall::interpolated;
  c.solids.push_back(sphere);
  c.length = 2.0 * sphere.radius;
}

CaseConfig bench_case(const BenchOptions& o) {
  CaseConfig c;
  c.name = "bench_cavity";
  c.size = o.grid ? *o.grid : std::array<int, 3>{o.size, o.size, o.size};
  c.length = c.size[0];
  c.parallel.transport = o.transport;
  c.parallel.overlap = o.overlap;
  for (auto& face : c.faces) face.kind = FaceKind::wall;
  c.faces[3].kind = FaceKind::moving_wall;
  c.faces[3].velocity = {0.1, 0.0, 0.0};
  c.velocity = 0.1;
  if (o.solid == "sphere") {
    if (o.particles > 0 || o.thermal || o.out_of_core) {
      throw InputError("bench: --solid sphere runs the fluid in core only: leave out --particles, --thermal and "
                       "--out-of-core");
    }
    make_sphere_channel(c);
  } else if (o.solid != "none") {
    throw InputError("bench: --solid must be \"none\" or \"sphere\" (got \"" + o.solid + "\")");
  }
  c.tau = 0.6;  // stable at every size (a fixed Re would push tau towards 1/2 on small grids)
  if (o.les) c.les = LesModel::smagorinsky;
  c.collision = o.collision;
  c.precision = o.precision;
  c.steps = 1;
  c.write_vtk = false;
  if (o.out_of_core) {
    if (o.particles > 0 || o.stencils) {
      // --thermal is fine: the temperature travels with the slabs, and the thermal line compares the run with the
      // same grid out of core without it (the fluid-only out-of-core rate), the in-core line with T in core.
      throw InputError(
          "bench: --out-of-core runs no particles (out of core refuses them) and no --stencils: leave "
          "out --particles and --stencils");
    }
    c.out_of_core.mode = OutOfCoreMode::on;
    c.out_of_core.time_block = o.time_block;
    c.out_of_core.slabs = o.slabs;
    if (o.memory_limit_given) c.out_of_core.device_memory_limit = memory_limit_bytes(o.memory_limit);
  } else if (o.time_block != 0 || o.slabs != 0 || o.memory_limit_given) {
    throw InputError("bench: --time-block, --slabs and --memory-limit apply only with --out-of-core");
  } else {
    c.out_of_core.mode = OutOfCoreMode::off;  // the in-core kernel is what the bench measures
  }
  if (o.particles == 0 && o.particle_forces != "none") {
    throw InputError("bench: --particle-forces " + o.particle_forces + " needs --particles N (N > 0)");
  }
  if (o.particles > 0) {
    // Inertial spheres of half a cell, twice the fluid density, settling slowly; contacts need overlaps to find.
    ParticleConfig& p = c.particles;
    p.enabled = true;
    p.kind = ParticleKind::inertial;
    p.count = o.particles;
    p.diameter = 0.5;
    p.density = 2.0;
    p.gravity = {0.0, -1e-6, 0.0};
    if (o.particle_forces == "contacts" || o.particle_forces == "contacts_all_pairs") {
      p.contacts = true;
      p.contact_stiffness = 1e-3;
      p.contact_damping = 1e-4;
      p.contact_search = o.particle_forces == "contacts" ? ContactSearch::cell_list : ContactSearch::all_pairs;
    } else if (o.particle_forces == "gravity") {
      p.pair_force = PairForce::gravity;
      p.gravity_constant = 1e-9;
      p.softening = 1.0;
    } else if (o.particle_forces != "none") {
      throw InputError(
          "bench: --particle-forces must be \"none\", \"contacts\", \"contacts_all_pairs\" or \"gravity\" (got \"" +
          o.particle_forces + "\")");
    }
  }
  if (o.thermal) {
    ThermalConfig& t = c.thermal;
    t.enabled = true;
    t.prandtl = 0.71;
    t.rayleigh = 1e5;
    t.walls[0] = ThermalWall::fixed;
    t.wall_temperature[0] = 0.5;
    t.walls[1] = ThermalWall::fixed;
    t.wall_temperature[1] = -0.5;
  }
  finalize_case(c);
  return c;
}

/// The checks of the options that need no case (every rank has the same options: collective errors).
void check_options(const BenchOptions& o) {
  if (o.grid && ((*o.grid)[0] < 2 || (*o.grid)[1] < 2 || (*o.grid)[2] < 1)) {
    throw CollectiveInputError("bench: --grid needs NX >= 2, NY >= 2, NZ >= 1");
  }
  if (!o.grid && o.size < 2) {
    throw CollectiveInputError("bench: --size must be >= 2 (got " + std::to_string(o.size) + ")");
  }
  if (o.repetitions < 1) throw CollectiveInputError("bench: --repeat must be >= 1");
  if (o.steps < 0) throw CollectiveInputError("bench: --steps must be >= 0 (0 = calibrate)");
  if (o.warmup_steps < 0) throw CollectiveInputError("bench: --warmup must be >= 0");
  if (o.block_size_given) {
    try {
      backend::set_block_size_x(o.block_size_x);
    } catch (const std::invalid_argument& e) {
      throw CollectiveInputError(std::string("bench: --block-x: ") + e.what());
    }
  }
  backend::set_odd_step_staging(o.odd_step == "staged");
}

/// The simulation of `config`, with the out-of-core plan's input errors made collective (every rank agrees on
/// them, solver/out_of_core.cpp) and named in the bench's options.
std::unique_ptr<Simulation> bench_simulation(const CaseConfig& config, const Decomposition& decomposition) {
  try {
    return Simulation::create(config, decomposition);
  } catch (const RankCountError&) {
    throw;
  } catch (const InputError& e) {
    throw CollectiveInputError(with_bench_options(e.what()));
  }
}

/// Warm-up (not timed), one timed calibration sweep that sets the steps per repetition to about one second (the
/// same count on every rank, 5 to 100,000, even, whole out-of-core sweeps), then the timed repetitions: r.steps,
/// r.mlups and their mean and spread, the bandwidth, and out of core the counters of the timed repetitions.
void time_lattice(Simulation& sim, const Decomposition& d, const BenchOptions& o, double cells, BenchResult& r) {
  sim.synchronize();
  sim.advance(o.warmup_steps);
  OutOfCoreStats before;
  r.out_of_core = sim.out_of_core(before);
  const std::int64_t block = r.out_of_core ? before.time_block : 1;  // out of core, steps come in sweeps
  const double per_step = std::max(timed_steps(sim, d, block) / double(block), 1e-5);
  r.steps = o.steps > 0 ? o.steps : std::clamp<std::int64_t>(std::int64_t(1.0 / per_step), 5, 100000);
  r.steps += r.steps % 2;  // in-place streaming alternates two kinds of step: time both equally
  const std::int64_t unit = block % 2 == 0 ? block : 2 * block;
  r.steps = (r.steps + unit - 1) / unit * unit;

  sim.out_of_core(before);
  for (int rep = 0; rep < o.repetitions; ++rep) r.mlups.push_back(mlups(cells, double(r.steps), timed_steps(sim, d, r.steps)));
  for (double m : r.mlups) r.mlups_mean += m / r.mlups.size();
  for (double m : r.mlups) r.mlups_sd += (m - r.mlups_mean) * (m - r.mlups_mean);
  r.mlups_sd = r.mlups.size() > 1 ? std::sqrt(r.mlups_sd / (r.mlups.size() - 1)) : 0.0;
  r.bandwidth_gbs = r.bytes_per_cell_step * r.mlups_mean * 1e6 * 1e-9;
  if (r.out_of_core) {
    sim.out_of_core(r.out_of_core_stats);
    OutOfCoreStats& t = r.out_of_core_stats;  // the timed repetitions only
    t.sweeps -= before.sweeps;
    t.bytes_up -= before.bytes_up;
    t.bytes_down -= before.bytes_down;
    t.seconds_up -= before.seconds_up;
    t.seconds_down -= before.seconds_down;
    t.seconds_compute -= before.seconds_compute;
    t.seconds_total -= before.seconds_total;
    r.host_bytes = double(sim.bytes_per_cell()) * double(block_shape(d).n_cells());
  }
}

/// The cost of particles and temperature: the same steps on the same grid without them, timed the same way.
void time_extras(const CaseConfig& config, const Decomposition& d, const BenchOptions& o, double cells,
                 BenchResult& r) {
  const double with = cells * 1e-6 / r.mlups_mean;
  CaseConfig plain = config;
  plain.particles = ParticleConfig{};
  plain.thermal = ThermalConfig{};
  auto lattice_only = Simulation::create(plain, d);
  const double without = seconds_per_step(*lattice_only, d, o.warmup_steps, r.steps, o.repetitions);
  r.lattice_only_mlups = cells * 1e-6 / without;
  // A difference of two timings: when noise exceeds it (a loaded host), it is reported as 0 (below the noise).
  const double extra = std::max(with - without, 0.0);
  if (o.particles > 0) r.particle_seconds_per_step = extra;  // both together: the cost of both
  if (o.thermal) r.thermal_seconds_per_step = extra;
  r.particles_per_second = r.particle_seconds_per_step > 0 ? double(r.particles) / r.particle_seconds_per_step : 0.0;
}

/// The ghost exchange's share of the run with particles (timed inside it, solver/particle_ghosts.hpp): seconds
/// and ghosts per step, the largest over the ranks (each step waits for the slowest).
void time_ghost_exchange(const ParticleComponent& particles, const Decomposition& d, BenchResult& r) {
  const GhostExchangeStats s = particles.ghost_stats();
  double mine[2] = {s.exchanges > 0 ? s.seconds / double(s.exchanges) : 0.0,
                    s.exchanges > 0 ? double(s.ghosts) / double(s.exchanges) : 0.0};
  double most[2] = {mine[0], mine[1]};
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, d.comm));
  r.ghost_seconds_per_step = most[0];
  r.ghosts_per_step = most[1];
}

/// --solid: the body's solid cells and cut links (all ranks), and the empty cavity on the same grid, timed the same
/// way (the cavity case of the same options without the body).
void time_empty_cavity(const CaseConfig& config, const Decomposition& d, const BenchOptions& o, double cells,
                       BenchResult& r) {
  const std::vector<CellFlag> flags = build_flags(config, d);
  const BlockShape shape = block_shape(d);
  long long counts[2] = {0, std::int64_t(cut_links(config, d, flags).links.size())};
  for (int z = 1; z <= shape.n[2]; ++z) {
    for (int y = 1; y <= shape.n[1]; ++y) {
      for (int x = 1; x <= shape.n[0]; ++x) counts[0] += flags[shape.index(x, y, z)] == kWall;
    }
  }
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, d.comm));
  r.solid_cells = counts[0];
  r.cut_links = counts[1];
  BenchOptions empty = o;
  empty.solid = "none";
  auto cavity = Simulation::create(bench_case(empty), d);
  r.empty_mlups = cells * 1e-6 / seconds_per_step(*cavity, d, o.warmup_steps, r.steps, o.repetitions);
}

/// --les: the same case with the plain kernel, timed the same way.
void time_plain_kernel(const Decomposition& d, const BenchOptions& o, double cells, BenchResult& r) {
  BenchOptions plain = o;
  plain.les = false;
  auto sim = Simulation::create(bench_case(plain), d);
  r.plain_mlups = cells * 1e-6 / seconds_per_step(*sim, d, o.warmup_steps, r.steps, o.repetitions);
}

/// The in-core reference of an out-of-core bench: the same grid and steps in device memory, when it fits there.
void time_in_core(const CaseConfig& config, const Decomposition& d, const BenchOptions& o, double cells,
                  BenchResult& r, std::ostream& log) {
  CaseConfig in_core = config;
  in_core.out_of_core = OutOfCoreConfig{};
  in_core.out_of_core.mode = OutOfCoreMode::off;
  std::unique_ptr<Simulation> reference;
  try {
    reference = Simulation::create(in_core, d);
  } catch (const DeviceError& e) {
    if (!e.out_of_memory()) throw;
    log << "  in-core        does not fit on the device: " << e.what() << "\n";
  }
  if (reference) r.in_core_mlups = cells * 1e-6 / seconds_per_step(*reference, d, o.warmup_steps, r.steps, o.repetitions);
}

/// The device's transfer and copy figures over the population array's bytes (the device must be free).
void measure_device(const Decomposition& d, const BenchOptions& o, BenchResult& r) {
  const std::size_t local_cells = std::size_t(d.local_size[0]) * d.local_size[1] * d.local_size[2];
  const std::size_t population_bytes = std::size_t(d3q19::Q) * local_cells * storage_bytes(o.precision);
  measure_transfers(population_bytes, r);
  // The copy references need two buffers: over the population array's bytes when that fits in 40 % of the free
  // memory (a domain that fills the device leaves room for neither), else over as much as fits.
  const std::size_t free_bytes = backend::device_info(backend::current_device()).free_memory;
  const std::size_t copy_bytes =
      free_bytes > 0 ? std::min(population_bytes, std::size_t(0.4 * double(free_bytes))) : population_bytes;
  r.copy_bytes = double(copy_bytes);
  r.copy_bandwidth_gbs = copy_bandwidth(copy_bytes, 10);
  r.stream_copy_gbs = stream_copy_bandwidth(copy_bytes, 10);
}

/// The line printed before the timing starts: what runs where.
void log_start(const CaseConfig& config, const Decomposition& d, const BenchOptions& o, const BenchResult& r,
               std::ostream& log) {
  log << "bench: " << (o.solid == "sphere" ? "sphere in a channel (inlet, outlet, interpolated walls) "
                                            : "lid-driven cavity ")
      << config.size[0] << " x " << config.size[1] << " x " << config.size[2] << ", "
      << r.precision << " storage" << (o.les ? ", Smagorinsky LES" : "") << ", " << r.backend << " on " << r.device;
  if (d.size > 1) {
    log << ", " << d.size << " ranks as " << d.dims[0] << " x " << d.dims[1] << " x " << d.dims[2]
        << ", transport " << transport_name(o.transport) << (o.overlap ? ", overlap on" : ", overlap off");
  }
  log << "\n";
}

}  // namespace

BenchResult run_bench(const BenchOptions& o, MPI_Comm world, std::ostream& rank0_log) {
  check_options(o);
  if (o.voxelise_triangles > 0) {
    run_voxelise_bench(o, world, rank0_log);
    return BenchResult{};
  }
  CaseConfig config;
  try {
    config = bench_case(o);
  } catch (const InputError& e) {
    throw CollectiveInputError(with_bench_options(e.what()));
  }
  const Decomposition decomposition = decompose(config, world);
  std::ostream null_log(nullptr);
  std::ostream& log = decomposition.rank == 0 ? rank0_log : null_log;
  const backend::DeviceInfo device = backend::device_info(select_rank_device(config, world));
  std::unique_ptr<Simulation> sim = bench_simulation(config, decomposition);
  const double cells = double(config.size[0]) * config.size[1] * config.size[2];

  BenchResult r;
  r.backend = backend::name();
  r.device = device.name;
  r.precision = precision_name(o.precision);
  r.grid = config.size;
  r.ranks = decomposition.size;
  r.block_size_x = backend::is_gpu() ? backend::block_size_x() : 0;
  r.odd_step = !backend::is_gpu() ? "" : o.odd_step;
  r.bytes_per_cell_step = double(sim->kernel_bytes_per_cell());
  // Per interior cell: the stored cells include the ghost layer and the row padding (kernels/block.hpp).
  const BlockShape shape = block_shape(decomposition);
  r.memory_per_cell = double(sim->bytes_per_cell()) * double(shape.n_cells()) / double(shape.interior_cells());
  log_start(config, decomposition, o, r, log);

  const double mass0 = reduce_diagnostics(sim->diagnose(), decomposition).mass;
  if (sim->particle_system()) sim->particle_system()->time_ghost_exchange(true);
  time_lattice(*sim, decomposition, o, cells, r);
  if (sim->particle_system()) time_ghost_exchange(*sim->particle_system(), decomposition, r);
  const Diagnostics d = reduce_diagnostics(sim->diagnose(), decomposition);
  r.state_finite = d.finite;
  r.mass_drift = d.mass / mass0 - 1.0;
  if (!d.finite) {
    throw InstabilityError("bench: the benchmarked state is not finite after the timed steps (first bad cell " +
                           std::to_string(d.first_nonfinite_cell[0]) + ", " + std::to_string(d.first_nonfinite_cell[1]) +
                           ", " + std::to_string(d.first_nonfinite_cell[2]) + "); its timings are not reported");
  }
  if (o.particles > 0 || o.thermal) {
    r.particles = sim->particle_count();
    r.particle_forces = o.particle_forces;
    r.thermal = o.thermal;
  }
  sim.reset();  // each measurement below has the device to itself
  if (o.particles > 0 || o.thermal) time_extras(config, decomposition, o, cells, r);
  if (o.stencils) time_stencils(config, decomposition, r);
  if (r.out_of_core) time_in_core(config, decomposition, o, cells, r, log);
  if (o.solid != "none") time_empty_cavity(config, decomposition, o, cells, r);
  if (o.les) time_plain_kernel(decomposition, o, cells, r);
  measure_device(decomposition, o, r);

  const std::vector<ReportRow> rows = bench_report(r, o);
  log << report_text(rows);
  if (!o.json_path.empty() && decomposition.rank == 0) {
    write_file_atomically(o.json_path, report_json(rows));
    log << "  wrote " << o.json_path << "\n";
  }
  return r;
}

}  // namespace eddy
