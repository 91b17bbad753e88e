// Conservation: a closed cavity keeps its mass to round-off (at rest and with a moving lid); a fluid at rest
// stays at rest; in a periodic box the Guo body force adds exactly F per cell per step to the momentum.
// Each claim runs on float, double and fp16 storage. Double keeps its round-off tolerances; float and fp16 derive
// theirs from the run's populations with tests/physics/rounding_budget.hpp:
//   float: worst-case round to nearest, kFloatRoundings * u * sum over updates of sum_i |g_i|, summed over steps
//     (repeating rounding errors of a smooth state need not cancel; the float cavity's mass drifted steadily while
//     the collision's weights summed to 1 + 2^-26: FloatMassDrift below);
//   fp16: the stored values carry zero-mean stochastic-rounding errors, so mass and momentum random-walk:
//     sigma^2 <= sum over stores of (2^-11 |g|)^2 (times c_ia^2 for momentum), growing like sqrt(cells 19 steps);
//     allowed: kSigmas sigma + the float-arithmetic bound + the subnormal worst case. The drift is checked every
//     50 steps, so a systematic drift (linear in time, against sqrt(time) for the random walk) would show. Mass
//     catches a bias of one sign (e.g. always rounding up); momentum catches a bias towards zero (truncation), the
//     mechanism of the round-to-nearest stall (kernels/storage.hpp), since it shrinks every c_i g_i.
// Mass is summed in double from Simulation::populations() (no float read-out rounding).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "solver/simulation.hpp"
#include "tests/physics/rounding_budget.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

class Conservation : public ::testing::TestWithParam<Precision> {};

TEST_P(Conservation, ClosedCavityAtRestKeepsMassAndStaysAtRest) {
  // At rest every g_i = f_i - w_i is exactly 0, which all three formats hold exactly; stochastic rounding leaves
  // representable values unchanged (zero bits below half's last place stay zero). So the double tolerances hold
  // for every storage mode.
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(16, 12, 10, 0.7);
  c.precision = GetParam();
  finalize_case(c);
  auto sim = Simulation::create(c);
  const double mass0 = sim->diagnose().mass;
  sim->advance(300);
  const Diagnostics d = sim->diagnose();
  EXPECT_NEAR(d.mass / mass0 - 1.0, 0.0, 1e-14);
  EXPECT_LT(d.max_speed, 1e-15);
}

TEST_P(Conservation, ClosedCavityWithMovingLidKeepsMass) {
  EDDY_REQUIRE_DEVICE();
  const Precision p = GetParam();
  const int n = 16;
  const double lid = 0.1;
  CaseConfig c = test::box_case(n, n, n, 0.6);
  c.faces[3] = {FaceKind::moving_wall, {lid, 0.0, 0.0}};
  c.velocity = lid;
  c.precision = p;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const double mass0 = test::population_mass(test::shifted(sim->populations()));
  const std::size_t cells = std::size_t(n) * n * n;

  // Budgets summed over every step's stored populations. A population bounced off the lid is stored with the
  // Ladd term 6 w_i c_i.u_w added (odd steps; counted on every step, an upper bound), and populations() returns it
  // without: its magnitude is bounded by |g_i| + |6 w_i c_i.u_w|.
  double var = 0.0, abs_sum = 0.0, subnormal = 0.0, max_drift = 0.0;
  for (int step = 1; step <= 500; ++step) {
    sim->advance(1);
    const std::vector<double> g = test::shifted(sim->populations());
    for (int i = 0; i < d3q19::Q; ++i) {
      const double ladd = 6.0 * d3q19::w<double>(i) * std::abs(d3q19::c(i, 0) * lid);
      for (std::size_t k = 0; k < cells; ++k) {
        const bool at_lid = d3q19::c(i, 1) == 1 && k / n % n == std::size_t(n - 1);
        const double stored = std::abs(g[i * cells + k]) + (at_lid ? ladd : 0.0);
        var += stored * stored;
        abs_sum += stored;
      }
    }
    subnormal += d3q19::Q * double(cells) * test::kHalfSubnormalError;
    if (step % 50 != 0) continue;

    const double drift = test::population_mass(g) / mass0 - 1.0;
    const double float_bound = test::kFloatRoundings * test::arithmetic_unit_roundoff(p) * abs_sum / mass0;
    const double sigma = test::kHalfStoreSigma * std::sqrt(var) / mass0;
    double tolerance = 1e-12;  // double: round-off
    if (p == Precision::float32) tolerance = float_bound;
    if (p == Precision::float16) tolerance = test::kSigmas * sigma + float_bound + subnormal / mass0;
    EXPECT_LT(std::abs(drift), tolerance) << "step " << step;
    max_drift = std::max(max_drift, std::abs(drift));
    if (step == 500) {
      std::cout << "[ conservation ] closed cavity with lid, 500 steps, " << test::storage_name(p)
                << ": relative mass drift " << drift << " (max |drift| over the 50-step checks " << max_drift
                << "; tolerance " << tolerance << ": float bound " << float_bound;
      if (p == Precision::float16)
        std::cout << ", fp16 sigma " << sigma << "; a one-signed rounding bias above "
                  << tolerance * mass0 / (test::kHalfStoreSigma * abs_sum) << " ulp per store would exceed it";
      std::cout << ")\n";
    }
  }
  const Diagnostics d = sim->diagnose();
  EXPECT_GT(d.max_speed, 0.01) << "the lid must drive a flow";
}

TEST_P(Conservation, BodyForceAddsExactlyFPerStep) {
  EDDY_REQUIRE_DEVICE();
  const Precision p = GetParam();
  CaseConfig c = test::box_case(8, 6, 4, 0.9);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.body_force = {1e-6, -2e-6, 3e-6};
  c.precision = p;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const std::int64_t steps = 40;
  const double cells = 8 * 6 * 4;
  // Per axis over all stores: variance budget sum c_ia^2 g_i^2 and the momentum sum c_ia g_i along F (what a
  // bias towards zero would shrink); sum |g_i| for the float bound.
  double var[3] = {0, 0, 0}, aligned[3] = {0, 0, 0}, abs_sum = 0.0;
  std::vector<double> g;
  for (std::int64_t s = 0; s < steps; ++s) {
    sim->advance(1);
    g = test::shifted(sim->populations());
    const std::size_t n = g.size() / d3q19::Q;
    for (int i = 0; i < d3q19::Q; ++i)
      for (std::size_t k = 0; k < n; ++k) {
        const double gi = g[i * n + k];
        abs_sum += std::abs(gi);
        for (int a = 0; a < 3; ++a) {
          var[a] += d3q19::c(i, a) * d3q19::c(i, a) * gi * gi;
          aligned[a] += d3q19::c(i, a) * gi * (c.body_force[a] > 0 ? 1.0 : -1.0);
        }
      }
  }
  // The read-out u = (j + F/2) / rho is one more float evaluation of the moments.
  for (double v : g) abs_sum += std::abs(v);

  const MacroscopicFields f = sim->fields();
  for (int a = 0; a < 3; ++a) {
    double momentum = 0.0;  // sum rho u = sum f c + F/2 per cell
    for (std::size_t k = 0; k < f.rho.size(); ++k) momentum += f.rho[k] * f.u[a][k];
    const double expected = c.body_force[a] * (double(steps) + 0.5);
    const double error = momentum / cells - expected;
    // Per cell. Subnormal worst case: the 10 directions with c_ia != 0, every step.
    const double float_bound = test::kFloatRoundings * test::arithmetic_unit_roundoff(p) * abs_sum / cells;
    const double sigma = test::kHalfStoreSigma * std::sqrt(var[a]) / cells;
    double tolerance = 1e-15;  // double: round-off
    if (p == Precision::float32) tolerance = float_bound;
    if (p == Precision::float16)
      tolerance = test::kSigmas * sigma + float_bound + 10.0 * double(steps) * test::kHalfSubnormalError;
    std::cout << "[ conservation ] body force, " << test::storage_name(p) << ", axis " << a << ": momentum per cell "
              << momentum / cells << ", error " << error << " (relative " << error / expected << "; tolerance "
              << tolerance;
    if (p == Precision::float16)
      std::cout << ", fp16 sigma " << sigma << "; a bias towards zero of ~"
                << tolerance * cells / (test::kHalfStoreSigma * aligned[a]) << " ulp per store would reach it";
    std::cout << ")\n";
    EXPECT_NEAR(momentum / cells, expected, tolerance) << "axis " << a;
  }
}

// The float lid cavity's mass has no steady drift. A collision whose weights sum to 1 + excess changes a cell's mass
// by omega excess B per step plus rounding, with B = drho - 3/2 rho u.u (kernels/collision.hpp, kernels/d3q19.hpp);
// in a steady flow B < 0 almost everywhere and repeats every step, so the excess gives a drift linear in time, while
// unbiased rounding errors of a settled state do not add up. With the nearest float weights (excess 2^-26) this
// cavity (the default case at N = 32: Re = 100, U = 0.1, TRT) drifted by -2.2e-11 per step, -4.6e-7 over the window
// below (0.92 of the 2^-26 prediction; -8.2e-6 after 400,000 steps, issue 19). With the rest weight in two parts
// that complete the sum to 1 the window's drift is +1.5e-10 (0.0003 of the prediction; within +3e-8 over 400,000
// steps, no trend). Allowed: a tenth of the prediction, so a systematic bias of a tenth of the old one fails.
TEST(FloatMassDrift, LidCavityHasNoSteadyDrift) {
  EDDY_REQUIRE_DEVICE();
  const int n = 32;
  const double lid = 0.1;
  CaseConfig c = test::box_case(n, n, 1, 0.0);
  c.tau = 0.0;
  c.reynolds = 100.0;
  c.velocity = lid;
  test::make_periodic(c, 2);
  c.faces[3] = {FaceKind::moving_wall, {lid, 0.0, 0.0}};
  c.precision = Precision::float32;
  finalize_case(c);
  auto sim = Simulation::create(c);
  // Settled at rounding level after about 20,000 steps (the viscous time L^2 / nu is 32,000 steps).
  const std::int64_t transient = 20000, window = 20000;
  sim->advance(transient);
  const double mass_before = test::population_mass(test::shifted(sim->populations()));
  sim->advance(window);
  const double mass_after = test::population_mass(test::shifted(sim->populations()));
  const MacroscopicFields f = sim->fields();
  double sum_b = 0.0;  // sum over cells of B of the steady state
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    const double usq = f.u[0][k] * f.u[0][k] + f.u[1][k] * f.u[1][k] + f.u[2][k] * f.u[2][k];
    sum_b += (f.rho[k] - 1.0) - 1.5 * f.rho[k] * usq;
  }
  const double excess_drift = double(window) * (1.0 / c.tau) * 0x1p-26 * sum_b / mass_before;
  const double drift = mass_after / mass_before - 1.0;
  std::cout << "[ conservation ] float lid cavity " << n << "^2, steps " << transient << " to " << transient + window
            << ": relative mass drift " << drift << " (" << drift / double(window) << " per step); a weight sum of "
            << "1 + 2^-26 would give " << excess_drift << "\n";
  EXPECT_LT(std::abs(drift), 0.1 * std::abs(excess_drift));
}

INSTANTIATE_TEST_SUITE_P(Storage, Conservation,
                         ::testing::Values(Precision::float32, Precision::float64, Precision::float16),
                         [](const auto& info) { return "storage_" + test::storage_name(info.param); });

}  // namespace
}  // namespace eddy
