#include "solver/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "kernels/backend.hpp"
#include "kernels/d3q19.hpp"
#include "kernels/launchers.hpp"
#include "kernels/stencil_launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/rank_device.hpp"
#include "solver/run_case.hpp"
#include "solver/reductions.hpp"
#include "solver/simulation.hpp"

namespace eddy {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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

CaseConfig bench_case(const BenchOptions& o) {
  CaseConfig c;
  c.name = "bench_cavity";
  c.size = o.grid[0] > 0 ? o.grid : std::array<int, 3>{o.size, o.size, o.size};
  c.length = c.size[0];
  c.parallel.transport = o.transport;
  c.parallel.overlap = o.overlap;
  for (auto& face : c.faces) face.kind = FaceKind::wall;
  c.faces[3].kind = FaceKind::moving_wall;
  c.faces[3].velocity = {0.1, 0.0, 0.0};
  c.velocity = 0.1;
  c.tau = 0.6;  // stable at every size (a fixed Re would push tau towards 1/2 on small grids)
  c.collision = o.collision;
  c.precision = o.precision;
  c.steps = 1;
  c.write_vtk = false;
  if (o.out_of_core) {
    if (o.particles > 0 || o.thermal || o.stencils) {
      throw InputError("bench: --out-of-core runs are fluid only: leave out --particles, --thermal and --stencils");
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

/// Milliseconds per call of `op` (the median of 11 timed calls after a warm-up).
template <class Op>
double time_call(Op op) {
  op();
  backend::synchronize();
  std::vector<double> ms;
  for (int r = 0; r < 11; ++r) {
    const auto start = Clock::now();
    op();
    backend::synchronize();
    ms.push_back(seconds_since(start) * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Times vorticity and Q-criterion, plain and tiled, on a smooth float velocity field over `shape` (the bench
/// cavity's flags: walls on every face).
void time_stencils(const CaseConfig& config, const Decomposition& d, BenchResult& r) {
  const BlockShape shape = block_shape(d);
  const std::size_t cells = std::size_t(shape.n_cells());
  std::vector<float> host(cells);
  DeviceBuffer<float> u[3] = {DeviceBuffer<float>(cells), DeviceBuffer<float>(cells), DeviceBuffer<float>(cells)};
  for (int a = 0; a < 3; ++a) {
    for (std::size_t k = 0; k < cells; ++k) host[k] = 0.01f * std::sin(0.001f * float(k) * float(a + 1));
    u[a].upload(host);
  }
  DeviceBuffer<CellFlag> flags(cells);
  flags.upload(build_flags(config, d));
  DeviceBuffer<float> w[3] = {DeviceBuffer<float>(cells), DeviceBuffer<float>(cells), DeviceBuffer<float>(cells)};
  const float* const u_in[3] = {u[0].data(), u[1].data(), u[2].data()};
  float* const w_out[3] = {w[0].data(), w[1].data(), w[2].data()};
  const FlagView f{flags.data()};
  r.vorticity_plain_ms = time_call([&] { vorticity(u_in, f, shape, w_out, StencilVariant::plain); });
  r.vorticity_tiled_ms = time_call([&] { vorticity(u_in, f, shape, w_out, StencilVariant::tiled); });
  r.q_plain_ms = time_call([&] { q_criterion(u_in, f, shape, w_out[0], StencilVariant::plain); });
  r.q_tiled_ms = time_call([&] { q_criterion(u_in, f, shape, w_out[0], StencilVariant::tiled); });
}

/// Mean seconds per step of `steps` steps over `repetitions` timed runs (after `warmup` steps), slowest rank.
double seconds_per_step(Simulation& sim, const Decomposition& d, std::int64_t warmup, std::int64_t steps,
                        int repetitions) {
  sim.advance(warmup);
  double total = 0.0;
  for (int rep = 0; rep < repetitions; ++rep) {
    sim.synchronize();
    if (!d.serial()) EDDY_MPI_CHECK(MPI_Barrier(d.comm));
    const auto start = Clock::now();
    sim.advance(steps);
    sim.synchronize();
    total += reduce_max(seconds_since(start), d);
  }
  return total / (double(repetitions) * double(steps));
}

/// Device-to-device copy bandwidth (bytes read + written per second) over `repetitions` back-to-back copies.
double copy_bandwidth(std::size_t bytes, int repetitions) {
  DeviceBuffer<char> a(bytes), b(bytes);
  backend::copy_on_device(b.data(), a.data(), bytes);  // warm-up, both ways: touches every page on cpu
  backend::copy_on_device(a.data(), b.data(), bytes);
  backend::synchronize();
  const auto start = Clock::now();
  int done = 0;
  // Up to `repetitions` copies, stopping after ~1 s once two are timed (a slow host copies gigabytes per second).
  while (done < repetitions && (done < 2 || seconds_since(start) < 1.0)) {
    backend::copy_on_device(done % 2 ? a.data() : b.data(), done % 2 ? b.data() : a.data(), bytes);
    backend::synchronize();
    ++done;
  }
  return 2.0 * double(bytes) * done / seconds_since(start) * 1e-9;
}

/// STREAM Copy bandwidth (kernels/stream_copy.cpp) over `bytes`, the best of up to `repetitions` timed copies (at
/// least two, fewer once ~1 s has passed) after a warm-up, bytes read + written per second (STREAM reports the best
/// of its trials).
double stream_copy_bandwidth(std::size_t bytes, int repetitions) {
  const std::int64_t n = std::int64_t(bytes / sizeof(float));
  DeviceBuffer<float> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  stream_copy(a.data(), b.data(), n);  // warm-up; touches the pages on cpu
  stream_copy(b.data(), a.data(), n);
  backend::synchronize();
  double best = 0.0;
  const auto begin = Clock::now();
  for (int r = 0; r < repetitions && (r < 2 || seconds_since(begin) < 1.0); ++r) {
    const auto start = Clock::now();
    stream_copy(r % 2 ? a.data() : b.data(), r % 2 ? b.data() : a.data(), n);
    backend::synchronize();
    best = std::max(best, 2.0 * double(n) * sizeof(float) / seconds_since(start) * 1e-9);
  }
  return best;
}

/// Largest host <-> device transfer timed: enough for a stable figure, small enough that a 40 GB domain does not
/// spend a minute filling and copying a host buffer.
constexpr std::size_t kTransferBytesMax = std::size_t(1) << 30;

/// Host <-> device time of min(bytes, 1 GiB) (pageable host memory), apart from the kernel timing.
void measure_transfers(std::size_t bytes, BenchResult& r) {
  bytes = std::min(bytes, kTransferBytesMax);
  r.transfer_bytes = double(bytes);
  std::vector<char> host(bytes, 1);
  DeviceBuffer<char> device(bytes);
  backend::copy_to_device(device.data(), host.data(), bytes);  // warm-up
  backend::synchronize();
  auto start = Clock::now();
  backend::copy_to_device(device.data(), host.data(), bytes);
  backend::synchronize();
  r.upload_seconds = seconds_since(start);
  start = Clock::now();
  backend::copy_to_host(host.data(), device.data(), bytes);
  backend::synchronize();
  r.download_seconds = seconds_since(start);
}

/// The out-of-core lines of the log: the plan, the host-device traffic each way (while copying and averaged over
/// the timed run), how busy the copy engines and the kernels were, and the in-core figure.
std::string out_of_core_report(const BenchResult& r) {
  const OutOfCoreStats& t = r.out_of_core_stats;
  const double total = std::max(t.seconds_total, 1e-12);
  char text[1024];
  std::snprintf(text, sizeof text,
                "  out-of-core    time_block %d, %d slabs, 2 device buffers of %d z-planes = %.3f GiB (budget %.3f GiB); "
                "host holds %.3f GiB\n"
                "  host->device   %.1f GB/s while copying, %.1f GB/s averaged; copy engine busy %.0f%% of the time\n"
                "  device->host   %.1f GB/s while copying, %.1f GB/s averaged; copy engine busy %.0f%% of the time\n"
                "  kernels        busy %.0f%% of the time; %.2f B/cell/step over the link (up + down)\n",
                t.time_block, t.slabs, t.buffer_planes, double(t.device_bytes) / 1073741824.0,
                double(t.budget) / 1073741824.0, r.host_bytes / 1073741824.0,
                t.bytes_up / std::max(t.seconds_up, 1e-12) * 1e-9, t.bytes_up / total * 1e-9,
                100.0 * t.seconds_up / total, t.bytes_down / std::max(t.seconds_down, 1e-12) * 1e-9,
                t.bytes_down / total * 1e-9, 100.0 * t.seconds_down / total, 100.0 * t.seconds_compute / total,
                (t.bytes_up + t.bytes_down) /
                    (double(r.grid[0]) * r.grid[1] * r.grid[2] * double(r.steps) * double(r.mlups.size()) /
                     double(r.ranks)));
  std::string out = text;
  if (r.in_core_mlups > 0) {
    std::snprintf(text, sizeof text, "  in-core        %.1f MLUPS (same grid, same run): out-of-core at %.1f%% of it\n",
                  r.in_core_mlups, 100.0 * r.mlups_mean / r.in_core_mlups);
    out += text;
  }
  return out;
}

std::string json(const BenchResult& r) {
  std::ostringstream s;
  s.precision(10);
  s << "{\n  \"backend\": \"" << r.backend << "\",\n  \"device\": \"" << r.device << "\",\n  \"precision\": \""
    << r.precision << "\",\n  \"grid\": [" << r.grid[0] << ", " << r.grid[1] << ", " << r.grid[2]
    << "],\n  \"ranks\": " << r.ranks << ",\n  \"steps_per_repetition\": " << r.steps
    << ",\n  \"mlups\": [";
  for (std::size_t i = 0; i < r.mlups.size(); ++i) s << (i ? ", " : "") << r.mlups[i];
  s << "],\n  \"mlups_mean\": " << r.mlups_mean << ",\n  \"mlups_sd\": " << r.mlups_sd
    << ",\n  \"bytes_per_cell_step\": " << r.bytes_per_cell_step << ",\n  \"bandwidth_gbs\": " << r.bandwidth_gbs
    << ",\n  \"copy_bandwidth_gbs\": " << r.copy_bandwidth_gbs << ",\n  \"stream_copy_gbs\": " << r.stream_copy_gbs
    << ",\n  \"block_size_x\": " << r.block_size_x << ",\n  \"copy_bytes\": " << r.copy_bytes
    << ",\n  \"transfer_bytes\": " << r.transfer_bytes
    << ",\n  \"upload_seconds\": " << r.upload_seconds
    << ",\n  \"download_seconds\": " << r.download_seconds << ",\n  \"memory_per_cell\": " << r.memory_per_cell
    << ",\n  \"particles\": " << r.particles << ",\n  \"particle_forces\": \"" << r.particle_forces << "\""
    << ",\n  \"thermal\": " << (r.thermal ? "true" : "false")
    << ",\n  \"thermal_seconds_per_step\": " << r.thermal_seconds_per_step
    << ",\n  \"lattice_only_mlups\": " << r.lattice_only_mlups
    << ",\n  \"particle_seconds_per_step\": " << r.particle_seconds_per_step
    << ",\n  \"particles_per_second\": " << r.particles_per_second
    << ",\n  \"out_of_core\": " << (r.out_of_core ? "true" : "false");
  if (r.out_of_core) {
    const OutOfCoreStats& t = r.out_of_core_stats;
    s << ",\n  \"time_block\": " << t.time_block << ",\n  \"slabs\": " << t.slabs
      << ",\n  \"device_buffer_bytes\": " << t.device_bytes << ",\n  \"device_budget_bytes\": " << t.budget
      << ",\n  \"host_bytes\": " << r.host_bytes << ",\n  \"bytes_up\": " << t.bytes_up
      << ",\n  \"bytes_down\": " << t.bytes_down << ",\n  \"seconds_up\": " << t.seconds_up
      << ",\n  \"seconds_down\": " << t.seconds_down << ",\n  \"seconds_compute\": " << t.seconds_compute
      << ",\n  \"seconds_total\": " << t.seconds_total << ",\n  \"in_core_mlups\": " << r.in_core_mlups;
  }
  s
    << ",\n  \"cells_per_gib\": " << 1073741824.0 / r.memory_per_cell << ",\n  \"state_finite\": " << (r.state_finite ? "true" : "false") << ",\n  \"mass_drift\": " << r.mass_drift
    << "\n}\n";
  return s.str();
}

}  // namespace

BenchResult run_bench(const BenchOptions& o, MPI_Comm world, std::ostream& rank0_log) {
  const bool grid_given = o.grid_given || o.grid[0] != 0 || o.grid[1] != 0 || o.grid[2] != 0;
  if (grid_given && (o.grid[0] < 2 || o.grid[1] < 2 || o.grid[2] < 1)) {
    throw CollectiveInputError("bench: --grid needs NX >= 2, NY >= 2, NZ >= 1");
  }
  if (!grid_given && o.size < 2) {
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
  std::unique_ptr<Simulation> sim;
  try {
    sim = Simulation::create(config, decomposition);
  } catch (const RankCountError&) {
    throw;
  } catch (const InputError& e) {  // out-of-core plans: every rank agrees on the error (solver/out_of_core.cpp)
    throw CollectiveInputError(with_bench_options(e.what()));
  }
  const double cells = double(config.size[0]) * config.size[1] * config.size[2];

  BenchResult r;
  r.backend = backend::name();
  r.device = device.name;
  r.precision = o.precision == Precision::float64 ? "double" : o.precision == Precision::float16 ? "fp16" : "float";
  r.grid = config.size;
  r.ranks = decomposition.size;
  r.block_size_x = backend::is_gpu() ? backend::block_size_x() : 0;
  r.bytes_per_cell_step = double(sim->kernel_bytes_per_cell());
  // Per interior cell: the stored cells include the ghost layer and the row padding (kernels/block.hpp).
  const BlockShape shape = block_shape(decomposition);
  r.memory_per_cell = double(sim->bytes_per_cell()) * double(shape.n_cells()) / double(shape.interior_cells());
  log << "bench: lid-driven cavity " << config.size[0] << " x " << config.size[1] << " x " << config.size[2] << ", "
      << r.precision << " storage, " << r.backend << " on " << r.device;
  if (decomposition.size > 1) {
    log << ", " << decomposition.size << " ranks as " << decomposition.dims[0] << " x " << decomposition.dims[1]
        << " x " << decomposition.dims[2] << ", transport " << transport_name(o.transport)
        << (o.overlap ? ", overlap on" : ", overlap off");
  }
  log << "\n";

  const double mass0 = reduce_diagnostics(sim->diagnose(), decomposition).mass;
  // Warm-up (not timed), then one timed calibration step sets the steps per repetition to about one second
  // (the same count on every rank), between 5 and 100,000.
  sim->synchronize();
  sim->advance(o.warmup_steps);
  // Out of core, steps come in sweeps of time_block: calibrate on one sweep, and time whole sweeps.
  OutOfCoreStats before;
  r.out_of_core = sim->out_of_core(before);
  const std::int64_t block = r.out_of_core ? before.time_block : 1;
  sim->synchronize();
  auto start = Clock::now();
  sim->advance(block);
  sim->synchronize();
  const double per_step = std::max(reduce_max(seconds_since(start), decomposition) / double(block), 1e-5);
  r.steps = o.steps > 0 ? o.steps : std::clamp<std::int64_t>(std::int64_t(1.0 / per_step), 5, 100000);
  r.steps += r.steps % 2;  // in-place streaming alternates two kinds of step: time both equally
  const std::int64_t unit = block % 2 == 0 ? block : 2 * block;
  r.steps = (r.steps + unit - 1) / unit * unit;

  sim->out_of_core(before);
  for (int rep = 0; rep < o.repetitions; ++rep) {
    sim->synchronize();
    if (!decomposition.serial()) EDDY_MPI_CHECK(MPI_Barrier(decomposition.comm));
    start = Clock::now();
    sim->advance(r.steps);
    sim->synchronize();
    const double seconds = reduce_max(seconds_since(start), decomposition);
    r.mlups.push_back(cells * double(r.steps) / seconds * 1e-6);
  }
  for (double m : r.mlups) r.mlups_mean += m / r.mlups.size();
  for (double m : r.mlups) r.mlups_sd += (m - r.mlups_mean) * (m - r.mlups_mean);
  r.mlups_sd = r.mlups.size() > 1 ? std::sqrt(r.mlups_sd / (r.mlups.size() - 1)) : 0.0;
  r.bandwidth_gbs = r.bytes_per_cell_step * r.mlups_mean * 1e6 * 1e-9;
  if (r.out_of_core) {
    sim->out_of_core(r.out_of_core_stats);
    OutOfCoreStats& t = r.out_of_core_stats;  // the timed repetitions only
    t.sweeps -= before.sweeps;
    t.bytes_up -= before.bytes_up;
    t.bytes_down -= before.bytes_down;
    t.seconds_up -= before.seconds_up;
    t.seconds_down -= before.seconds_down;
    t.seconds_compute -= before.seconds_compute;
    t.seconds_total -= before.seconds_total;
    r.host_bytes = double(sim->bytes_per_cell()) * double(shape.n_cells());
  }

  const Diagnostics d = reduce_diagnostics(sim->diagnose(), decomposition);
  r.state_finite = d.finite;
  r.mass_drift = d.mass / mass0 - 1.0;
  if (!d.finite) {
    throw InstabilityError("bench: the benchmarked state is not finite after the timed steps (first bad cell " +
                           std::to_string(d.first_nonfinite_cell[0]) + ", " + std::to_string(d.first_nonfinite_cell[1]) +
                           ", " + std::to_string(d.first_nonfinite_cell[2]) + "); its timings are not reported");
  }

  if (o.particles > 0 || o.thermal) {
    // The cost of particles and temperature: the same steps on the same grid without them, timed the same way.
    r.particles = sim->particle_count();
    r.particle_forces = o.particle_forces;
    r.thermal = o.thermal;
    const double with = cells * 1e-6 / r.mlups_mean;
    sim.reset();
    CaseConfig plain = config;
    plain.particles = ParticleConfig{};
    plain.thermal = ThermalConfig{};
    auto lattice_only = Simulation::create(plain, decomposition);
    const double without = seconds_per_step(*lattice_only, decomposition, o.warmup_steps, r.steps, o.repetitions);
    r.lattice_only_mlups = cells * 1e-6 / without;
    // A difference of two timings: when noise exceeds it (a loaded host), it is reported as 0 (below the noise).
    const double extra = std::max(with - without, 0.0);
    if (o.particles > 0) r.particle_seconds_per_step = extra;  // both together: the cost of both
    if (o.thermal) r.thermal_seconds_per_step = extra;
    r.particles_per_second = r.particle_seconds_per_step > 0 ? double(r.particles) / r.particle_seconds_per_step : 0.0;
  }

  if (o.stencils) {
    sim.reset();
    time_stencils(config, decomposition, r);
  }

  if (r.out_of_core) {
    // The in-core reference: the same grid and steps, in device memory, when it fits there.
    sim.reset();
    CaseConfig in_core = config;
    in_core.out_of_core = OutOfCoreConfig{};
    in_core.out_of_core.mode = OutOfCoreMode::off;
    std::unique_ptr<Simulation> reference;
    try {
      reference = Simulation::create(in_core, decomposition);
    } catch (const DeviceError& e) {
      if (!e.out_of_memory()) throw;
      log << "  in-core        does not fit on the device: " << e.what() << "\n";
    }
    if (reference) {
      r.in_core_mlups = cells * 1e-6 / seconds_per_step(*reference, decomposition, o.warmup_steps, r.steps,
                                                        o.repetitions);
    }
  }

  const std::size_t local_cells = std::size_t(decomposition.local_size[0]) * decomposition.local_size[1] *
                                  decomposition.local_size[2];
  const std::size_t value_bytes = o.precision == Precision::float64   ? sizeof(double)
                                  : o.precision == Precision::float16 ? sizeof(half_t)
                                                                      : sizeof(float);
  const std::size_t population_bytes = std::size_t(d3q19::Q) * local_cells * value_bytes;
  sim.reset();  // free the device for the transfer and copy measurements
  measure_transfers(population_bytes, r);
  // The copy references need two buffers: over the population array's bytes when that fits in 40 % of the free
  // memory (a domain that fills the device leaves room for neither), else over as much as fits.
  const std::size_t free_bytes = backend::device_info(backend::current_device()).free_memory;
  const std::size_t copy_bytes =
      free_bytes > 0 ? std::min(population_bytes, std::size_t(0.4 * double(free_bytes))) : population_bytes;
  r.copy_bytes = double(copy_bytes);
  r.copy_bandwidth_gbs = copy_bandwidth(copy_bytes, 10);
  r.stream_copy_gbs = stream_copy_bandwidth(copy_bytes, 10);

  // Each rank's device is compared with its own share of the traffic (the grids are split evenly up to one plane).
  const double per_rank_gbs = r.bandwidth_gbs / double(r.ranks);
  char line[768];
  std::snprintf(line, sizeof line,
                "  %lld steps x %d repetitions (after %lld warm-up steps)\n"
                "  MLUPS          %.1f +- %.1f\n"
                "  bandwidth      %.1f GB/s effective (%.0f B/cell/step), %.1f GB/s per rank: %.1f%% of the device "
                "copy bandwidth %.1f GB/s\n"
                "  STREAM copy    %.1f GB/s (parallel_for kernel; both copies over %.3g GB): kernel at %.1f%% of it\n"
                "  memory         %.0f B/cell, %.3g cells per GiB\n"
                "  transfers      %.3f GB (population array, at most 1 GiB): host->device %.4f s, device->host %.4f s\n"
                "  check          state %s, mass drift %+.2e\n",
                static_cast<long long>(r.steps), o.repetitions, static_cast<long long>(o.warmup_steps),
                r.mlups_mean, r.mlups_sd, r.bandwidth_gbs, r.bytes_per_cell_step, per_rank_gbs,
                100.0 * per_rank_gbs / r.copy_bandwidth_gbs, r.copy_bandwidth_gbs, r.stream_copy_gbs, r.copy_bytes * 1e-9,
                100.0 * per_rank_gbs / r.stream_copy_gbs, r.memory_per_cell, 1073741824.0 / r.memory_per_cell, r.transfer_bytes * 1e-9,
                r.upload_seconds, r.download_seconds, r.state_finite ? "finite" : "NOT FINITE", r.mass_drift);
  log << line;
  if (o.particles > 0) {
    std::snprintf(line, sizeof line,
                  "  particles      %lld inertial (%s), particle step %.3f ms: %.3g particles/s (0: below the timing "
                  "noise); lattice alone %.1f MLUPS\n",
                  static_cast<long long>(r.particles), o.particle_forces.c_str(), r.particle_seconds_per_step * 1e3,
                  r.particles_per_second, r.lattice_only_mlups);
    log << line;
  }
  if (o.thermal) {
    std::snprintf(line, sizeof line,
                  "  thermal        Pr 0.71, Ra 1e5: thermal step %.3f ms%s; lattice alone %.1f MLUPS, with T "
                  "%.1f MLUPS (%.0f%%)\n",
                  r.thermal_seconds_per_step * 1e3,
                  o.particles > 0                       ? " (particles included)"
                  : r.thermal_seconds_per_step == 0.0 ? " (below the timing noise)"
                                                        : "",
                  r.lattice_only_mlups,
                  r.mlups_mean, 100.0 * r.mlups_mean / r.lattice_only_mlups);
    log << line;
  }
  if (r.out_of_core) log << out_of_core_report(r);
  if (o.stencils) {
    const double cells_local = double(block_shape(decomposition).interior_cells());
    std::snprintf(line, sizeof line,
                  "  stencils       vorticity plain %.3f ms (%.1f GB/s at 25 B/cell), tiled %.3f ms; Q-criterion plain "
                  "%.3f ms (%.1f GB/s at 17 B/cell), tiled %.3f ms (float, rank 0's block)\n",
                  r.vorticity_plain_ms, 25.0 * cells_local / r.vorticity_plain_ms * 1e-6, r.vorticity_tiled_ms,
                  r.q_plain_ms, 17.0 * cells_local / r.q_plain_ms * 1e-6, r.q_tiled_ms);
    log << line;
  }
  if (!o.json_path.empty() && decomposition.rank == 0) {
    write_file_atomically(o.json_path, json(r));
    log << "  wrote " << o.json_path << "\n";
  }
  return r;
}

}  // namespace eddy
