// The checked wrapper for MPI calls: a failing call throws MpiError naming file, line, call, MPI's error string
// and the rank.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace eddy {

class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

}  // namespace eddy

#define EDDY_MPI_CHECK(call)                                                   \
  do {                                                                         \
    const int eddy_mpi_status_ = (call);                                       \
    if (eddy_mpi_status_ != MPI_SUCCESS) {                                     \
      ::eddy::throw_mpi_error(eddy_mpi_status_, #call, __FILE__, __LINE__);    \
    }                                                                          \
  } while (0)
