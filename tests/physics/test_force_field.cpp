// The per-cell force field (Simulation::force_array, the Python module's sim.force): the fused kernel adds it to the
// body force in its Guo forcing and every read-out to its F/2 shift.
//  - A random per-cell field on top of a body force, in a box with every boundary kind as in test_oracle.cpp: the
//    fused kernel against the CPU reference oracle with the same field (tests/reference/reference_lbm.hpp), 100 and
//    101 steps, double 1e-12 and float 1e-5 (max-norm relative), as the oracle test.
//  - A constant field F with no body force against [physics] body_force = F: bitwise the same populations and
//    fields (the same kernel arithmetic with F from memory instead of from the parameters; on the cpu backend;
//    GPU builds report whether it is bitwise and check float round-off).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/backend.hpp"
#include "solver/device_arrays.hpp"
#include "solver/simulation.hpp"
#include "tests/force_field_support.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

CaseConfig all_boundaries_case(Precision precision) {
  CaseConfig c = test::box_case(20, 18, 6, 0.7);
  test::make_periodic(c, 0);
  c.faces[2] = {FaceKind::moving_wall, {0.04, 0.0, 0.0}};
  c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.02}};
  c.faces[4] = {FaceKind::moving_wall, {0.03, -0.02, 0.0}};
  c.faces[5] = {FaceKind::moving_wall, {0.04, 0.0, 0.0}};
  c.body_force = {1e-5, -2e-5, 5e-6};
  c.precision = precision;
  c.velocity = 0.05;
  finalize_case(c);
  return c;
}

class ForceFieldVsOracle : public ::testing::TestWithParam<Precision> {};

TEST_P(ForceFieldVsOracle, RandomPerCellForceAgrees) {
  EDDY_REQUIRE_DEVICE();
  const Precision precision = GetParam();
  const double tolerance = precision == Precision::float64 ? 1e-12 : 1e-5;
  const CaseConfig config = all_boundaries_case(precision);
  const std::size_t n = std::size_t(config.size[0]) * config.size[1] * config.size[2];
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::array<std::vector<double>, 3> field;
  for (auto& component : field) {
    component.resize(n);
    for (double& v : component) v = 2e-4 * unit(rng);
  }
  // In the storage's arithmetic, so that both sides add the same per-cell values.
  if (precision != Precision::float64) {
    for (auto& component : field)
      for (double& v : component) v = double(float(v));
  }

  auto sim = Simulation::create(config);
  test::set_force_field(*sim, [&](int c, std::int64_t k) { return field[c][std::size_t(k)]; });
  reference::ReferenceLbm oracle(config);
  oracle.set_force_field(field);
  oracle.set_populations(sim->populations());  // the initial rest state, in storage precision

  auto without = Simulation::create(config);  // the same run without the field: the field must matter
  int done = 0;
  for (int steps : {100, 101}) {
    for (; done < steps; ++done) oracle.step();
    sim->advance(steps - sim->time_step());
    without->advance(steps - without->time_step());
    sim->synchronize();
    const std::vector<double> fused = sim->populations();
    const double error = test::max_relative_difference(fused, oracle.populations());
    EXPECT_LT(error, tolerance) << "populations after " << steps << " steps";
    EXPECT_GT(test::max_relative_difference(without->populations(), oracle.populations()), 10 * tolerance);
    std::vector<double> rho;
    std::array<std::vector<double>, 3> u;
    oracle.fields(rho, u);
    const MacroscopicFields fields = sim->fields();
    EXPECT_LT(test::max_relative_difference(fields.rho, rho), tolerance);
    for (int a = 0; a < 3; ++a) EXPECT_LT(test::max_relative_difference(fields.u[a], u[a]), 35 * tolerance) << a;
    std::cout << "[ force    ] " << (precision == Precision::float64 ? "double" : "float") << ", " << steps
              << " steps: max relative population difference " << error << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Storage, ForceFieldVsOracle, ::testing::Values(Precision::float64, Precision::float32),
                         [](const auto& info) { return info.param == Precision::float64 ? "double" : "float"; });

TEST(ForceField, ConstantFieldIsTheBodyForceBitForBit) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig with_body = test::box_case(24, 20, 6, 0.8);
  test::make_periodic(with_body, 0);
  test::make_periodic(with_body, 2);
  with_body.body_force = {3e-6, 0.0, 0.0};
  finalize_case(with_body);
  CaseConfig with_field = with_body;
  with_field.body_force = {0.0, 0.0, 0.0};
  finalize_case(with_field);

  auto a = Simulation::create(with_body);
  auto b = Simulation::create(with_field);
  test::set_force_field(*b, [&](int c, std::int64_t) { return with_body.body_force[c]; });
  a->advance(61);
  b->advance(61);
  const std::vector<double> fa = a->populations(), fb = b->populations();
  const MacroscopicFields ua = a->fields(), ub = b->fields();
  const bool bitwise = fa == fb && ua.rho == ub.rho && ua.u == ub.u;
  std::cout << "[ force    ] constant field vs body force after 61 steps: "
            << (bitwise ? "bitwise equal" : "not bitwise equal") << ", max relative population difference "
            << test::max_relative_difference(fa, fb) << "\n";
  if (EDDY_TEST_CPU_BACKEND) {
    EXPECT_TRUE(bitwise);
  } else {
    EXPECT_LT(test::max_relative_difference(fa, fb), 1e-6);
  }
  EXPECT_GT(ua.u[0][ua.index(12, 10, 3)], 1e-5);  // the force drove a flow
}

TEST(ForceField, RefusedWithTwoWayParticles) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(8, 8, 8, 0.8);
  c.particles.enabled = true;
  c.particles.kind = ParticleKind::inertial;
  c.particles.count = 4;
  c.particles.density = 2.0;
  c.particles.two_way = true;
  finalize_case(c);
  auto sim = Simulation::create(c);
  try {
    sim->force_array();
    FAIL() << "force_array() with two-way particles";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("particles.two_way"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace eddy
