// Helpers shared by the MPI test sources (tests/mpi/*.cpp, one executable run by mpiexec).
#pragma once

#include <mpi.h>

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

}  // namespace eddy::test
