// Interpolated walls ([[solid]] wall = "interpolated", kernels/interpolated_walls.hpp) on several ranks: bodies placed
// off the rank boundaries' symmetry planes, so that the boundaries cut them with links of every kind, among them
// links whose second node x_b = x_f - c_i is a ghost cell (the pass's second group, which runs after the halo
// exchange; the test checks that every layout has some). Runs decomposed along x, y, z, 2 x 2 x 1 and 4 x 1 x 1, with
// overlap on and off, give bitwise the one-rank fields and forces, after an even and an odd number of steps, in
// float, fp16 and double.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "solver/decomposition.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::world_rank;
using test::world_size;

/// A periodic 16 x 12 x 10 box under a body force: a sphere across the x, y and z middle planes off their symmetry,
/// a cylinder along z across the periodic x face, a box with faces off the half-way planes across the y middle.
CaseConfig bodies_case(Precision precision) {
  CaseConfig c = test::box_case(16, 12, 10, 0.7);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  SolidConfig ball, post, brick;
  ball.name = "ball";
  ball.shape = SolidShape::sphere;
  ball.center = {8.6, 5.3, 4.7};
  ball.radius = 3.3;
  ball.forces = true;
  post.name = "post";
  post.shape = SolidShape::cylinder;
  post.start = {0.4, 9.1, 0.0};
  post.end = {0.4, 9.1, 10.0};
  post.radius = 1.8;
  brick.name = "brick";
  brick.shape = SolidShape::box;
  brick.min = {12.3, 4.6, 1.2};
  brick.max = {14.7, 7.8, 8.4};
  c.solids = {ball, post, brick};
  c.precision = precision;
  c.velocity = 0.05;
  c.body_force = {2e-4, 5e-5, -3e-5};
  finalize_case(c);
  return c;
}

struct Outcome {
  std::vector<double> fields;
  std::vector<unsigned long long> forces;
};

Outcome run(const CaseConfig& c, const Decomposition& d, int steps, MPI_Comm comm) {
  auto sim = d.serial() ? Simulation::create(c) : Simulation::create(c, d);
  sim->advance(steps);
  Outcome o;
  o.forces = global_solid_force_sums(*sim);
  const MacroscopicFields f = sim->fields();
  std::vector<double> local = f.rho;
  for (int a = 0; a < 3; ++a) local.insert(local.end(), f.u[a].begin(), f.u[a].end());
  o.fields = d.serial() ? local : test::gather_global(f, local, 4, comm);
  return o;
}

TEST(MpiInterpolatedWalls, BitwiseEqualToOneRank) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> layouts[] = {{2, 1, 1}, {1, 2, 1}, {1, 1, 2}, {2, 2, 1}, {4, 1, 1}};
  for (const Precision precision : {Precision::float32, Precision::float16, Precision::float64}) {
    const CaseConfig config = bodies_case(precision);
    for (const int steps : {30, 31}) {
      Outcome reference;
      if (world_rank() == 0) {
        reference = run(config, serial_decomposition(config), steps, MPI_COMM_NULL);
        EXPECT_NE(reference.forces[0], 0ull);
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
          // The layout exercises the links that read the ghost layer (x_b a ghost cell) on some rank.
          const CutLinkList list = cut_links(c, d, build_flags(c, d));
          long long ghost_links = list.interpolated - list.interior_interpolated;
          MPI_Allreduce(MPI_IN_PLACE, &ghost_links, 1, MPI_LONG_LONG, MPI_SUM, group);
          const Outcome o = run(c, d, steps, group);
          MPI_Comm_free(&group);
          if (world_rank() != 0) continue;
          const std::string what = "ranks " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                                   std::to_string(dims[2]) + ", overlap " + std::to_string(overlap) + ", steps " +
                                   std::to_string(steps) + ", precision " + std::to_string(int(precision));
          EXPECT_GT(ghost_links, 0) << what;
          EXPECT_EQ(o.forces, reference.forces) << what;
          ASSERT_EQ(o.fields.size(), reference.fields.size());
          std::size_t mismatches = 0;
          for (std::size_t k = 0; k < o.fields.size(); ++k) mismatches += o.fields[k] != reference.fields[k];
          EXPECT_EQ(mismatches, 0u) << what << ": values that differ from the one-rank run";
        }
      }
    }
  }
}

TEST(MpiInterpolatedWalls, ForcesWhenSomeRanksHoldNoLink) {
  // Sampling the forces completes the step on every rank (its walls' pass and the pending halo exchange, which is
  // collective): a rank without cut links takes part too (it used to return early and leave its neighbours waiting).
  EDDY_REQUIRE_DEVICE();
  CaseConfig config = bodies_case(Precision::float32);
  config.solids.resize(1);
  config.solids[0].center = {3.7, 5.3, 4.7};
  config.solids[0].radius = 2.2;  // inside the lower half in x: the x2 layout's upper block holds no link
  finalize_case(config);
  if (world_size() % 2 != 0) GTEST_SKIP() << "SKIPPED: needs an even number of ranks";
  for (const int steps : {6, 7}) {  // the exchange due into the ghosts, and out of them
    Outcome reference;
    if (world_rank() == 0) reference = run(config, serial_decomposition(config), steps, MPI_COMM_NULL);
    MPI_Comm group = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() / 2, world_rank(), &group);
    CaseConfig c = config;
    c.parallel.ranks = {2, 1, 1};
    const Decomposition d = decompose(c, group);
    long long fewest = static_cast<long long>(cut_links(c, d, build_flags(c, d)).links.size());
    MPI_Allreduce(MPI_IN_PLACE, &fewest, 1, MPI_LONG_LONG, MPI_MIN, group);
    auto sim = Simulation::create(c, d);
    sim->advance(steps);
    const std::vector<unsigned long long> forces = global_solid_force_sums(*sim);  // forces first, fields after
    sim.reset();
    MPI_Comm_free(&group);
    if (world_rank() != 0) continue;
    EXPECT_EQ(fewest, 0) << "a block without links";
    EXPECT_EQ(forces, reference.forces) << steps << " steps";
  }
}

}  // namespace
}  // namespace eddy
