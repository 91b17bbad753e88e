// Turbulence statistics ([statistics], solver/flow_statistics.hpp) on several ranks (CTest label mpi, 4 ranks): a
// channel with a sphere (interpolated walls cut by the rank boundaries) and a passive temperature, decomposed along
// x, 2 x 2 x 1 and z, with overlap on and off, gives bitwise the one-rank sums of every cell (rho, u, u_a u_b and T)
// and the same sample count, and bitwise the same profile averaged over x and z (summed over the ranks in fixed
// point, solver/statistics_profile.hpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "solver/statistics_profile.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::world_rank;

/// 16 x 12 x 8, periodic x and z, walls y, a body force along x, a sphere, a passive T perturbed at the start.
CaseConfig statistics_channel() {
  CaseConfig c = test::box_case(16, 12, 8, 0.7);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.velocity = 0.03;
  c.body_force = {2e-5, 0.0, 0.0};
  SolidConfig ball;
  ball.name = "ball";
  ball.shape = SolidShape::sphere;
  ball.center = {8.0, 6.0, 4.0};
  ball.radius = 2.5;
  c.solids.push_back(ball);
  c.thermal.enabled = true;
  c.thermal.prandtl = 0.71;
  c.thermal.perturbation = 0.2;  // adiabatic walls (fixed ones do not go with solids yet): a perturbed T diffusing
  c.steps = 90;
  c.statistics.enabled = true;
  c.statistics.start = 15;
  c.statistics.every = 2;
  c.statistics.average = {true, false, true};
  finalize_case(c);
  return c;
}

struct Result {
  std::vector<double> sums;  // every cell's sums in global order (rank 0 of the group)
  std::int64_t samples = 0;
  StatisticsProfile profile;
};

Result statistics_of(Simulation& sim, MPI_Comm comm) {
  const MacroscopicFields f = sim.fields();
  const StatisticsSums s = sim.statistics_sums();
  Result r;
  r.sums = test::gather_global(f, s.sums, s.components(), comm);
  r.samples = s.samples;
  r.profile = statistics_profile(sim.config(), s, sim.decomposition(), OutputScaling::of(sim.config()));
  return r;
}

TEST(MpiStatistics, SumsAndProfileMatchOneRankBitwise) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = statistics_channel();
  Result reference;
  if (world_rank() == 0) {
    auto serial = Simulation::create(c);
    serial->advance(c.steps);
    reference = statistics_of(*serial, MPI_COMM_SELF);
    ASSERT_EQ(reference.samples, 38);                            // 15, 17, ..., 89
    ASSERT_EQ(reference.profile.columns.size(), 2u + 14u + 1u);  // y, fluid_cells, 14 statistics... and T
    const std::vector<double>& u = reference.profile.columns[2];
    EXPECT_GT(*std::max_element(u.begin(), u.end()), 1e-3) << "the flow should have moved";
  }
  for (const bool overlap : {true, false}) {
    test::for_each_layout(c, [&](const CaseConfig& layout, MPI_Comm group) {
      CaseConfig d = layout;
      d.parallel.overlap = overlap;
      auto sim = Simulation::create(d, decompose(d, group));
      sim->advance(d.steps);
      const Result got = statistics_of(*sim, group);
      if (world_rank() != 0) return;
      const auto& dims = d.parallel.ranks;
      const std::string where = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" +
                                std::to_string(dims[2]) + (overlap ? " with overlap" : " without overlap");
      EXPECT_EQ(got.samples, reference.samples) << where;
      ASSERT_EQ(got.sums.size(), reference.sums.size()) << where;
      EXPECT_TRUE(std::equal(got.sums.begin(), got.sums.end(), reference.sums.begin()))
          << where << ": the per-cell sums differ from one rank";
      EXPECT_EQ(got.profile.names, reference.profile.names) << where;
      ASSERT_EQ(got.profile.columns.size(), reference.profile.columns.size()) << where;
      for (std::size_t k = 0; k < got.profile.columns.size(); ++k) {
        EXPECT_TRUE(std::equal(got.profile.columns[k].begin(), got.profile.columns[k].end(),
                               reference.profile.columns[k].begin()))
            << where << ": profile column " << reference.profile.names[k] << " differs from one rank";
      }
    });
  }
}

}  // namespace
}  // namespace eddy
