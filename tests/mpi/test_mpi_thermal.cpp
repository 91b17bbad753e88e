// MPI test of the heat transport (CTest label mpi, 4 ranks): a buoyant, heated box decomposed along x, 2 x 2 x 1 and
// z gives the same temperature, velocity and vorticity as one rank, bitwise on the cpu backend, while the flow and T
// cross the rank boundaries (T's and u's ghost planes, the periodic axis, the hashed initial perturbation). Out of
// core on 2 and 4 ranks along z (solver/out_of_core.hpp), the box and a Rayleigh-Benard layer give the one-rank
// in-core bits too: T's deep halo planes come from the z-neighbours, across the periodic face as well.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "solver/decomposition.hpp"
#include "solver/simulation.hpp"
#include "tests/mpi/mpi_test_support.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::world_rank;
using test::world_size;

/// Hot wall x_min, cold wall x_max, adiabatic y walls, periodic z; gravity -y; a perturbed initial T.
CaseConfig heated_box() {
  CaseConfig c = test::box_case(16, 14, 12, 0.0);
  test::make_periodic(c, 2);
  c.velocity = 0.08;
  c.thermal.enabled = true;
  c.thermal.prandtl = 0.71;
  c.thermal.rayleigh = 2e4;
  c.thermal.walls[0] = ThermalWall::fixed;
  c.thermal.wall_temperature[0] = 1.0;
  c.thermal.walls[1] = ThermalWall::fixed;
  c.thermal.wall_temperature[1] = 0.0;
  c.thermal.perturbation = 0.05;
  finalize_case(c);
  return c;
}

/// T, rho, u and vorticity of every cell, assembled on rank 0 of `comm` (zeros elsewhere).
std::vector<double> state(Simulation& sim, MPI_Comm comm) {
  const MacroscopicFields f = sim.fields();
  std::vector<double> local = sim.temperature();
  local.insert(local.end(), f.rho.begin(), f.rho.end());
  for (const auto& component : f.u) local.insert(local.end(), component.begin(), component.end());
  const std::vector<double> w = sim.derived_field("vorticity");
  local.insert(local.end(), w.begin(), w.end());
  return test::gather_global(f, local, 8, comm);
}

TEST(MpiThermal, TemperatureVelocityAndVorticityMatchOneRank) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = heated_box();
  const int steps = 150;
  std::vector<double> reference;
  if (world_rank() == 0) {
    auto serial = Simulation::create(c);
    serial->advance(steps);
    reference = state(*serial, MPI_COMM_SELF);
    const std::size_t n = reference.size() / 8;
    double fastest = 0.0;
    for (std::size_t k = 2 * n; k < 5 * n; ++k) fastest = std::max(fastest, std::abs(reference[k]));
    EXPECT_GT(fastest, 1e-4) << "buoyancy should have set the fluid in motion";
  }
  test::for_each_layout(c, [&](const CaseConfig& d, MPI_Comm group) {
    const auto& dims = d.parallel.ranks;
    auto sim = Simulation::create(d, decompose(d, group));
    sim->advance(steps);
    const std::vector<double> got = state(*sim, group);
    const std::array<double, 6> inflow = sim->face_heat_inflow();  // collective
    if (world_rank() != 0) return;
    const std::size_t n = got.size() / 8;
    const char* names[] = {"temperature", "density", "velocity", "vorticity"};
    const std::size_t first[] = {0, n, 2 * n, 5 * n, 8 * n};
    for (int part = 0; part < 4; ++part) {
      EXPECT_TRUE(std::equal(got.begin() + first[part], got.begin() + first[part + 1], reference.begin() + first[part]))
          << dims[0] << "x" << dims[1] << "x" << dims[2] << ": " << names[part] << " differs from one rank";
    }
    EXPECT_GT(inflow[0], 0.0) << "heat enters at the hot wall";
    EXPECT_LT(inflow[1], 0.0) << "heat leaves at the cold wall";
  });
}

/// Hot bottom z_min, cold top z_max, periodic x and y, gravity -z, a perturbed initial T (Rayleigh-Benard).
CaseConfig rayleigh_benard_layer() {
  CaseConfig c = test::box_case(12, 10, 16, 0.0);
  test::make_periodic(c, 0);
  test::make_periodic(c, 1);
  c.velocity = 0.08;
  c.length = 16;
  c.thermal.enabled = true;
  c.thermal.prandtl = 0.71;
  c.thermal.rayleigh = 1e4;
  c.thermal.gravity_direction = {0.0, 0.0, -1.0};
  c.thermal.walls[4] = ThermalWall::fixed;
  c.thermal.wall_temperature[4] = 0.5;
  c.thermal.walls[5] = ThermalWall::fixed;
  c.thermal.wall_temperature[5] = -0.5;
  c.thermal.perturbation = 0.05;
  finalize_case(c);
  return c;
}

TEST(MpiOutOfCoreThermal, BitwiseEqualToOneRankInCore) {
  EDDY_REQUIRE_DEVICE();
  struct Setting {
    int ranks, time_block, slabs;
  };
  const Setting settings[] = {{2, 2, 2}, {2, 3, 1}, {4, 1, 2}};
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    for (CaseConfig config : {heated_box(), rayleigh_benard_layer()}) {
      config.precision = precision;
      finalize_case(config);
      const int steps = 13;
      std::vector<double> reference;
      if (world_rank() == 0) {
        auto serial = Simulation::create(config);
        std::vector<double> initial = serial->temperature();
        serial->advance(steps);
        reference = state(*serial, MPI_COMM_SELF);
        double change = 0.0;
        for (std::size_t k = 0; k < initial.size(); ++k) change = std::max(change, std::abs(reference[k] - initial[k]));
        EXPECT_GT(change, 1e-3) << "T should have moved";
      }
      for (const Setting& s : settings) {
        if (world_size() % s.ranks != 0) continue;
        CaseConfig ooc = config;
        ooc.out_of_core.mode = OutOfCoreMode::on;
        ooc.out_of_core.time_block = s.time_block;
        ooc.out_of_core.slabs = s.slabs;
        ooc.out_of_core.device_memory_limit = std::int64_t(1) << 28;
        finalize_case(ooc);
        MPI_Comm group = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank() / s.ranks, world_rank(), &group);
        const Decomposition d = decompose(ooc, group);
        ASSERT_EQ(d.dims, (std::array<int, 3>{1, 1, s.ranks}));
        auto sim = Simulation::create(ooc, d);
        OutOfCoreStats stats;
        ASSERT_TRUE(sim->out_of_core(stats));
        sim->advance(steps);
        const std::vector<double> got = state(*sim, group);
        MPI_Comm_free(&group);
        if (world_rank() != 0) continue;
        ASSERT_EQ(got.size(), reference.size());
        const std::size_t n = got.size() / 8;
        const char* names[] = {"temperature", "density", "velocity", "vorticity"};
        const std::size_t first[] = {0, n, 2 * n, 5 * n, 8 * n};
        for (int part = 0; part < 4; ++part) {
          EXPECT_TRUE(
              std::equal(got.begin() + first[part], got.begin() + first[part + 1], reference.begin() + first[part]))
              << s.ranks << " ranks, time_block " << s.time_block << ", " << s.slabs << " slabs, storage "
              << int(precision) << (config.faces[4].kind == FaceKind::periodic ? ", heated box" : ", Rayleigh-Benard")
              << ": " << names[part] << " differs from one rank in core";
        }
      }
    }
  }
}

}  // namespace
}  // namespace eddy
