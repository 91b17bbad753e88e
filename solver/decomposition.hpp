// Cartesian domain decomposition over MPI ranks: which block of the global grid each rank owns, and its
// neighbours. A serial decomposition (no MPI communicator) describes a one-rank run without touching MPI.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>

#include "io/case_config.hpp"
#include "solver/errors.hpp"

namespace eddy {

/// Neighbour rank value for "no neighbour" (a wall or the domain's end on a non-periodic axis).
inline constexpr int kNoNeighbour = -1;

/// One rank's share of the global grid. Blocks are laid out by MPI_Cart_create over `dims`; along each axis the
/// N cells are split as evenly as possible (the first N % p ranks get one cell more).
struct Decomposition {
  MPI_Comm comm = MPI_COMM_NULL;  ///< Cartesian communicator; MPI_COMM_NULL for a serial run
  int rank = 0;
  int size = 1;
  std::array<int, 3> dims = {1, 1, 1};
  std::array<int, 3> coords = {0, 0, 0};
  std::array<bool, 3> periodic = {false, false, false};
  /// neighbour[axis][0] = lower, [1] = upper: an MPI rank (maybe this rank, through periodicity) or kNoNeighbour.
  std::array<std::array<int, 2>, 3> neighbour{};
  std::array<int, 3> global_size = {0, 0, 0};
  std::array<int, 3> offset = {0, 0, 0};      ///< global index of this block's first cell
  std::array<int, 3> local_size = {0, 0, 0};  ///< cells of this block

  bool serial() const { return comm == MPI_COMM_NULL; }
  /// True when the ghost planes of `axis` are filled from a neighbour (another rank or this one, periodic).
  bool exchanges(int axis) const { return neighbour[axis][0] != kNoNeighbour || neighbour[axis][1] != kNoNeighbour; }
  /// Offset and size along `axis` of the block at Cartesian coordinate `coord`.
  void block_extent(int axis, int coord, int& first, int& count) const;

 private:
  friend Decomposition decompose(const CaseConfig&, MPI_Comm);
  friend Decomposition serial_decomposition(const CaseConfig&);
  std::shared_ptr<MPI_Comm> owned_comm_;  // frees the Cartesian communicator with the last copy
};

/// Decomposes the case over the ranks of `parent` (collective). Dims come from config.parallel.ranks when all three
/// are given; otherwise, with numerics.out_of_core = true (OutOfCoreMode::on), {1, 1, ranks}: out-of-core runs split
/// the domain along z only; otherwise MPI_Dims_create with axes of one cell kept whole. Throws RankCountError (a
/// CollectiveInputError, on every rank alike) when the rank count does not fit: product of parallel.ranks != ranks,
/// or more ranks along an axis than cells (for out-of-core: more ranks than nz).
Decomposition decompose(const CaseConfig& config, MPI_Comm parent);

/// Rank counts per axis for `ranks` ranks on a grid of `size` cells: `preferred` (MPI_Dims_create's balanced
/// choice) when each count fits its axis (at most one rank per cell), else the factorisation px py pz = ranks that
/// fits with the least halo area (planes cut times their cells; ties: the larger count on the slower axis), else
/// `preferred` (it does not fit: decompose says so). Pure.
std::array<int, 3> fitting_dims(int ranks, const std::array<int, 3>& size, const std::array<int, 3>& preferred);

/// The decomposition of a one-rank run without MPI.
Decomposition serial_decomposition(const CaseConfig& config);

}  // namespace eddy
