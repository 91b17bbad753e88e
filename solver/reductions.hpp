// Reductions over the ranks of a decomposition (no-ops for a serial one): diagnostics and centreline sums.
#pragma once

#include <chrono>
#include <future>
#include <string>

#include "solver/decomposition.hpp"
#include "solver/mpi_check.hpp"
#include "solver/simulation.hpp"
#include "solver/validation.hpp"

namespace eddy {

/// Global diagnostics on every rank: mass summed, the fastest cell and the first non-finite cell (lowest global
/// linear index) over all ranks. Collective.
Diagnostics reduce_diagnostics(const Diagnostics& local, const Decomposition& decomposition);

/// Centreline sums added over ranks, valid on every rank. Collective.
CenterlineSums reduce_centerlines(const CenterlineSums& local, const Decomposition& decomposition);

/// Runs `check` on every rank of `comm` (MPI_COMM_NULL: this rank only). If it throws InputError or OutputError on
/// any rank, every rank throws the collective form of the lowest failing rank's error (same message everywhere),
/// so all ranks end together with one message. Collective.
template <class Check>
void agree_on_failure(MPI_Comm comm, Check check);

/// Largest value of `seconds` over the ranks (the slowest rank sets a step's time). Collective.
double reduce_max(double seconds, const Decomposition& decomposition);

/// True when `pending` (a background write's future, valid) is ready on every rank, asked without waiting.
/// Collective.
template <class T>
bool ready_on_every_rank(const std::future<T>& pending, const Decomposition& decomposition) {
  int ready = pending.wait_for(std::chrono::seconds(0)) == std::future_status::ready ? 1 : 0;
  if (!decomposition.serial()) {
    EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &ready, 1, MPI_INT, MPI_MIN, decomposition.comm));
  }
  return ready != 0;
}

namespace detail {
/// kind: 0 = none, 1 = input error, 2 = output error. Throws the collective error when any rank failed.
void agree_on_failure(MPI_Comm comm, int kind, const std::string& message);
}  // namespace detail

template <class Check>
void agree_on_failure(MPI_Comm comm, Check check) {
  int kind = 0;
  std::string message;
  try {
    check();
  } catch (const InputError& e) {
    kind = 1;
    message = e.what();
  } catch (const OutputError& e) {
    kind = 2;
    message = e.what();
  }
  detail::agree_on_failure(comm, kind, message);
}

}  // namespace eddy
