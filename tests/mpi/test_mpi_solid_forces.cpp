// Forces on [[solid]] bodies (solver/solid_forces.hpp) on several ranks: every cut link is summed by the rank that
// owns its fluid cell, in 64-bit fixed point, and the ranks' integers are added exactly, so runs decomposed along x,
// y, z, 2 x 2 x 1 and 4 x 1 x 1 give bitwise the one-rank forces and torques, for a sphere cut by the rank
// boundaries of every layout and one cut by a periodic face, after an even and after an odd number of steps, with
// overlap on and off.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::world_rank;
using test::world_size;

SolidConfig sphere(const std::string& name, std::array<double, 3> centre, double radius) {
  SolidConfig s;
  s.name = name;
  s.shape = SolidShape::sphere;
  s.center = centre;
  s.radius = radius;
  return s;
}

/// A periodic 16 x 12 x 10 box under a body force with a sphere cut by the middle planes and one across the x face.
CaseConfig spheres_case(Precision precision) {
  CaseConfig c = test::box_case(16, 12, 10, 0.7);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.solids = {sphere("middle", {8.0, 6.0, 5.0}, 3.2), sphere("edge", {0.7, 3.0, 2.5}, 2.1)};
  c.precision = precision;
  c.velocity = 0.05;
  c.body_force = {2e-4, 5e-5, -3e-5};
  finalize_case(c);
  return c;
}

TEST(MpiSolidForces, BitwiseEqualToOneRank) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> layouts[] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {4, 1, 1}};
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    const CaseConfig config = spheres_case(precision);
    for (const int steps : {40, 41}) {
      std::vector<unsigned long long> reference;
      if (world_rank() == 0) {
        auto serial = Simulation::create(config);
        serial->advance(steps);
        reference = global_solid_force_sums(*serial);
        EXPECT_NE(reference[0], 0ull);
      }
      for (const auto& dims : layouts) {
        const int ranks = dims[0] * dims[1] * dims[2];
        if (world_size() % ranks != 0) continue;
        for (const bool overlap : {true, false}) {
          MPI_Comm group = MPI_COMM_NULL;
          MPI_Comm_split(MPI_COMM_WORLD, world_rank() / ranks, world_rank(), &group);
          CaseConfig c = config;
          c.parallel.ranks = dims;
          c.parallel.overlap = overlap;
          const Decomposition d = decompose(c, group);
          auto sim = Simulation::create(c, d);
          sim->advance(steps);
          const std::vector<unsigned long long> sums = global_solid_force_sums(*sim);
          sim.reset();
          MPI_Comm_free(&group);
          if (world_rank() != 0) continue;
          EXPECT_EQ(sums, reference) << "ranks " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", overlap "
                                     << overlap << ", steps " << steps << ", precision " << int(precision);
        }
      }
    }
  }
}

}  // namespace
}  // namespace eddy
