// Edges and corners where domain faces of different kinds meet (the edge rule, kernels/cell_flags.hpp): a solid
// cell beyond several faces moves with their velocity when they all share it and rests otherwise, so a moving
// wall written with velocity [0, 0, 0] is the same boundary as a resting wall, bit for bit.
//
// Before the rule, a plain wall beat a moving wall and the lower face index won among moving walls: in a 32^3
// cavity whose lid (y_max) moves in z, spelling the z faces as moving walls at rest let the lid's velocity reach
// the lid-edge cells through the (0, 1, +-1) links, and every cell differed (by up to 0.15 U at cell (1, 31, 0)).
#include <gtest/gtest.h>

#include <array>

#include "kernels/cell_flags.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/simulation.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using Velocity = std::array<double, 3>;

CellFlag flag_of(std::initializer_list<int> faces, const std::array<Velocity, 6>& u) {
  const std::vector<int> list(faces);
  return solid_flag(list.data(), int(list.size()), [&](int face) { return u[face]; });
}

TEST(EdgeRule, FollowsTheTable) {
  std::array<Velocity, 6> u{};  // all at rest
  EXPECT_EQ(flag_of({3}, u), kWall) << "one face at rest";
  u[3] = {0.1, 0.0, 0.0};
  EXPECT_EQ(flag_of({3}, u), kMovingWall + 3) << "one moving face";
  EXPECT_EQ(flag_of({0, 3}, u), kWall) << "a lid meeting a resting wall: the edge rests";
  EXPECT_EQ(flag_of({3, 4}, u), kWall) << "the same with the resting face second";
  u[4] = {0.1, 0.0, 0.0};
  EXPECT_EQ(flag_of({3, 4}, u), kMovingWall + 3) << "two faces with the same velocity: the edge moves with it";
  u[4] = {0.1, 0.05, 0.0};
  EXPECT_EQ(flag_of({3, 4}, u), kWall) << "two moving faces with different velocities: the edge rests";
  u[0] = u[2] = u[4] = {0.0, 0.0, 0.2};
  EXPECT_EQ(flag_of({0, 2, 4}, u), kMovingWall + 0) << "a corner whose three faces move alike";
  u[4] = {0.0, 0.0, 0.0};
  EXPECT_EQ(flag_of({0, 2, 4}, u), kWall) << "a corner with one face at rest";
}

/// 32^3 cavity, every face a resting wall but the lid y_max moving in z (the case of the report).
CaseConfig lid_in_z_cavity(FaceKind z_faces, Precision precision) {
  CaseConfig c = test::box_case(32, 32, 32, 0.6);
  c.faces[3] = {FaceKind::moving_wall, {0.0, 0.0, 0.1}};
  for (int face : {4, 5}) c.faces[face] = {z_faces, {0.0, 0.0, 0.0}};
  c.velocity = 0.1;
  c.precision = precision;
  finalize_case(c);
  return c;
}

class ZeroVelocityMovingWall : public ::testing::TestWithParam<Precision> {};

TEST_P(ZeroVelocityMovingWall, IsBitwiseARestingWall) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig walls = lid_in_z_cavity(FaceKind::wall, GetParam());
  const CaseConfig resting_moving = lid_in_z_cavity(FaceKind::moving_wall, GetParam());
  EXPECT_EQ(build_flags(walls, serial_decomposition(walls)),
            build_flags(resting_moving, serial_decomposition(resting_moving)));
  auto a = Simulation::create(walls);
  auto b = Simulation::create(resting_moving);
  a->advance(60);
  b->advance(60);
  const MacroscopicFields fa = a->fields(), fb = b->fields();
  EXPECT_EQ(fa.rho, fb.rho);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(fa.u[d], fb.u[d]) << "component " << d;
  EXPECT_EQ(a->populations(), b->populations());
  // The run did something: the lid drives the fluid next to it.
  EXPECT_GT(a->diagnose().max_speed, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Storage, ZeroVelocityMovingWall,
                         ::testing::Values(Precision::float32, Precision::float64, Precision::float16),
                         [](const auto& info) {
                           return std::string(info.param == Precision::float32   ? "float"
                                              : info.param == Precision::float64 ? "double"
                                                                                 : "fp16");
                         });

}  // namespace
}  // namespace eddy
