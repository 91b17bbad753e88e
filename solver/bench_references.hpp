// The figures `eddy bench` sets beside the fused kernel's: timed steps of a simulation, the device's copy
// bandwidth (memcpy and a STREAM Copy kernel), host-device transfers and the stencil operators.
#pragma once

#include <cstddef>
#include <cstdint>

#include "io/case_config.hpp"
#include "solver/bench.hpp"
#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy {

/// Wall seconds of `steps` steps of `sim` on the slowest rank, the device synchronised (and the ranks at a barrier)
/// before the start and synchronised after the end.
double timed_steps(Simulation& sim, const Decomposition& d, std::int64_t steps);

/// Mean seconds per step of `steps` steps over `repetitions` timed runs (after `warmup` steps), slowest rank.
double seconds_per_step(Simulation& sim, const Decomposition& d, std::int64_t warmup, std::int64_t steps,
                        int repetitions);

/// Device-to-device copy bandwidth (GB/s, bytes read + written) over up to `repetitions` copies of `bytes`.
double copy_bandwidth(std::size_t bytes, int repetitions);

/// STREAM Copy bandwidth (kernels/stream_copy.cpp, GB/s read + written) over `bytes`: the best of up to
/// `repetitions` timed copies after a warm-up (STREAM reports the best of its trials).
double stream_copy_bandwidth(std::size_t bytes, int repetitions);

/// Host <-> device time of min(bytes, 1 GiB) (pageable host memory) into r.transfer_bytes, r.upload_seconds and
/// r.download_seconds.
void measure_transfers(std::size_t bytes, BenchResult& r);

/// Milliseconds per call of vorticity and Q-criterion, plain and tiled, on a smooth float velocity field over the
/// block of `d` (the bench cavity's flags), into r (and r.stencil_cells).
void time_stencils(const CaseConfig& config, const Decomposition& d, BenchResult& r);

}  // namespace eddy
