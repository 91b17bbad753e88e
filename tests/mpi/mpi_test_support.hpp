// Helpers shared by the MPI test sources (tests/mpi/*.cpp, one executable run by mpiexec).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"

namespace eddy::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// The ranks of MPI_COMM_WORLD in groups of `ranks` consecutive ranks; this rank's group (MPI_Comm_free it).
inline MPI_Comm group_of(int ranks) {
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() / ranks, world_rank(), &group);
  return group;
}

/// Runs `config` on this rank's group of dims[0] dims[1] dims[2] ranks (parallel.ranks = dims, parallel.overlap =
/// `overlap`) for `steps` steps and returns read(simulation, group), collective on the group; the simulation and
/// the group are gone after.
template <class Read>
auto run_split(const CaseConfig& config, const std::array<int, 3>& dims, bool overlap, std::int64_t steps, Read read) {
  MPI_Comm group = group_of(dims[0] * dims[1] * dims[2]);
  CaseConfig c = config;
  c.parallel.ranks = dims;
  c.parallel.overlap = overlap;
  auto sim = Simulation::create(c, decompose(c, group));
  sim->advance(steps);
  auto state = read(*sim, group);
  sim.reset();
  MPI_Comm_free(&group);
  return state;
}

/// One particle's state as a row: id, x, y, z, vx, vy, vz.
using Row = std::array<double, 7>;

/// This rank's particles as rows.
inline std::vector<Row> rows_of(const ParticleSnapshot& s) {
  std::vector<Row> rows(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) {
    rows[k] = {double(s.id[k]), s.x[0][k], s.x[1][k], s.x[2][k], s.v[0][k], s.v[1][k], s.v[2][k]};
  }
  return rows;
}

/// Every rank's rows on rank 0 of `comm`, sorted by id.
inline std::vector<Row> gather_rows(const std::vector<Row>& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int count = int(mine.size() * 7);
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  std::vector<Row> all(rank == 0 ? std::size_t(std::accumulate(counts.begin(), counts.end(), 0) / 7) : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm);
  std::sort(all.begin(), all.end(), [](const Row& a, const Row& b) { return a[0] < b[0]; });
  return all;
}

/// `components` fields of this rank's interior cells (back to back, each in MacroscopicFields order, placed by the
/// block of `f`) assembled in global order (x fastest) on rank 0 of `comm`; other ranks get zeros. Each global cell
/// has exactly one owner and the others contribute 0, so the sum assembles the fields exactly.
inline std::vector<double> gather_global(const MacroscopicFields& f, const std::vector<double>& local, int components,
                                         MPI_Comm comm) {
  const std::size_t n = std::size_t(f.global_size[0]) * f.global_size[1] * f.global_size[2];
  const std::size_t m = std::size_t(f.size[0]) * f.size[1] * f.size[2];
  std::vector<double> mine(components * n, 0.0), all(components * n, 0.0);
  for (int c = 0; c < components; ++c)
    for (int z = 0; z < f.size[2]; ++z)
      for (int y = 0; y < f.size[1]; ++y)
        for (int x = 0; x < f.size[0]; ++x) {
          const std::size_t g =
              (f.offset[0] + x) +
              std::size_t(f.global_size[0]) * ((f.offset[1] + y) + std::size_t(f.global_size[1]) * (f.offset[2] + z));
          mine[c * n + g] = local[c * m + std::size_t(f.index(x, y, z))];
        }
  MPI_Reduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  return all;
}

/// Calls fn(c, group) for the decompositions x2, 2 x 2 x 1 and z4 whose rank count divides the world size: c is
/// `config` with parallel.ranks set, group a communicator of that many ranks split from MPI_COMM_WORLD (collective
/// over it; freed when fn returns). The world's rank 0 is rank 0 of its group.
template <class Fn>
void for_each_layout(const CaseConfig& config, Fn fn) {
  constexpr std::array<std::array<int, 3>, 3> kLayouts = {{{2, 1, 1}, {2, 2, 1}, {1, 1, 4}}};
  for (const auto& dims : kLayouts) {
    const int ranks = dims[0] * dims[1] * dims[2];
    if (world_size() % ranks != 0) continue;
    CaseConfig c = config;
    c.parallel.ranks = dims;
    MPI_Comm group = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() / ranks, world_rank(), &group);
    fn(static_cast<const CaseConfig&>(c), group);
    MPI_Comm_free(&group);
  }
}

}  // namespace eddy::test
