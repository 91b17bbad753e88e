#include "solver/reductions.hpp"

#include <limits>

#include "solver/mpi_check.hpp"

namespace eddy {

namespace {

std::int64_t linear(const std::array<int, 3>& c, const std::array<int, 3>& n) {
  return c[0] + std::int64_t(n[0]) * (c[1] + std::int64_t(n[1]) * c[2]);
}

std::array<int, 3> coordinates(std::int64_t k, const std::array<int, 3>& n) {
  return {int(k % n[0]), int((k / n[0]) % n[1]), int(k / (std::int64_t(n[0]) * n[1]))};
}

}  // namespace

Diagnostics reduce_diagnostics(const Diagnostics& local, const Decomposition& d) {
  if (d.serial() || d.size == 1) return local;
  Diagnostics global = local;
  EDDY_MPI_CHECK(MPI_Allreduce(&local.mass, &global.mass, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  EDDY_MPI_CHECK(MPI_Allreduce(&local.kinetic_energy, &global.kinetic_energy, 1, MPI_DOUBLE, MPI_SUM, d.comm));
  const long long fluid = local.fluid_cells;
  long long all_fluid = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&fluid, &all_fluid, 1, MPI_LONG_LONG, MPI_SUM, d.comm));
  global.fluid_cells = all_fluid;

  struct {
    double value;
    int rank;
  } fastest{local.max_speed, d.rank}, winner{};
  EDDY_MPI_CHECK(MPI_Allreduce(&fastest, &winner, 1, MPI_DOUBLE_INT, MPI_MAXLOC, d.comm));
  global.max_speed = winner.value;
  EDDY_MPI_CHECK(MPI_Bcast(global.fastest_cell.data(), 3, MPI_INT, winner.rank, d.comm));

  const long long mine = local.finite ? std::numeric_limits<long long>::max()
                                      : static_cast<long long>(linear(local.first_nonfinite_cell, d.global_size));
  long long first = 0;
  EDDY_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_LONG_LONG, MPI_MIN, d.comm));
  global.finite = first == std::numeric_limits<long long>::max();
  if (!global.finite) global.first_nonfinite_cell = coordinates(first, d.global_size);
  return global;
}

CenterlineSums reduce_centerlines(const CenterlineSums& local, const Decomposition& d) {
  if (d.serial() || d.size == 1) return local;
  CenterlineSums global = local;
  for (int m = 0; m < 4; ++m) {  // one owner per entry: the sums are exact
    EDDY_MPI_CHECK(MPI_Allreduce(local.u_vertical[m].data(), global.u_vertical[m].data(),
                                 static_cast<int>(local.u_vertical[m].size()), MPI_DOUBLE, MPI_SUM, d.comm));
    EDDY_MPI_CHECK(MPI_Allreduce(local.v_horizontal[m].data(), global.v_horizontal[m].data(),
                                 static_cast<int>(local.v_horizontal[m].size()), MPI_DOUBLE, MPI_SUM, d.comm));
  }
  return global;
}

namespace detail {

void agree_on_failure(MPI_Comm comm, int kind, const std::string& message) {
  if (comm == MPI_COMM_NULL) {
    if (kind == 1) throw CollectiveInputError(message);
    if (kind == 2) throw CollectiveOutputError(message);
    return;
  }
  int rank = 0, size = 1;
  EDDY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  EDDY_MPI_CHECK(MPI_Comm_size(comm, &size));
  const int mine = kind == 0 ? size : rank;
  int first = size;
  EDDY_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int header[2] = {kind, static_cast<int>(message.size())};
  EDDY_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string text = rank == first ? message : std::string(header[1], ' ');
  EDDY_MPI_CHECK(MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm));
  if (header[0] == 1) throw CollectiveInputError(text);
  throw CollectiveOutputError(text);
}

}  // namespace detail

double reduce_max(double seconds, const Decomposition& d) {
  if (d.serial() || d.size == 1) return seconds;
  double result = seconds;
  EDDY_MPI_CHECK(MPI_Allreduce(&seconds, &result, 1, MPI_DOUBLE, MPI_MAX, d.comm));
  return result;
}

}  // namespace eddy
