// Forces on [[solid]] bodies (solver/solid_forces.hpp) on several ranks: every cut link is summed by the rank that
// owns its fluid cell, in 64-bit fixed point, and the ranks' integers are added exactly, so runs decomposed along x,
// y, z, 2 x 2 x 1 and 4 x 1 x 1 give bitwise the one-rank forces and torques, for a sphere cut by the rank
// boundaries of every layout and one cut by a periodic face, after an even and after an odd number of steps, with
// overlap on and off. The `solid` field's labels, decided by global position, assemble to one rank's.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>

#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::run_split;
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
          const std::vector<unsigned long long> sums = run_split(
              config, dims, overlap, steps, [](Simulation& s, MPI_Comm) { return global_solid_force_sums(s); });
          if (world_rank() != 0) continue;
          EXPECT_EQ(sums, reference) << "ranks " << dims[0] << "x" << dims[1] << "x" << dims[2] << ", overlap "
                                     << overlap << ", steps " << steps << ", precision " << int(precision);
        }
      }
    }
  }
}

// The `solid` output field (solver/lattice_setup.hpp, solid_labels) by global position: each rank's labels, assembled,
// equal one rank's, for spheres cut by the rank boundaries and by the periodic x face.
TEST(MpiSolidForces, SolidLabelsEqualOneRank) {
  const CaseConfig config = spheres_case(Precision::float32);
  std::vector<double> reference;
  if (world_rank() == 0) {
    const std::vector<std::int32_t> labels = solid_labels(config, serial_decomposition(config));
    reference.assign(labels.begin(), labels.end());
    EXPECT_GT(std::count(reference.begin(), reference.end(), 1.0), 100);
    EXPECT_GT(std::count(reference.begin(), reference.end(), 2.0), 20);
  }
  test::for_each_layout(config, [&](const CaseConfig& c, MPI_Comm group) {
    const Decomposition d = decompose(c, group);
    const std::vector<std::int32_t> mine = solid_labels(c, d);
    MacroscopicFields where;  // the block's place in the grid, for gather_global
    where.size = d.local_size;
    where.offset = d.offset;
    where.global_size = d.global_size;
    const std::vector<double> all = test::gather_global(where, std::vector<double>(mine.begin(), mine.end()), 1, group);
    if (world_rank() == 0) {
      EXPECT_EQ(all, reference) << "ranks " << c.parallel.ranks[0] << "x" << c.parallel.ranks[1] << "x"
                                << c.parallel.ranks[2];
    }
  });
}

}  // namespace
}  // namespace eddy
