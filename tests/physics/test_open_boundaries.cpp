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
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

FaceBoundary face_of(FaceKind kind) {
  FaceBoundary b;
  b.kind = kind;
  return b;
}

/// Post-collision populations f_eq(rho, u) of the fields rho(k), u(k) of a case's cells (k = x + nx (y + ny z)).
template <class Field>
std::vector<double> equilibrium_state(const CaseConfig& c, Field field) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::vector<double> f(19 * n);
  for (int z = 0; z < c.size[2]; ++z)
    for (int y = 0; y < c.size[1]; ++y)
      for (int x = 0; x < c.size[0]; ++x) {
        const std::size_t k = x + std::size_t(c.size[0]) * (y + std::size_t(c.size[1]) * z);
        double rho = 1.0, u[3] = {0.0, 0.0, 0.0};
        field(x, y, z, rho, u);
        for (int i = 0; i < 19; ++i) f[i * n + k] = reference::ReferenceLbm::equilibrium(i, rho, u);
      }
  return f;
}

// ---- Poiseuille flow between a velocity inlet and a pressure outlet ----------------------------------------------

struct ChannelErrors {
  double velocity;     ///< relative L2 error of u over the whole channel against the parabola
  double pressure;     ///< relative error of the pressure drop over the middle half (least-squares slope)
  double outlet;       ///< the pressure at the outlet face (extrapolated from the last column) over the whole drop
  double mass_change;  ///< relative change of the mass over the last quarter of the run
};

/// A 2H x H x 1 channel (periodic z), walls y_min, y_max, x_min a parabolic inlet with peak U_m = 0.8 / H (diffusive
/// scaling: Re = U_m H / nu = 8 at tau = 0.8), x_max a pressure outlet at rho = 1 (p = 0). Starts from the analytic
/// incompressible state and runs 2 H^2 / nu steps (transients decay as exp(-pi^2 nu t / H^2): by 2e-9). The exact
/// solution: u = U_m 4 y (H - y) / H^2, p = G (L - x), G = 8 nu U_m / H^2 (rho0 = 1); the lattice flow differs by its
/// weak compressibility (rho u is what stays constant along x: u ~ U_m / rho, rho - 1 ~ 3 G L ~ 2 / H^2 here) and
/// by the boundaries.
ChannelErrors poiseuille_channel(int h) {
  const int length = 2 * h;
  CaseConfig c = test::box_case(length, h, 1, 0.8);
  test::make_periodic(c, 2);
  const double peak = 0.8 / h;
  c.faces[0] = face_of(FaceKind::velocity_inlet);
  c.faces[0].profile = InletProfile::parabolic;
  c.faces[0].speed = peak;
  c.faces[1] = face_of(FaceKind::pressure_outlet);
  c.precision = Precision::float64;
  c.velocity = peak;
  finalize_case(c);
  const double nu = c.nu, gradient = 8.0 * nu * peak / (double(h) * h);  // -dp/dx
  const auto exact_u = [&](int y) {
    const double s = y + 0.5;
    return peak * 4.0 * s * (h - s) / (double(h) * h);
  };
  auto sim = Simulation::create(c);
  sim->set_populations(equilibrium_state(c, [&](int x, int y, int, double& rho, double(&u)[3]) {
    rho = 1.0 + 3.0 * gradient * (length - (x + 0.5));  // p = c_s^2 (rho - 1), 0 at the outlet face x = L
    u[0] = exact_u(y);
  }));
  const std::int64_t steps = std::int64_t(2.0 * h * h / nu);
  sim->advance(steps * 3 / 4);
  const double mass_before = sim->diagnose().mass;
  sim->advance(steps - sim->time_step());
  const MacroscopicFields f = sim->fields();
  ChannelErrors e{};
  e.mass_change = std::abs(sim->diagnose().mass - mass_before) / mass_before;
  double error = 0.0, norm = 0.0;
  std::vector<double> column(std::size_t(length), 0.0);  // the pressure averaged across the channel
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < length; ++x) {
      const std::size_t k = std::size_t(f.index(x, y, 0));
      const double du = f.u[0][k] - exact_u(y), dv = f.u[1][k];
      error += du * du + dv * dv;
      norm += exact_u(y) * exact_u(y);
      column[std::size_t(x)] += (f.rho[k] - 1.0) / 3.0 / h;
    }
  e.velocity = std::sqrt(error / norm);
  double sx = 0.0, sp = 0.0, sxx = 0.0, sxp = 0.0;
  const int first = length / 4, count = length / 2;
  for (int x = first; x < first + count; ++x) {
    const double at = x + 0.5, p = column[std::size_t(x)];
    sx += at;
    sp += p;
    sxx += at * at;
    sxp += at * p;
  }
  const double slope = (count * sxp - sx * sp) / (count * sxx - sx * sx);
  e.pressure = std::abs(-slope - gradient) / gradient;
  e.outlet = std::abs(column.back() - 0.5 * gradient) / (gradient * length);
  return e;
}

TEST(OpenBoundaries, PoiseuilleBetweenInletAndOutletConvergesAtSecondOrder) {
  EDDY_REQUIRE_DEVICE();
  const int sizes[3] = {8, 16, 32};
  ChannelErrors e[3];
  for (int r = 0; r < 3; ++r) {
    e[r] = poiseuille_channel(sizes[r]);
    std::cout << "[ channel  ] H = " << sizes[r] << ": velocity error " << e[r].velocity << ", pressure-drop error "
              << e[r].pressure << ", outlet pressure " << e[r].outlet << " of the drop, mass change over the last "
              << "quarter " << e[r].mass_change << "\n";
  }
  for (int r = 0; r < 2; ++r) {
    const double order_u = std::log2(e[r].velocity / e[r + 1].velocity);
    const double order_p = std::log2(e[r].pressure / e[r + 1].pressure);
    std::cout << "[ channel  ] observed order H = " << sizes[r] << " -> " << sizes[r + 1] << ": velocity " << order_u
              << ", pressure drop " << order_p << "\n";
    EXPECT_NEAR(order_u, 2.0, 0.2) << "velocity, H = " << sizes[r] << " -> " << sizes[r + 1];
    EXPECT_NEAR(order_p, 2.0, 0.2) << "pressure drop, H = " << sizes[r] << " -> " << sizes[r + 1];
  }
  for (const ChannelErrors& x : e) {
    EXPECT_LT(x.outlet, 1e-3) << "the outlet does not hold p = 0 at the face";
    EXPECT_LT(x.mass_change, 1e-9) << "the mass has not settled";
  }
  EXPECT_LT(e[2].velocity, 5e-3);
  EXPECT_LT(e[2].pressure, 2e-3);
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

/// max |u - U| / U and max |rho - 1| after `steps` steps from the plug flow f_eq(1, U).
std::array<double, 2> plug_deviation(const CaseConfig& c, int steps) {
  auto sim = Simulation::create(c);
  sim->set_populations(equilibrium_state(c, [](int, int, int, double& rho, double(&u)[3]) {
    rho = 1.0;
    u[0] = 0.06;
  }));
  sim->advance(steps);
  const MacroscopicFields f = sim->fields();
  std::array<double, 2> d{0.0, 0.0};
  for (std::size_t k = 0; k < f.rho.size(); ++k) {
    d[0] = std::max({d[0], std::abs(f.u[0][k] - 0.06) / 0.06, std::abs(f.u[1][k]) / 0.06, std::abs(f.u[2][k]) / 0.06});
    d[1] = std::max(d[1], std::abs(f.rho[k] - 1.0));
  }
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
        const std::array<double, 2> d = plug_deviation(plug_case(three_d, FaceKind::free_slip, outlet), steps);
        EXPECT_LT(d[0], 1e-12) << (three_d ? "3D" : "2D") << ", outlet " << face_kind_name(outlet.kind) << ", " << steps
                               << " steps: velocity";
        EXPECT_LT(d[1], 1e-13) << (three_d ? "3D" : "2D") << ", outlet " << face_kind_name(outlet.kind) << ", " << steps
                               << " steps: density";
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
