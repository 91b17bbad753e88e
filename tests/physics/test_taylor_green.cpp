// Taylor-Green vortex in a 3D periodic box (invariant along z, an exact Navier-Stokes solution):
//   u = U0 sin(k x) cos(k y) exp(-2 nu k^2 t),  v = -U0 cos(k x) sin(k y) exp(-2 nu k^2 t)   (Taylor & Green 1937)
// The measured decay rate of the velocity amplitude must match 2 nu k^2 within 1 %, for BGK and TRT on float, double
// and fp16 storage. The 1 % is the physics tolerance (the discretisation error is ~2e-4); no storage mode needs more:
//   float: relative rounding 2^-24 per operation; the rate comes from a ratio of energies summed over 16384 cells.
//   fp16 (tests/physics/rounding_budget.hpp): stochastic rounding adds zero-mean noise du with sigma_u / U0 of
//     order 2^-11 (g ~ U0 / 6; viscous damping keeps the noise of a periodic box near the per-store size). The
//     measured energy E = sum rho u^2 / 2 then errs by a zero-mean term ~ sqrt(2 / N) sigma_u / u_rms ~ 1e-5 and
//     a positive bias (sigma_u / u_rms)^2 ~ 1e-6; divided by 2 (t2 - t1) * rate = 1.9 for the rate, both stay
//     below 1e-4, two orders under the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

double kinetic_energy(const MacroscopicFields& f) {
  double e = 0.0;
  for (std::size_t k = 0; k < f.rho.size(); ++k)
    e += 0.5 * f.rho[k] * (f.u[0][k] * f.u[0][k] + f.u[1][k] * f.u[1][k] + f.u[2][k] * f.u[2][k]);
  return e;
}

struct TaylorGreenCase {
  Collision collision;
  Precision precision;
  const char* name;
};

void PrintTo(const TaylorGreenCase& c, std::ostream* os) { *os << c.name; }

class TaylorGreenDecay : public ::testing::TestWithParam<TaylorGreenCase> {};

TEST_P(TaylorGreenDecay, RateWithinOnePercent) {
  EDDY_REQUIRE_DEVICE();
  const int n = 64;
  CaseConfig c = test::box_case(n, n, 4, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.velocity = 0.02;
  c.initial = {InitialKind::taylor_green_2d, 0.02};
  c.collision = GetParam().collision;
  c.precision = GetParam().precision;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const std::int64_t t1 = 50, t2 = 550;
  sim->advance(t1);
  const double e1 = kinetic_energy(sim->fields());
  sim->advance(t2 - t1);
  const double e2 = kinetic_energy(sim->fields());
  const double k = 2.0 * M_PI / n;
  const double expected = 2.0 * c.nu * k * k;                       // amplitude decay rate
  const double measured = -std::log(e2 / e1) / (2.0 * double(t2 - t1));  // energy decays at twice that rate
  std::cout << "[ taylor-green ] " << GetParam().name << ": decay rate " << measured << " vs 2 nu k^2 = " << expected
            << " (relative error " << measured / expected - 1.0 << ")\n";
  EXPECT_NEAR(measured / expected, 1.0, 0.01);
  EXPECT_LT(e2, 0.5 * e1) << "the vortex must have decayed measurably";
}

INSTANTIATE_TEST_SUITE_P(Collisions, TaylorGreenDecay,
                         ::testing::Values(TaylorGreenCase{Collision::trt, Precision::float32, "TRT_float"},
                                           TaylorGreenCase{Collision::trt, Precision::float64, "TRT_double"},
                                           TaylorGreenCase{Collision::trt, Precision::float16, "TRT_fp16"},
                                           TaylorGreenCase{Collision::bgk, Precision::float32, "BGK_float"},
                                           TaylorGreenCase{Collision::bgk, Precision::float64, "BGK_double"},
                                           TaylorGreenCase{Collision::bgk, Precision::float16, "BGK_fp16"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace eddy
