#include "solver/mpi_check.hpp"

namespace eddy {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(code, text, &length);
  int rank = -1, initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw MpiError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed on rank " +
                 std::to_string(rank) + ": " + std::string(text, length));
}

}  // namespace eddy
