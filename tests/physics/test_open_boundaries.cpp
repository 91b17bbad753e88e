// Open boundaries on the box faces (kernels/boundary_rules.hpp, kernels/open_boundaries.hpp) against analytic
// solutions:
//   - plane Poiseuille flow between a parabolic velocity inlet and a pressure outlet: the velocity profile and the
//     pressure drop dp/dx = -8 nu rho0 U_m / H^2 converge at second order under diffusive scaling (tau fixed,
//     U_m ~ 1/H: the remaining error is the weakly compressible flow's, ~ Ma^2, and the boundaries'), and the mass
//     in the channel settles to a constant;
//   - a plug flow between a uniform inlet and an outlet, along free-slip walls, is an exact steady state of every
//     open rule (f = f_eq(1, U) everywhere: velocity bounce-back, anti-bounce-back, zero gradient and the
//     convective outflow give it back, and so does specular reflection for a flow along the wall), in 2D and 3D
//     (free-slip edges); with no-slip walls it is not;
//   - a uniform inlet past a body in a stream between free-slip walls with a zero-gradient or convective outflow runs
//     stable to a steady flow (mass constant, the mass flux out equal to the inflow);
//   - the edge precedence of kernels/cell_flags.hpp (boundary_flag), and runs with open faces repeat bit for bit.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <vector>

#include "kernels/cell_flags.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/simulation.hpp"
#include "tests/physics/open_channel.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::equilibrium_state;
using test::face_of;

TEST(OpenBoundaries, PoiseuilleBetweenInletAndOutletConvergesAtSecondOrder) {
  EDDY_REQUIRE_DEVICE();
  test::expect_second_order_channel({8, 16, 32});
}

// ---- Plug flow along free-slip walls: an exact steady state ------------------------------------------------------

/// A uniform inlet at U = 0.06 in +x on x_min, `outlet` on x_max, and `side` on the faces y_min, y_max (and z_min,
/// z_max in 3D; periodic z in 2D).
CaseConfig plug_case(bool three_d, FaceKind side, FaceBoundary outlet) {
  CaseConfig c = test::box_case(24, 10, three_d ? 8 : 1, 0.7);
  if (!three_d) test::make_periodic(c, 2);
  c.faces[0] = face_of(FaceKind::velocity_inlet);
  c.faces[0].velocity = {0.06, 0.0, 0.0};
  c.faces[1] = outlet;
  for (int face = 2; face < (three_d ? 6 : 4); ++face) c.faces[face] = face_of(side);
  c.precision = Precision::float64;
  c.velocity = 0.06;
  finalize_case(c);
  return c;
}

/// max |u - U| / U and max |rho - 1| after `steps` steps from the plug flow f_eq(1, U), and max |vorticity| (the
/// derived field's stencils are one-sided at the open faces: their ghost nodes hold no velocity).
std::array<double, 3> plug_deviation(const CaseConfig& c, int steps) {
  auto sim = Simulation::create(c);
  sim->set_populations(equilibrium_state(c, [](int, int, int, double& rho, double(&u)[3]) {
    rho = 1.0;
    u[0] = 0.06;
  }));
  sim->advance(steps);
  const MacroscopicFields f = sim->fields();
  std::array<double, 3> d{0.0, 0.0, 0.0};
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    d[0] = std::max({d[0], std::abs(f.u[0][k] - 0.06) / 0.06, std::abs(f.u[1][k]) / 0.06, std::abs(f.u[2][k]) / 0.06});
    d[1] = std::max(d[1], std::abs(f.rho[k] - 1.0));
  }
  for (double w : sim->derived_field("vorticity")) d[2] = std::max(d[2], std::abs(w));
  return d;
}

TEST(OpenBoundaries, PlugFlowAlongFreeSlipWallsIsExact) {
  EDDY_REQUIRE_DEVICE();
  FaceBoundary pressure = face_of(FaceKind::pressure_outlet), zero_gradient = face_of(FaceKind::outflow),
               convective = face_of(FaceKind::outflow);
  convective.scheme = OutflowScheme::convective;
  convective.convection_velocity = 0.06;
  for (const bool three_d : {false, true}) {
    for (const FaceBoundary& outlet : {pressure, zero_gradient, convective}) {
      for (const int steps : {150, 151}) {  // both layouts
        const std::array<double, 3> d = plug_deviation(plug_case(three_d, FaceKind::free_slip, outlet), steps);
        EXPECT_LT(d[0], 1e-12) << (three_d ? "3D" : "2D") << ", outlet " << face_kind_name(outlet.kind) << ", " << steps
                               << " steps: velocity";
        EXPECT_LT(d[1], 1e-13) << (three_d ? "3D" : "2D") << ", outlet " << face_kind_name(outlet.kind) << ", " << steps
                               << " steps: density";
        EXPECT_LT(d[2], 1e-13) << (three_d ? "3D" : "2D") << ", outlet " << face_kind_name(outlet.kind) << ", " << steps
                               << " steps: vorticity";
      }
    }
  }
  // The same flow between no-slip walls is not steady: the test can tell a free-slip wall from a wall.
  EXPECT_GT(plug_deviation(plug_case(false, FaceKind::wall, pressure), 150)[0], 0.05);
}

// ---- A uniform inlet past a body, with an outflow face: stable, settles ---------------------------------------------

TEST(OpenBoundaries, UniformInletPastABodyWithOutflowRunsStableAndSettles) {
  // A square body (6 x 6 cells) in a 60 x 20 stream between free-slip walls, Re = U D / nu = 9: the steady wake
  // leaves through the outflow face, far enough downstream that the flow there is nearly uniform again, so the
  // zero-gradient and convective conditions are consistent and the mass settles. (Into a walled channel, where the
  // flow leaving carries a pressure gradient, an outflow face holds no pressure level and the mass drifts: a
  // pressure_outlet is the face for that, cases/README.md.)
  for (const OutflowScheme scheme : {OutflowScheme::zero_gradient, OutflowScheme::convective}) {
    CaseConfig c = test::box_case(60, 20, 1, 0.6);
    test::make_periodic(c, 2);
    c.faces[0] = face_of(FaceKind::velocity_inlet);
    c.faces[0].velocity = {0.05, 0.0, 0.0};
    c.faces[0].ramp_time = 300;
    c.faces[1] = face_of(FaceKind::outflow);
    c.faces[1].scheme = scheme;
    c.faces[2] = face_of(FaceKind::free_slip);
    c.faces[3] = face_of(FaceKind::free_slip);
    SolidConfig body;
    body.name = "block";
    body.shape = SolidShape::box;
    body.min = {18.0, 7.0, 0.0};
    body.max = {24.0, 13.0, 1.0};
    c.solids = {body};
    c.precision = Precision::float64;
    c.velocity = 0.05;
    finalize_case(c);
    auto sim = Simulation::create(c);
    sim->advance(4800);  // 4 flow-through times L / U
    const double mass_before = sim->diagnose().mass;
    sim->advance(1200);
    const Diagnostics d = sim->diagnose();
    const char* name = scheme == OutflowScheme::convective ? "convective" : "zero_gradient";
    ASSERT_TRUE(d.finite) << name;
    EXPECT_GT(d.max_speed, 0.055) << name << ": the flow speeds up past the body";
    EXPECT_LT(d.max_speed, 0.1) << name;
    EXPECT_LT(std::abs(d.mass - mass_before) / mass_before, 1e-5) << name << ": the mass has not settled";
    const MacroscopicFields f = sim->fields();
    double mean = 0.0;
    for (int y = 0; y < 20; ++y) mean += f.rho[std::size_t(f.index(59, y, 0))] * f.u[0][std::size_t(f.index(59, y, 0))];
    EXPECT_NEAR(mean / 20, 0.05, 5e-4) << name << ": the mass flux out is not the inflow's";
  }
}

TEST(OpenBoundaries, OutOfCoreIsRefusedNamingTheReason) {
  // finalize_case refuses out_of_core = true with open faces (tests/unit/test_open_boundaries_config.cpp); a case
  // that asks for it anyway reaches the one message here ("auto" stays in core with open faces).
  CaseConfig c = plug_case(false, FaceKind::free_slip, face_of(FaceKind::pressure_outlet));
  c.out_of_core.mode = OutOfCoreMode::on;
  try {
    Simulation::create(c);
    ADD_FAILURE() << "an out-of-core run with open boundaries was created";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("open boundaries"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of core"), std::string::npos) << e.what();
  }
}

// ---- Edges and corners: one precedence, bit for bit ---------------------------------------------------------------

TEST(OpenBoundaries, EdgePrecedenceFollowsTheTable) {
  const auto flag = [](std::initializer_list<int> faces, std::array<int, 6> precedence) {
    const std::vector<int> list(faces);
    const std::array<double, 3> rest{0.0, 0.0, 0.0};
    return boundary_flag(
        list.data(), int(list.size()), [&](int f) { return precedence[std::size_t(f)]; }, [&](int) { return rest; });
  };
  const int inlet = kVelocityInletPrecedence, outlet = kPressureOutletPrecedence, out = kOutflowPrecedence,
            slip = kFreeSlipPrecedence, wall = kWallFace;
  EXPECT_EQ(flag({0}, {inlet, 0, 0, 0, 0, 0}), kOpen + 0) << "one open face";
  EXPECT_EQ(flag({0, 2}, {inlet, 0, wall, 0, 0, 0}), kWall) << "a wall beats an inlet";
  EXPECT_EQ(flag({1, 3}, {0, outlet, 0, wall, 0, 0}), kWall) << "a wall beats an outlet";
  EXPECT_EQ(flag({0, 2}, {inlet, 0, slip, 0, 0, 0}), kOpen + 0) << "an inlet beats free slip";
  EXPECT_EQ(flag({1, 2}, {0, outlet, slip, 0, 0, 0}), kOpen + 1) << "an outlet beats free slip";
  EXPECT_EQ(flag({1, 2}, {0, out, slip, 0, 0, 0}), kOpen + 1) << "an outflow beats free slip";
  EXPECT_EQ(flag({1, 3}, {0, out, 0, outlet, 0, 0}), kOpen + 3) << "a pressure outlet beats an outflow";
  EXPECT_EQ(flag({0, 3}, {inlet, 0, 0, outlet, 0, 0}), kOpen + 0) << "an inlet beats a pressure outlet";
  EXPECT_EQ(flag({2, 4}, {0, 0, slip, 0, slip, 0}), kOpen + 2) << "a tie: the lower face index";
  EXPECT_EQ(flag({0, 2, 4}, {inlet, 0, slip, 0, wall, 0}), kWall) << "a corner with a wall";
  // The flags of a block: the ghost cells beyond the inlet/free-slip edge belong to the inlet, beyond the inlet/wall
  // edge to the wall, and the face cells next to a ghost node take the near-wall path (one-sided stencils).
  CaseConfig c = plug_case(true, FaceKind::free_slip, face_of(FaceKind::pressure_outlet));
  c.faces[5] = face_of(FaceKind::wall);
  finalize_case(c);
  const Decomposition d = serial_decomposition(c);
  const BlockShape shape = block_shape(d);
  const std::vector<CellFlag> flags = build_flags(c, d);
  EXPECT_EQ(flags[std::size_t(shape.index(0, 0, 4))], kOpen + 0);
  EXPECT_EQ(flags[std::size_t(shape.index(0, 4, 9))], kWall);
  EXPECT_EQ(flags[std::size_t(shape.index(25, 0, 4))], kOpen + 1);
  EXPECT_EQ(flags[std::size_t(shape.index(5, 0, 0))], kOpen + 2);
  EXPECT_EQ(flags[std::size_t(shape.index(1, 5, 4))], kFluidNearSolid);
  EXPECT_EQ(flags[std::size_t(shape.index(5, 5, 4))], kFluid);
}

TEST(OpenBoundaries, RunsRepeatBitForBit) {
  EDDY_REQUIRE_DEVICE();
  // Every open type and edge kind (the oracle's first layout), float and fp16, from the rest state with a ramp.
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    CaseConfig c = test::box_case(20, 14, 10, 0.7);
    c.faces[0] = face_of(FaceKind::velocity_inlet);
    c.faces[0].profile = InletProfile::parabolic;
    c.faces[0].speed = 0.08;
    c.faces[0].ramp_time = 40;
    c.faces[1] = face_of(FaceKind::pressure_outlet);
    c.faces[2] = face_of(FaceKind::free_slip);
    c.faces[3] = face_of(FaceKind::outflow);
    c.faces[3].scheme = OutflowScheme::convective;
    c.faces[5] = {FaceKind::moving_wall, {0.03, 0.0, 0.0}};
    c.precision = precision;
    c.velocity = 0.08;
    finalize_case(c);
    std::vector<double> result[2];
    for (auto& r : result) {
      auto sim = Simulation::create(c);
      sim->advance(61);
      r = sim->populations();
    }
    EXPECT_EQ(result[0], result[1]) << "precision " << int(precision);
  }
}

}  // namespace
}  // namespace eddy
