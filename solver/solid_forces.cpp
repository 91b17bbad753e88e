#include "solver/solid_forces.hpp"

#include "kernels/solid_forces.hpp"
#include "solver/mpi_check.hpp"

namespace eddy {

std::vector<unsigned long long> global_solid_force_sums(Simulation& simulation) {
  std::vector<unsigned long long> sums = simulation.local_solid_force_sums();
  const Decomposition& d = simulation.decomposition();
  if (d.serial() || sums.empty()) return sums;
  // Integer sums: exact, and (wrapping) independent of the order in which the ranks' parts are added.
  EDDY_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, d.comm));
  return sums;
}

std::vector<SolidForce> solid_forces(Simulation& simulation) {
  const std::vector<unsigned long long> sums = global_solid_force_sums(simulation);
  std::vector<SolidForce> out(sums.size() / kForceSums);
  for (std::size_t k = 0; k < out.size(); ++k)
    for (int a = 0; a < 3; ++a) {
      out[k].force[a] = from_force_fixed(sums[k * kForceSums + a]);
      out[k].torque[a] = from_force_fixed(sums[k * kForceSums + 3 + a]);
    }
  return out;
}

}  // namespace eddy
