// Solid bodies ([[solid]], solver/solid_shapes.hpp) as walls: a channel whose walls are two `box` solids in a
// domain periodic in x, y and z gives bitwise the same fluid state as the Poiseuille channel of
// tests/physics/test_poiseuille.cpp with its walls on the y faces, shifted by the one solid row below it. Both are
// the same half-way bounce-back on the same links (a solid cell inside the domain takes the rule of a wall face's
// ghost cell), so every fluid cell computes the same numbers in the same order: any difference (a solid row too
// many or too few, a wrong flag, a rule taken on another link) shows. A channel one row narrower shows that the
// comparison can fail. Float and double storage only: fp16 rounds stochastically with bits hashed from each cell's
// global position and the step (kernels/rounding_bits.hpp), so the shifted channel draws other bits (the noise is
// the same in distribution; the face-walled fp16 channel's budget is tests/physics/test_poiseuille.cpp's). The TRT
// channel is also the exact parabola u(y) = F / (2 nu) y (H - y) (Ginzburg, Verhaeghe & d'Humieres 2008: with Lambda =
// 3/16 half-way bounce-back puts the wall exactly half-way), within the round-off tolerance of the Poiseuille test in
// double.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "solver/simulation.hpp"
#include "tests/physics/rounding_budget.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

constexpr int kNx = 2;
constexpr double kTau = 0.8;

/// A box solid covering the rows of cells whose centres lie in [y0, y1] across the whole x and z extent.
SolidConfig row_box(const std::string& name, double y0, double y1, int nz) {
  SolidConfig s;
  s.name = name;
  s.shape = SolidShape::box;
  s.min = {0.0, y0, 0.0};
  s.max = {double(kNx), y1, double(nz)};
  return s;
}

/// The Poiseuille channel of height H (fluid rows), walls given as faces (y_min, y_max) or as two box solids in
/// an (H + 2)-row domain periodic in y, rows 0 and H + 1 solid (`narrow`: row H solid too).
CaseConfig channel(int H, bool solids, Collision collision, Precision precision, bool narrow = false) {
  const double u_max = 0.02;
  CaseConfig c = test::box_case(kNx, solids ? H + 2 : H, 1, kTau);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  if (solids) {
    test::make_periodic(c, 1);
    c.solids = {row_box("lower", 0.0, 1.0, 1), row_box("upper", narrow ? H + 0.5 : H + 1.0, H + 2.0, 1)};
  }
  c.collision = collision;
  c.precision = precision;
  c.velocity = u_max;
  c.length = H;
  const double nu = (kTau - 0.5) / 3.0;
  c.body_force = {8.0 * nu * u_max / (H * H), 0.0, 0.0};
  finalize_case(c);
  return c;
}

/// Fluid rows of `f`: rho and u of cells (x, first + j, 0), j = 0..H-1, back to back.
std::vector<double> fluid_rows(const MacroscopicFields& f, int first, int H) {
  std::vector<double> values;
  for (int j = 0; j < H; ++j)
    for (int x = 0; x < kNx; ++x) {
      const std::int64_t k = f.index(x, first + j, 0);
      values.insert(values.end(), {f.rho[k], f.u[0][k], f.u[1][k], f.u[2][k]});
    }
  return values;
}

class SolidChannel : public ::testing::TestWithParam<std::tuple<Collision, Precision>> {};

TEST_P(SolidChannel, BoxSolidWallsEqualFaceWallsBitwise) {
  EDDY_REQUIRE_DEVICE();
  const auto [collision, precision] = GetParam();
  const int H = 16;
  const std::int64_t steps = 1501;  // odd: ends on a neighbour-writing step
  auto faces = Simulation::create(channel(H, false, collision, precision));
  auto solids = Simulation::create(channel(H, true, collision, precision));
  auto narrow = Simulation::create(channel(H, true, collision, precision, true));
  faces->advance(steps);
  solids->advance(steps);
  narrow->advance(steps);
  const MacroscopicFields a = faces->fields(), b = solids->fields(), n = narrow->fields();
  const std::vector<double> expected = fluid_rows(a, 0, H);
  const std::vector<double> got = fluid_rows(b, 1, H);
  ASSERT_EQ(expected.size(), got.size());
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < got.size(); ++k) mismatches += got[k] != expected[k];
  EXPECT_EQ(mismatches, 0u) << "fluid values of the solid-walled channel that differ from the face-walled one";
  // The solid rows are walls: density 0 and velocity 0 in the read-out, like every solid cell.
  for (int x = 0; x < kNx; ++x) {
    for (int y : {0, H + 1}) {
      EXPECT_EQ(b.rho[b.index(x, y, 0)], 0.0);
      EXPECT_EQ(b.u[0][b.index(x, y, 0)], 0.0);
    }
  }
  // Mass over the fluid cells (Diagnostics::mass) is the same sum.
  EXPECT_EQ(faces->diagnose().mass, solids->diagnose().mass);
  // The comparison can fail: one solid row more (a channel of H - 1) changes the profile well beyond round-off.
  const std::vector<double> narrower = fluid_rows(n, 1, H);
  double difference = 0.0, scale = 0.0;
  for (std::size_t k = 0; k < got.size(); k += 4) {
    difference = std::max(difference, std::abs(narrower[k + 1] - expected[k + 1]));
    scale = std::max(scale, std::abs(expected[k + 1]));
  }
  EXPECT_GT(scale, 5e-3) << "the flow has not developed: the comparison would be of two fluids at rest";
  EXPECT_GT(difference, 0.05 * scale) << "a channel one row narrower gave the same profile";
}

INSTANTIATE_TEST_SUITE_P(Rules, SolidChannel,
                         ::testing::Combine(::testing::Values(Collision::trt, Collision::bgk),
                                            ::testing::Values(Precision::float32, Precision::float64)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == Collision::trt ? "trt" : "bgk") + "_" +
                                  test::storage_name(std::get<1>(info.param));
                         });

TEST(SolidChannelPhysics, TrtSteadyProfileIsTheParabola) {
  // Steady state (25 e-folds of the slowest mode, as tests/physics/test_poiseuille.cpp), double storage: TRT with
  // Lambda = 3/16 gives the parabola with the walls half-way between the solid rows and the fluid ones, to the
  // Poiseuille test's double tolerance 1e-8 (relative L2).
  EDDY_REQUIRE_DEVICE();
  const int H = 8;
  const CaseConfig c = channel(H, true, Collision::trt, Precision::float64);
  auto sim = Simulation::create(c);
  const double nu = (kTau - 0.5) / 3.0;
  const double lambda1 = nu * M_PI * M_PI / (H * H);
  sim->advance(std::int64_t(25.0 / lambda1));
  const MacroscopicFields f = sim->fields();
  double err2 = 0.0, ref2 = 0.0;
  for (int j = 0; j < H; ++j) {
    const double y = j + 0.5;  // from the wall half-way between solid row 0 and fluid row 1
    const double exact = c.body_force[0] / (2.0 * nu) * y * (H - y);
    double u = 0.0;
    for (int x = 0; x < kNx; ++x) u += f.u[0][f.index(x, j + 1, 0)] / kNx;
    err2 += (u - exact) * (u - exact);
    ref2 += exact * exact;
  }
  EXPECT_LT(std::sqrt(err2 / ref2), 1e-8);
}

}  // namespace
}  // namespace eddy
