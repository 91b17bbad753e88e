// The physics guard of `eddy run`: stops a run whose state is no longer sound (non-finite or too-fast fluid,
// particles or temperature), after writing the fields it has.
#pragma once

#include <cstdint>
#include <iosfwd>

#include "io/case_config.hpp"
#include "solver/simulation.hpp"
#include "solver/snapshot_writer.hpp"

namespace eddy {

/// The time loop asks the fused kernel's stability watch (Simulation::unstable_step) every this many steps,
/// whatever run.report_every: a blow-up stops the run within twice this many steps of its start.
inline constexpr std::int64_t kStabilityCheckSteps = 10;
/// Largest particle speed accepted (cells per step): the velocity interpolation and the hand-over between ranks
/// assume a particle crosses at most half a cell per step.
inline constexpr double kMaxParticleSpeed = 0.5;

/// Stops the run when the state is not finite or too fast, or when the fused kernel found a cell so in step
/// `unstable` (>= 0; -1: it found none): writes the snapshot of the current step (unless written already), then
/// throws InstabilityError naming the step, the cell (0-based global indices) and a remedy. `d` and `t` are the
/// diagnostics reduced over the ranks (every rank takes the same branches). Collective (the particle diagnostics
/// and the snapshot). A snapshot that cannot be written adds its error to the message; on several ranks that is an
/// OutputError instead, which ends the job on the rank that failed.
void guard(const CaseConfig& config, const Diagnostics& d, const ThermalDiagnostics& t, Simulation& sim,
           SnapshotWriter& snapshots, std::ostream& log, std::int64_t unstable = -1);

/// guard() on the diagnostics of the current state, reduced over the ranks (collective).
void guard_current_state(const CaseConfig& config, Simulation& sim, SnapshotWriter& snapshots, std::ostream& log,
                         std::int64_t unstable = -1);

}  // namespace eddy
