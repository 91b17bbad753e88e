// The checked wrapper for MPI calls: a failing call throws MpiError naming file, line, call, MPI's error string
// and the rank.
#pragma once

#include <mpi.h>

#include <string>

#include "solver/errors.hpp"

namespace eddy {

/// MPI's text for the error code `code` (MPI_Error_string).
inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, std::size_t(length));
}

/// Throws MpiError "<file>:<line>: <call> failed on rank <r>: <MPI's error string>" (rank -1 before MPI_Init).
[[noreturn]] inline void throw_mpi_error(int code, const char* call, const char* file, int line) {
  int rank = -1, initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw MpiError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed on rank " +
                 std::to_string(rank) + ": " + mpi_error_text(code));
}

}  // namespace eddy

#define EDDY_MPI_CHECK(call)                                                   \
  do {                                                                         \
    const int eddy_mpi_status_ = (call);                                       \
    if (eddy_mpi_status_ != MPI_SUCCESS) {                                     \
      ::eddy::throw_mpi_error(eddy_mpi_status_, #call, __FILE__, __LINE__);    \
    }                                                                          \
  } while (0)
