// solver/solid_forces.hpp: the force and torque on each [[solid]] body by momentum exchange (kernels/solid_forces.hpp),
// summed over the ranks in fixed point, so every rank count gives the same bits.
#pragma once

#include <array>
#include <vector>

#include "solver/simulation.hpp"

namespace eddy {

/// Force and torque (about the solid's centre: a sphere's centre, a cylinder's axis midpoint, a box's centre) on one
/// solid, lattice units, for the step just taken.
struct SolidForce {
  std::array<double, 3> force{};
  std::array<double, 3> torque{};
};

/// The global fixed-point sums (kForceSums per solid) from every rank's local_solid_force_sums (collective).
std::vector<unsigned long long> global_solid_force_sums(Simulation& simulation);

/// The force and torque on each of the case's solids (collective; config.solids order).
std::vector<SolidForce> solid_forces(Simulation& simulation);

}  // namespace eddy
