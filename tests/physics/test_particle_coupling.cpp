// Two-way coupling of particles and lattice (solver/particle_system.hpp) in a periodic box, double precision:
// the drag the particles feel goes back into the fluid through the Guo force, so the total momentum
//   P = sum_cells rho u  -  F_next / 2  +  F_next  +  sum_particles m v
// (rho u includes half of the force F_next the particles will apply in the next step, which is itself momentum in
// transit) changes only by the external force on the particles, gravity with buoyancy: sum_p m (1 - 1/rho_p) g
// per step. Checked to round-off and the fixed-point resolution of the deposit (2^-48) over 300 steps while the
// particles accelerate and drag the fluid along.
#include <gtest/gtest.h>

#include <cmath>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr double kPi = 3.14159265358979323846;

CaseConfig settling_box() {
  CaseConfig c = test::box_case(16, 16, 16, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  c.velocity = 0.01;
  c.precision = Precision::float64;
  c.particles.enabled = true;
  c.particles.kind = ParticleKind::inertial;
  c.particles.count = 60;
  c.particles.seed = 11;
  c.particles.diameter = 1.5;
  c.particles.density = 4.0;
  c.particles.gravity = {1e-5, -3e-5, 2e-5};
  c.particles.two_way = true;
  finalize_case(c);
  return c;
}

/// Total momentum per axis as in the file comment.
std::array<double, 3> total_momentum(Simulation& sim) {
  const MacroscopicFields f = sim.fields();
  const std::array<double, 3> in_transit = sim.particle_force_on_fluid();
  const ParticleSnapshot p = sim.particles();
  std::array<double, 3> total{};
  for (int a = 0; a < 3; ++a) {
    for (std::size_t k = 0; k < f.rho.size(); ++k) total[a] += f.rho[k] * f.u[a][k];
    total[a] += 0.5 * in_transit[a];
    for (std::size_t k = 0; k < p.size(); ++k) {
      total[a] += p.density[k] * kPi / 6.0 * std::pow(p.diameter[k], 3) * p.v[a][k];
    }
  }
  return total;
}

TEST(ParticleCoupling, TwoWayConservesTotalMomentumToRoundOff) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig c = settling_box();
  auto sim = Simulation::create(c);
  const std::array<double, 3> start = total_momentum(*sim);
  const int steps = 300;
  sim->advance(steps);
  const std::array<double, 3> end = total_momentum(*sim);
  const ParticleSnapshot p = sim->particles();
  ASSERT_EQ(p.size(), std::size_t(c.particles.count));
  double fluid_momentum = 0.0, external_scale = 0.0;
  const MacroscopicFields f = sim->fields();
  for (std::size_t k = 0; k < f.rho.size(); ++k) fluid_momentum += std::abs(f.rho[k] * f.u[1][k]);
  for (int a = 0; a < 3; ++a) {
    double external = 0.0;  // sum_p m (1 - 1/rho_p) g per step
    for (std::size_t k = 0; k < p.size(); ++k) {
      external += p.density[k] * kPi / 6.0 * std::pow(p.diameter[k], 3) * (1.0 - 1.0 / p.density[k]) * c.particles.gravity[a];
    }
    external_scale = std::max(external_scale, std::abs(external * steps));
    // Bound: each deposit rounds 8 weighted forces to the fixed-point grid (half a unit each), per particle and step,
    // plus double round-off of the O(1) sums.
    const double quantization = steps * double(p.size()) * 8.0 * 0.5 / ForceDepositView::kScale;
    EXPECT_NEAR(end[a] - start[a], external * steps, quantization + 1e-12 * std::abs(external * steps))
        << "axis " << a << ": momentum change minus the external impulse";
  }
  // The coupling did something: the fluid carries a sizeable share of the impulse.
  EXPECT_GT(fluid_momentum, 0.1 * external_scale);
}

}  // namespace
}  // namespace eddy
