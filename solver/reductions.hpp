// Reductions over the ranks of a decomposition (no-ops for a serial one): diagnostics and centreline sums.
#pragma once

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/validation.hpp"

namespace eddy {

/// Global diagnostics on every rank: mass summed, the fastest cell and the first non-finite cell (lowest global
/// linear index) over all ranks. Collective.
Diagnostics reduce_diagnostics(const Diagnostics& local, const Decomposition& decomposition);

/// Centreline sums added over ranks, valid on every rank. Collective.
CenterlineSums reduce_centerlines(const CenterlineSums& local, const Decomposition& decomposition);

/// Largest value of `seconds` over the ranks (the slowest rank sets a step's time). Collective.
double reduce_max(double seconds, const Decomposition& decomposition);

}  // namespace eddy
