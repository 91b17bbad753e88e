// What the snapshots hold, as cases/README.md ("Normalised output") documents it: the velocity is Guo's
// u = (sum_i f_i c_i + F/2) / rho, so a fluid that starts at rest under a body force F shows u = F/2 at step 0; the
// time of a snapshot is step U / L, and step / L when physics.velocity is unset (U = 0).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

TEST(OutputConventions, RestUnderABodyForceShowsHalfTheForceAtStepZero) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = test::box_case(6, 5, 4, 0.8);
  for (int axis = 0; axis < 3; ++axis) test::make_periodic(c, axis);
  c.body_force = {2e-5, -1e-5, 4e-6};
  c.precision = Precision::float64;
  finalize_case(c);
  auto sim = Simulation::create(c);
  const MacroscopicFields f = sim->fields();
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    EXPECT_DOUBLE_EQ(f.rho[k], 1.0);
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(f.u[d][k], 0.5 * c.body_force[d], 1e-18) << "cell " << k << ", " << d;
  }
}

TEST(OutputConventions, SnapshotTimeIsStepUOverLAndStepOverLWithoutU) {
  CaseConfig c = test::box_case(64, 32, 1, 0.8);
  c.length = 64;
  c.velocity = 0.05;
  EXPECT_DOUBLE_EQ(OutputScaling::of(c).time(1280), 1280 * 0.05 / 64);
  c.velocity = 0.0;
  EXPECT_DOUBLE_EQ(OutputScaling::of(c).time(1280), 1280.0 / 64);
}

// The derived fields next to a body do not depend on where the periodic faces fall: a sphere whose solid cells
// reach the second plane from three periodic faces (the first plane fluid) gives, cell for cell, the fields of the
// same sphere moved elsewhere in the box (every cell computes the same arithmetic on the same values, so bitwise).
// The fluid cells of the first plane difference outwards two cells past the face, through the outer layer
// (solver/outer_layer.hpp); without it, they fell back to a first-order difference there.
TEST(OutputConventions, DerivedFieldsNextToABodyAreTranslationInvariant) {
  EDDY_REQUIRE_DEVICE();
  const std::array<int, 3> n = {16, 12, 10}, shift = {8, 9, 3};
  const std::array<double, 3> corner = {3.6, 8.4, 3.6};  // radius 2.6: solid cells from 1.5 to 10.5 along y
  std::vector<double> fields[2][3];
  for (int moved = 0; moved < 2; ++moved) {
    CaseConfig c = test::box_case(n[0], n[1], n[2], 0.7);
    for (int axis = 0; axis < 3; ++axis) test::make_periodic(c, axis);
    c.body_force = {1e-4, -5e-5, 7.5e-5};
    c.precision = Precision::float64;
    std::array<double, 3> center = corner;
    for (int a = 0; a < 3; ++a) center[a] = moved ? std::fmod(corner[a] + shift[a], n[a]) : corner[a];
    c.solids.push_back(test::halfway_ball(center, 2.6));
    finalize_case(c);
    auto sim = Simulation::create(c);
    sim->advance(25);
    int f = 0;
    for (const char* name : {"vorticity", "q_criterion", "strain_rate"}) fields[moved][f++] = sim->derived_field(name);
  }
  const std::size_t cells = std::size_t(n[0]) * n[1] * n[2];
  for (int f = 0; f < 3; ++f) {
    const std::vector<double>& a = fields[0][f];
    const std::vector<double>& b = fields[1][f];
    ASSERT_EQ(a.size(), b.size());
    std::size_t differ = 0;
    double largest = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const std::size_t cell = k % cells, component = k / cells;
      const int x = int(cell % n[0]), y = int(cell / n[0] % n[1]), z = int(cell / (std::size_t(n[0]) * n[1]));
      const std::size_t moved =
          std::size_t((x + shift[0]) % n[0]) +
          std::size_t(n[0]) * ((y + shift[1]) % n[1] + std::size_t(n[1]) * ((z + shift[2]) % n[2]));
      if (a[k] != b[component * cells + moved]) ++differ;
      largest = std::max(largest, std::abs(a[k]));
    }
    EXPECT_EQ(differ, 0u) << "field " << f;
    EXPECT_GT(largest, f == 1 ? 1e-9 : 1e-5) << "field " << f << ": a field of zeros proves nothing";
  }
}

}  // namespace
}  // namespace eddy
