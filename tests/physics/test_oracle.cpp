// The fused stream-collide kernel (this build's backend) against the plain CPU reference oracle, after 100 steps
// on a box with every boundary kind at once: periodic x, a no-slip wall, two moving walls meeting walls at edges
// (precedence), a body force, from a random non-equilibrium state. Double: 1e-12; float: 1e-5; fp16: 1e-4
// (max-norm relative; half keeps 11 significant bits of the stored f_i - w_i, |f_i - w_i| <= ~0.05 here).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "kernels/launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

struct OracleCase {
  Collision collision;
  Precision precision;
  double tolerance;
  const char* name;
};

void PrintTo(const OracleCase& c, std::ostream* os) { *os << c.name; }

class FusedKernelVsOracle : public ::testing::TestWithParam<OracleCase> {};

CaseConfig all_boundaries_case(const OracleCase& p) {
  CaseConfig c = test::box_case(12, 10, 8, 0.7);
  test::make_periodic(c, 0);
  c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.02}};   // y_max: a lid moving in x and z
  c.faces[4] = {FaceKind::moving_wall, {0.03, -0.02, 0.0}};  // z_min: meets the lid along an edge
  c.body_force = {1e-5, -2e-5, 5e-6};
  c.collision = p.collision;
  c.precision = p.precision;
  c.velocity = 0.05;
  finalize_case(c);
  return c;
}

/// Random populations near equilibrium with random density and velocity, plus non-equilibrium noise.
std::vector<double> random_state(const CaseConfig& c) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> f(19 * n);
  for (std::size_t k = 0; k < n; ++k) {
    const double rho = 1.0 + 0.02 * unit(rng);
    const double u[3] = {0.03 * unit(rng), 0.03 * unit(rng), 0.03 * unit(rng)};
    for (int i = 0; i < 19; ++i)
      f[i * n + k] = reference::ReferenceLbm::equilibrium(i, rho, u) * (1.0 + 0.05 * unit(rng));
  }
  return f;
}

TEST_P(FusedKernelVsOracle, HundredStepsAgree) {
  EDDY_REQUIRE_DEVICE();
  const OracleCase p = GetParam();
  const CaseConfig config = all_boundaries_case(p);
  const std::vector<double> start = random_state(config);

  reference::ReferenceLbm oracle(config);
  oracle.set_populations(start);
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  // Start values in storage precision for both, so float runs compare dynamics, not the initial rounding.
  oracle.set_populations(sim->populations());

  for (int s = 0; s < 100; ++s) oracle.step();
  sim->advance(100);
  sim->synchronize();

  const std::vector<double> fused = sim->populations();
  const double pop_error = test::max_relative_difference(fused, oracle.populations());
  EXPECT_LT(pop_error, p.tolerance) << "populations differ after 100 steps";
  // The run must have done something: populations moved away from the start.
  EXPECT_GT(test::max_relative_difference(fused, start), 1e-3);

  std::vector<double> rho;
  std::array<std::vector<double>, 3> u;
  oracle.fields(rho, u);
  const MacroscopicFields fields = sim->fields();
  EXPECT_LT(test::max_relative_difference(fields.rho, rho), p.tolerance);
  for (int a = 0; a < 3; ++a) EXPECT_LT(test::max_relative_difference(fields.u[a], u[a]), 10 * p.tolerance) << a;
  std::cout << "[ oracle   ] " << p.name << ": max relative population difference " << pop_error << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    AllBoundaryKinds, FusedKernelVsOracle,
    ::testing::Values(OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double"},
                      OracleCase{Collision::bgk, Precision::float64, 1e-12, "BGK_double"},
                      OracleCase{Collision::trt, Precision::float32, 1e-5, "TRT_float"},
                      OracleCase{Collision::bgk, Precision::float32, 1e-5, "BGK_float"},
                      OracleCase{Collision::trt, Precision::float16, 1e-4, "TRT_fp16"},
                      OracleCase{Collision::bgk, Precision::float16, 1e-4, "BGK_fp16"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FusedKernel, RepeatedRunsAreBitIdentical) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig config = all_boundaries_case({Collision::trt, Precision::float32, 0, ""});
  const std::vector<double> start = random_state(config);
  std::vector<double> result[2];
  for (auto& r : result) {
    auto sim = Simulation::create(config);
    sim->set_populations(start);
    sim->advance(50);
    r = sim->populations();
  }
  EXPECT_EQ(result[0], result[1]);
}

TEST(FusedKernel, SubBoxUpdatesComposeToTheWholeBox) {
  // The kernel updates any sub-box of a block: two halves give exactly the whole-box result, and cells outside
  // the box are not written (the destination is poisoned with NaN first).
  EDDY_REQUIRE_DEVICE();
  CaseConfig config = all_boundaries_case({Collision::trt, Precision::float64, 0, ""});
  const Decomposition serial = serial_decomposition(config);
  const BlockShape shape = block_shape(serial);
  const std::size_t size = std::size_t(d3q19::Q) * std::size_t(shape.n_cells());
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> value(0.01, 0.1);
  std::vector<double> host(size);
  for (auto& v : host) v = value(rng);
  DeviceBuffer<double> src(size), whole(size), halves(size);
  DeviceBuffer<CellFlag> flags(std::size_t(shape.n_cells()));
  src.upload(host);
  flags.upload(build_flags(config, serial));
  const std::vector<double> poison(size, std::nan(""));
  whole.upload(poison);
  halves.upload(poison);

  const auto relax = relaxation<double>(config);
  const auto walls = wall_velocities<double>(config);
  const PopulationView<double> in{src.data(), shape.n_cells()};
  const Box all = shape.interior();
  Box left = all, right = all;
  left.hi[1] = 4;
  right.lo[1] = 4;
  stream_collide(in, PopulationView<double>{whole.data(), shape.n_cells()}, FlagView{flags.data()}, shape, all, relax,
                 walls);
  stream_collide(in, PopulationView<double>{halves.data(), shape.n_cells()}, FlagView{flags.data()}, shape, left,
                 relax, walls);
  const std::vector<double> only_left = halves.download();
  stream_collide(in, PopulationView<double>{halves.data(), shape.n_cells()}, FlagView{flags.data()}, shape, right,
                 relax, walls);
  backend::synchronize();
  const std::vector<double> a = whole.download(), b = halves.download();
  for (std::size_t k = 0; k < size; ++k) {
    if (std::isnan(a[k])) {
      EXPECT_TRUE(std::isnan(b[k]));
    } else {
      EXPECT_EQ(a[k], b[k]) << "entry " << k;
    }
  }
  // After the left half only, a cell of the right half is untouched and a cell of the left half is written.
  EXPECT_TRUE(std::isnan(only_left[shape.index(3, 6, 3)]));
  EXPECT_FALSE(std::isnan(only_left[shape.index(3, 2, 3)]));
}

}  // namespace
}  // namespace eddy
