// Helpers shared by the MPI test sources (tests/mpi/*.cpp, one executable run by mpiexec).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

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
          const std::size_t g = (f.offset[0] + x) + std::size_t(f.global_size[0]) *
                                                        ((f.offset[1] + y) + std::size_t(f.global_size[1]) * (f.offset[2] + z));
          mine[c * n + g] = local[c * m + std::size_t(f.index(x, y, z))];
        }
  MPI_Reduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
  return all;
}

}  // namespace eddy::test
