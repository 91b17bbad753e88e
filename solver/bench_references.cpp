#include "solver/bench_references.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/launchers.hpp"
#include "kernels/stencil_launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/mpi_check.hpp"
#include "solver/reductions.hpp"
#include "solver/timing.hpp"

namespace eddy {
namespace {

/// Largest host <-> device transfer timed: enough for a stable figure, small enough that a 40 GB domain does not
/// spend a minute filling and copying a host buffer.
constexpr std::size_t kTransferBytesMax = std::size_t(1) << 30;

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

}  // namespace

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
  r.stencil_cells = double(shape.interior_cells());
}

double timed_steps(Simulation& sim, const Decomposition& d, std::int64_t steps) {
  sim.synchronize();
  if (!d.serial()) EDDY_MPI_CHECK(MPI_Barrier(d.comm));
  const auto start = Clock::now();
  sim.advance(steps);
  sim.synchronize();
  return reduce_max(seconds_since(start), d);
}

double seconds_per_step(Simulation& sim, const Decomposition& d, std::int64_t warmup, std::int64_t steps,
                        int repetitions) {
  sim.advance(warmup);
  double total = 0.0;
  for (int rep = 0; rep < repetitions; ++rep) total += timed_steps(sim, d, steps);
  return total / (double(repetitions) * double(steps));
}

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

}  // namespace eddy
