// Forces on [[solid]] bodies by momentum exchange (kernels/solid_forces.hpp, solver/solid_forces.hpp).
//   - The device pass equals, bit for bit, a plain host sum over the links found from the solids' shapes (not from
//     the set-up's cut-link list) of 2 f*_i c_i, f*_i from Simulation::populations() (the post-collision populations
//     of the step just taken), each link rounded to the same fixed point: after an even and after an odd number of
//     steps (the two AA layouts keep the bounced population in different roles), float, double and fp16.
//   - Momentum balance: in a channel walled by two box solids under a body force F per cell, at steady state the
//     x-forces on the two boxes add up to F times the number of fluid cells (all the momentum the force puts in
//     leaves through the walls), and the y-forces cancel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "kernels/d3q19.hpp"
#include "kernels/solid_forces.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "solver/solid_shapes.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

/// The first solid of `c` holding global cell g (wrapped into the periodic domain), or -1.
int solid_of(const CaseConfig& c, std::array<std::int64_t, 3> g) {
  for (int a = 0; a < 3; ++a) g[a] = ((g[a] % c.size[a]) + c.size[a]) % c.size[a];
  for (std::size_t k = 0; k < c.solids.size(); ++k)
    if (inside_solid(c.solids[k], cell_centre(g))) return int(k);
  return -1;
}

Point3 centre_of(const SolidConfig& s) {
  if (s.shape == SolidShape::sphere) return s.center;
  if (s.shape == SolidShape::box)
    return {0.5 * (s.min[0] + s.max[0]), 0.5 * (s.min[1] + s.max[1]), 0.5 * (s.min[2] + s.max[2])};
  return {0.5 * (s.start[0] + s.end[0]), 0.5 * (s.start[1] + s.end[1]), 0.5 * (s.start[2] + s.end[2])};
}

/// Host oracle (one rank, domain periodic on every axis): the fixed-point sums from populations() (the post-collision
/// populations f* of the step just taken). A half-way link carries 2 f*_i c_i; an interpolated one (f*_i(x_f) +
/// f_in) c_i, f_in the population its wall sends back, computed here from f* by the linear Bouzidi rule with q by
/// bisection (tests/reference/reference_lbm.hpp) and the wall point x_f + q c_i for the torque; a link whose second
/// node x_f - c_i is solid, or with q = 1/2, is half-way.
std::vector<unsigned long long> host_sums(const CaseConfig& c, const std::vector<double>& f) {
  const std::int64_t n = std::int64_t(c.size[0]) * c.size[1] * c.size[2];
  const auto index = [&](std::array<std::int64_t, 3> g) {
    for (int a = 0; a < 3; ++a) g[a] = ((g[a] % c.size[a]) + c.size[a]) % c.size[a];
    return g[0] + c.size[0] * (g[1] + std::int64_t(c.size[1]) * g[2]);
  };
  std::vector<unsigned long long> sums(c.solids.size() * kForceSums, 0ull);
  std::int64_t k = 0;
  for (int z = 0; z < c.size[2]; ++z)
    for (int y = 0; y < c.size[1]; ++y)
      for (int x = 0; x < c.size[0]; ++x, ++k) {
        if (solid_of(c, {x, y, z}) >= 0) continue;
        for (int i = 1; i < d3q19::Q; ++i) {
          const int ci[3] = {d3q19::c(i, 0), d3q19::c(i, 1), d3q19::c(i, 2)};
          const std::array<std::int64_t, 3> target = {x + ci[0], y + ci[1], z + ci[2]};
          const int s = solid_of(c, target);
          if (s < 0) continue;
          const SolidConfig& solid = c.solids[std::size_t(s)];
          // The fluid node seen from the solid's cell, across a periodic face if need be.
          const std::int64_t t = index(target);
          const double fluid[3] = {t % c.size[0] + 0.5 - ci[0], (t / c.size[0]) % c.size[1] + 0.5 - ci[1],
                                   t / (std::int64_t(c.size[0]) * c.size[1]) + 0.5 - ci[2]};
          const double f_out = f[std::size_t(i * n + k)];
          double f_in = f_out, q = 0.5;
          if (solid.wall == SolidWall::interpolated) {
            q = reference::ReferenceLbm::wall_distance(c, fluid, ci);
            if (q != 0.5 && solid_of(c, {x - ci[0], y - ci[1], z - ci[2]}) < 0) {
              const std::int64_t b = index({x - ci[0], y - ci[1], z - ci[2]});
              f_in = q < 0.5 ? 2 * q * f_out + (1 - 2 * q) * f[std::size_t(i * n + b)]
                             : (f_out + (2 * q - 1) * f[std::size_t(d3q19::opp(i) * n + k)]) / (2 * q);
            }
          }
          const Point3 o = centre_of(solid);
          const double r[3] = {fluid[0] + q * ci[0] - o[0], fluid[1] + q * ci[1] - o[1], fluid[2] + q * ci[2] - o[2]};
          CutLink link{};
          link.dir = i;
          link.arm[0] = r[1] * ci[2] - r[2] * ci[1];
          link.arm[1] = r[2] * ci[0] - r[0] * ci[2];
          link.arm[2] = r[0] * ci[1] - r[1] * ci[0];
          unsigned long long sum[kForceSums];
          cut_link_momentum(link, f_out, f_in, sum);
          for (int j = 0; j < kForceSums; ++j) sums[std::size_t(s) * kForceSums + j] += sum[j];
        }
      }
  return sums;
}

/// A sphere off the cell lattice and a box in a periodic box, under a body force, with some flow to push on them;
/// both with walls `wall`.
CaseConfig two_solids(Precision precision, SolidWall wall = SolidWall::halfway) {
  CaseConfig c = test::box_case(14, 12, 10, 0.7);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  SolidConfig sphere;
  sphere.name = "ball";
  sphere.shape = SolidShape::sphere;
  sphere.center = {6.3, 5.8, 5.1};
  sphere.radius = 3.2;
  SolidConfig box;
  box.name = "brick";
  box.shape = SolidShape::box;
  box.min = {10.0, 2.0, 1.0};
  box.max = {12.5, 9.0, 4.0};
  sphere.wall = box.wall = wall;
  c.solids = {sphere, box};
  c.precision = precision;
  c.velocity = 0.05;
  c.body_force = {2e-4, -5e-5, 3e-5};
  finalize_case(c);
  return c;
}

TEST(SolidForces, DevicePassEqualsHostSumBitwise) {
  for (const Precision p : {Precision::float32, Precision::float64, Precision::float16}) {
    const CaseConfig c = two_solids(p);
    auto sim = Simulation::create(c);
    for (const int steps : {6, 1, 10, 1}) {  // even, odd, even, odd counts in total
      sim->advance(steps);
      const std::vector<unsigned long long> device = global_solid_force_sums(*sim);
      const std::vector<unsigned long long> host = host_sums(c, sim->populations());
      ASSERT_EQ(device.size(), host.size());
      for (std::size_t j = 0; j < host.size(); ++j)
        EXPECT_EQ(device[j], host[j]) << "precision " << int(p) << " step " << sim->time_step() << " sum " << j;
      // Not trivially zero: the flow pushes on both bodies.
      const std::vector<SolidForce> forces = solid_forces(*sim);
      EXPECT_GT(std::abs(forces[0].force[0]), 1e-4);
      EXPECT_GT(std::abs(forces[1].force[0]), 1e-4);
    }
  }
}

TEST(SolidForces, InterpolatedWallsMatchHostSum) {
  // Interpolated walls: the device's (f_out + f_in) c with f_in from the wall pass and f_out the value it replaced,
  // against the host's f_in computed from the post-collision populations with its own q. In double the two f_in
  // differ by the rounding of the interpolation and of q (~1e-16 relative) and each link's fixed point by one unit
  // (2^-40) at most: ~100 links give |difference| <= ~1e-10, against forces of ~1e-2 (measured: a few units).
  const CaseConfig c = two_solids(Precision::float64, SolidWall::interpolated);
  auto sim = Simulation::create(c);
  for (const int steps : {6, 1, 10, 1}) {
    sim->advance(steps);
    const std::vector<SolidForce> device = solid_forces(*sim);
    const std::vector<unsigned long long> host = host_sums(c, sim->populations());
    for (std::size_t s = 0; s < device.size(); ++s)
      for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(device[s].force[a], from_force_fixed(host[s * kForceSums + a]), 1e-10)
            << "solid " << s << " step " << sim->time_step() << " axis " << a;
        EXPECT_NEAR(device[s].torque[a], from_force_fixed(host[s * kForceSums + 3 + a]), 1e-9)
            << "solid " << s << " step " << sim->time_step() << " axis " << a;
      }
    EXPECT_GT(std::abs(device[0].force[0]), 1e-4);
  }
  // The host sum with half-way walls on the same populations differs: the check sees the interpolated f_in.
  CaseConfig halfway = c;
  for (SolidConfig& s : halfway.solids) s.wall = SolidWall::halfway;
  const std::vector<unsigned long long> other = host_sums(halfway, sim->populations());
  EXPECT_GT(std::abs(from_force_fixed(other[0]) - solid_forces(*sim)[0].force[0]), 1e-6);
}

TEST(SolidForces, OracleSeesAWrongLayout) {
  // The host sum of the previous step's populations differs: the pass must report the step just taken.
  const CaseConfig c = two_solids(Precision::float64);
  auto sim = Simulation::create(c);
  sim->advance(5);
  const std::vector<unsigned long long> before = host_sums(c, sim->populations());
  sim->advance(1);
  EXPECT_NE(global_solid_force_sums(*sim), before);
}

/// A channel of H fluid rows walled by two box solids (domain periodic in y), body force F in x.
CaseConfig box_channel(int H, Precision precision) {
  const int nx = 3, nz = 2;
  CaseConfig c = test::box_case(nx, H + 2, nz, 0.8);
  for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
  SolidConfig lower, upper;
  lower.name = "lower";
  upper.name = "upper";
  lower.shape = upper.shape = SolidShape::box;
  lower.min = {0.0, 0.0, 0.0};
  lower.max = {double(nx), 1.0, double(nz)};
  upper.min = {0.0, H + 1.0, 0.0};
  upper.max = {double(nx), H + 2.0, double(nz)};
  c.solids = {lower, upper};
  c.precision = precision;
  c.velocity = 0.02;
  c.length = H;
  const double nu = (0.8 - 0.5) / 3.0;
  c.body_force = {8.0 * nu * 0.02 / (H * H), 0.0, 0.0};
  finalize_case(c);
  return c;
}

TEST(SolidForces, ChannelMomentumBalance) {
  const int H = 6;
  // Relaxation time H^2 / (nu pi^2) ~ 36 steps: 1500 steps leave ~1e-18 of the transient. Double: the balance then
  // holds to the fixed point's rounding (2^-41 per link, ~70 links against a total of 0.016: measured 2e-10), far
  // below the 1e-6 asked. Float: the populations (|f| up to 1/3) carry ~3e-8 absolute round-off each, ~2e-6 over the
  // ~70 links against 0.016, i.e. ~1e-4 relative at worst (measured 3e-7); 1e-4 is the tolerance.
  for (const Precision p : {Precision::float64, Precision::float32}) {
    const CaseConfig c = box_channel(H, p);
    auto sim = Simulation::create(c);
    sim->advance(1500);
    const std::vector<SolidForce> f = solid_forces(*sim);
    ASSERT_EQ(f.size(), 2u);
    std::printf("precision %d: sum Fx / (F N_fluid) - 1 = %.3e, sum Fy / (F N_fluid) = %.3e\n", int(p),
                (f[0].force[0] + f[1].force[0]) / (c.body_force[0] * double(c.size[0]) * H * c.size[2]) - 1.0,
                (f[0].force[1] + f[1].force[1]) / (c.body_force[0] * double(c.size[0]) * H * c.size[2]));
    const double fluid_cells = double(c.size[0]) * H * c.size[2];
    const double expected = c.body_force[0] * fluid_cells;
    const double tolerance = p == Precision::float64 ? 1e-6 : 1e-4;
    EXPECT_NEAR((f[0].force[0] + f[1].force[0]) / expected, 1.0, tolerance) << int(p);
    EXPECT_NEAR(f[0].force[0] / expected, 0.5, tolerance) << int(p);  // symmetric channel
    EXPECT_NEAR((f[0].force[1] + f[1].force[1]) / expected, 0.0, tolerance) << int(p);
    EXPECT_GT(f[1].force[1], 0.0);  // the fluid's pressure pushes each wall outwards
    EXPECT_LT(f[0].force[1], 0.0);
    EXPECT_NEAR(f[0].force[2] / expected, 0.0, tolerance);
  }
}

TEST(SolidForces, ChannelBalanceCanFail) {
  // Early, the walls have not yet taken up the force: the same check fails.
  const CaseConfig c = box_channel(8, Precision::float64);
  auto sim = Simulation::create(c);
  sim->advance(20);
  const std::vector<SolidForce> f = solid_forces(*sim);
  const double expected = c.body_force[0] * double(c.size[0]) * 8 * c.size[2];
  EXPECT_GT(std::abs((f[0].force[0] + f[1].force[0]) / expected - 1.0), 1e-2);
}

}  // namespace
}  // namespace eddy
