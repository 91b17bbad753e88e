// The fused in-place stream-collide kernel (this build's backend) against the plain two-buffer CPU reference oracle,
// after 100 and 101 steps (both layouts of the AA pattern); with [[solid]] bodies, the kernel with the interpolated
// walls' pass (kernels/interpolated_walls.hpp) against the oracle's own interpolation (q by bisection)
// on a box with every boundary kind at once: periodic x, a no-slip wall, two moving walls meeting walls at edges
// (precedence), a body force or none (the kernel leaves the source terms out when there is no force), from a random
// non-equilibrium state; the open faces (kernels/open_boundaries.hpp) against the oracle's rules, alone and with
// bodies that reach them (the order of the open-face and interpolated walls' passes). Double: 1e-12; float: 1e-5;
// fp16: 1e-4
// (max-norm relative; half keeps 11 significant bits of the stored f_i - w_i, |f_i - w_i| <= ~0.05 here).
// The box (30 x 30 x 8) is wide enough in x and y that GPU launches of the whole interior with float and double
// storage go through parallel_for_aligned (at most 1/8 of its threads idle); the sub-box test's halves are too thin
// for it and go through parallel_for, so that test (double) also checks the two launches against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "kernels/block.hpp"
#include "kernels/cell_flags.hpp"
#include "kernels/cut_links.hpp"
#include "kernels/launchers.hpp"
#include "solver/device_buffer.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/simulation.hpp"
#include "tests/physics/random_state.hpp"
#include "tests/reference/reference_lbm.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

struct OracleCase {
  Collision collision;
  Precision precision;
  double tolerance;
  const char* name;
  bool body_force = true;
  bool les = false;  ///< Smagorinsky LES (kernels/smagorinsky.hpp) with a large constant, so every cell's rates move
};

void PrintTo(const OracleCase& c, std::ostream* os) { *os << c.name; }

class FusedKernelVsOracle : public ::testing::TestWithParam<OracleCase> {};

CaseConfig all_boundaries_case(const OracleCase& p) {
  CaseConfig c = test::box_case(30, 30, 8, 0.7);
  test::make_periodic(c, 0);
  // Every branch of the edge rule (kernels/cell_flags.hpp): y_max meets z_min and z_max with other velocities (the
  // edges rest), y_min meets z_max with the same velocity (the edge moves with it), y_min meets z_min (rests).
  c.faces[2] = {FaceKind::moving_wall, {0.04, 0.0, 0.0}};    // y_min
  c.faces[3] = {FaceKind::moving_wall, {0.05, 0.0, 0.02}};   // y_max: a lid moving in x and z
  c.faces[4] = {FaceKind::moving_wall, {0.03, -0.02, 0.0}};  // z_min
  c.faces[5] = {FaceKind::moving_wall, {0.04, 0.0, 0.0}};    // z_max: as y_min
  if (p.body_force) c.body_force = {1e-5, -2e-5, 5e-6};
  c.collision = p.collision;
  c.precision = p.precision;
  c.velocity = 0.05;
  if (p.les) {
    c.les = LesModel::smagorinsky;
    c.smagorinsky_constant = 0.5;  // large, so the random start and the moving walls move every tau well off 0.7
  }
  finalize_case(c);
  return c;
}

TEST_P(FusedKernelVsOracle, HundredStepsAgree) {
  EDDY_REQUIRE_DEVICE();
  const OracleCase p = GetParam();
  const CaseConfig config = all_boundaries_case(p);
  const std::vector<double> start = test::random_state(config);
  const BlockShape shape = block_shape(serial_decomposition(config));
  ASSERT_TRUE(aligned_range(shape, shape.interior()).used) << "the box no longer exercises parallel_for_aligned";

  reference::ReferenceLbm oracle(config);
  oracle.set_populations(start);
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  // Start values in storage precision for both, so float runs compare dynamics, not the initial rounding.
  oracle.set_populations(sim->populations());

  // After 100 steps the in-place array holds the "swapped" layout, after 101 the "own" one: both read-outs.
  int done = 0;
  for (int steps : {100, 101}) {
    for (; done < steps; ++done) oracle.step();
    sim->advance(steps - sim->time_step());
    sim->synchronize();

    const std::vector<double> fused = sim->populations();
    const double pop_error = test::max_relative_difference(fused, oracle.populations());
    EXPECT_LT(pop_error, p.tolerance) << "populations differ after " << steps << " steps";
    // The run must have done something: populations moved away from the start.
    EXPECT_GT(test::max_relative_difference(fused, start), 1e-3);

    std::vector<double> rho;
    std::array<std::vector<double>, 3> u;
    oracle.fields(rho, u);
    const MacroscopicFields fields = sim->fields();
    EXPECT_LT(test::max_relative_difference(fields.rho, rho), p.tolerance) << steps << " steps";
    // u sums ~10 populations of size up to ~1/3 with independent rounding errors and is compared relative to
    // max |u| ~ 0.03: its relative error may reach sqrt(10) * (1/3) / 0.03 ~ 35 times the populations'.
    for (int a = 0; a < 3; ++a) {
      EXPECT_LT(test::max_relative_difference(fields.u[a], u[a]), 35 * p.tolerance) << a << ", " << steps << " steps";
    }
    std::cout << "[ oracle   ] " << p.name << ", " << steps << " steps: max relative population difference "
              << pop_error << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllBoundaryKinds, FusedKernelVsOracle,
    ::testing::Values(OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double"},
                      OracleCase{Collision::bgk, Precision::float64, 1e-12, "BGK_double"},
                      OracleCase{Collision::trt, Precision::float32, 1e-5, "TRT_float"},
                      OracleCase{Collision::bgk, Precision::float32, 1e-5, "BGK_float"},
                      OracleCase{Collision::trt, Precision::float16, 1e-4, "TRT_fp16"},
                      OracleCase{Collision::bgk, Precision::float16, 1e-4, "BGK_fp16"},
                      OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double_no_force", false},
                      OracleCase{Collision::bgk, Precision::float32, 1e-5, "BGK_float_no_force", false},
                      OracleCase{Collision::trt, Precision::float16, 1e-4, "TRT_fp16_no_force", false},
                      OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double_les", true, true},
                      OracleCase{Collision::bgk, Precision::float64, 1e-12, "BGK_double_les", true, true},
                      OracleCase{Collision::trt, Precision::float32, 1e-5, "TRT_float_les", true, true},
                      OracleCase{Collision::bgk, Precision::float16, 1e-4, "BGK_fp16_les", true, true},
                      OracleCase{Collision::trt, Precision::float32, 1e-5, "TRT_float_les_no_force", false, true}),
    [](const auto& info) { return std::string(info.param.name); });

// ---- Open faces: the pass after the fused kernel (kernels/open_boundaries.hpp) against the oracle's rules ---------

struct OpenCase {
  int layout;  // which faces: 0, 1, 2 (open_boundaries_case)
  Precision precision;
  double tolerance;
  const char* name;
  bool body_force = true;
  /// Sponge layers (kernels/sponge_layers.hpp) before the inlet, the outlet and the outflow of layout 0, one of
  /// them reaching the outflow's layer (a corner where two layers overlap); with `les` also the Smagorinsky model.
  bool sponge = false;
  bool les = false;
};

void PrintTo(const OpenCase& c, std::ostream* os) { *os << c.name; }

FaceBoundary inlet_parabolic(double peak, double ramp) {
  FaceBoundary b;
  b.kind = FaceKind::velocity_inlet;
  b.profile = InletProfile::parabolic;
  b.speed = peak;
  b.ramp_time = ramp;
  return b;
}

FaceBoundary open_face(FaceKind kind) {
  FaceBoundary b;
  b.kind = kind;
  return b;
}

/// Every open type and every kind of edge where they meet walls, moving walls and each other, from a random state:
///   0: x_min parabolic inlet (duct form over y and z, ramp), x_max pressure outlet, y_min free slip, y_max
///      convective outflow, z_min wall, z_max moving wall (edges: inlet/free slip, inlet/outflow, outlet/free slip,
///      outlet/outflow, open/wall, open/moving wall);
///   1: x_min uniform oblique inlet, x_max zero-gradient outflow, y_min, y_max, z_min free slip, z_max wall (edges:
///      outflow/free slip, free slip/free slip);
///   2: x periodic, y_min parabolic inlet (plane Poiseuille over z), y_max pressure outlet, z walls (links along
///      the face across the periodic x face);
///   3: x_min uniform inlet, x_max and y_max pressure outlets (an edge of two outlets, at one density as the reader
///      requires: the fused kernel writes x_max's moments, the pass sums y_max's), y_min free slip, z walls.
CaseConfig open_boundaries_case(const OpenCase& p) {
  CaseConfig c = test::box_case(30, 30, 8, 0.7);
  if (p.layout == 0) {
    c.faces[0] = inlet_parabolic(0.04, 30.0);
    c.faces[1] = open_face(FaceKind::pressure_outlet);
    c.faces[1].density = 1.005;
    c.faces[2] = open_face(FaceKind::free_slip);
    c.faces[3] = open_face(FaceKind::outflow);
    c.faces[3].scheme = OutflowScheme::convective;
    c.faces[3].convection_velocity = 0.07;
    c.faces[5] = {FaceKind::moving_wall, {0.03, 0.01, 0.0}};
  } else if (p.layout == 1) {
    c.faces[0] = open_face(FaceKind::velocity_inlet);
    c.faces[0].velocity = {0.03, 0.01, 0.005};
    c.faces[1] = open_face(FaceKind::outflow);
    for (int face : {2, 3, 4}) c.faces[face] = open_face(FaceKind::free_slip);
  } else if (p.layout == 2) {
    test::make_periodic(c, 0);
    c.faces[2] = inlet_parabolic(0.05, 0.0);
    c.faces[3] = open_face(FaceKind::pressure_outlet);
  } else {
    c.faces[0] = open_face(FaceKind::velocity_inlet);
    c.faces[0].velocity = {0.04, 0.0, 0.0};
    c.faces[1] = open_face(FaceKind::pressure_outlet);
    c.faces[1].density = 0.998;
    c.faces[2] = open_face(FaceKind::free_slip);
    c.faces[3] = open_face(FaceKind::pressure_outlet);
    c.faces[3].density = 0.998;
  }
  if (p.sponge) {
    c.faces[0].sponge = 6.0;  // x_min inlet
    c.faces[0].sponge_tau = 1.0;
    c.faces[1].sponge = 9.5;  // x_max outlet: overlaps y_max's layer in the corner
    c.faces[1].sponge_tau = 1.3;
    c.faces[3].sponge = 4.0;  // y_max outflow
    c.faces[3].sponge_tau = 0.9;
  }
  if (p.les) {
    c.les = LesModel::smagorinsky;
    c.smagorinsky_constant = 0.5;
  }
  if (p.body_force) c.body_force = {1e-5, -2e-5, 5e-6};
  c.precision = p.precision;
  c.velocity = 0.05;
  finalize_case(c);
  return c;
}

class OpenFacesVsOracle : public ::testing::TestWithParam<OpenCase> {};

TEST_P(OpenFacesVsOracle, HundredStepsAgree) {
  EDDY_REQUIRE_DEVICE();
  const OpenCase p = GetParam();
  const CaseConfig config = open_boundaries_case(p);
  const std::vector<double> start = test::random_state(config);
  reference::ReferenceLbm oracle(config);
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  oracle.set_populations(sim->populations());
  int done = 0;
  for (int steps : {100, 101}) {  // "swapped" and "own" layouts
    for (; done < steps; ++done) oracle.step();
    sim->advance(steps - sim->time_step());
    sim->synchronize();
    const std::vector<double> fused = sim->populations();
    const double pop_error = test::max_relative_difference(fused, oracle.populations());
    EXPECT_LT(pop_error, p.tolerance) << "populations differ after " << steps << " steps";
    EXPECT_GT(test::max_relative_difference(fused, start), 1e-3);
    std::vector<double> rho;
    std::array<std::vector<double>, 3> u;
    oracle.fields(rho, u);
    const MacroscopicFields fields = sim->fields();
    EXPECT_LT(test::max_relative_difference(fields.rho, rho), p.tolerance) << steps << " steps";
    // Relative to the largest velocity component (a component across the flow can be small everywhere).
    double speed = 0.0, velocity_error = 0.0;
    for (int a = 0; a < 3; ++a)
      for (std::size_t k = 0; k < u[a].size(); ++k) {
        speed = std::max(speed, std::abs(u[a][k]));
        velocity_error = std::max(velocity_error, std::abs(fields.u[a][k] - u[a][k]));
      }
    EXPECT_LT(velocity_error / speed, 35 * p.tolerance) << steps << " steps";
    std::cout << "[ oracle   ] open faces " << p.name << ", " << steps << " steps: max relative population difference "
              << pop_error << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(OpenFaces, OpenFacesVsOracle,
                         ::testing::Values(OpenCase{0, Precision::float64, 1e-12, "all_types_double"},
                                           OpenCase{0, Precision::float32, 1e-5, "all_types_float"},
                                           OpenCase{0, Precision::float16, 1e-4, "all_types_fp16"},
                                           OpenCase{0, Precision::float64, 1e-12, "all_types_double_no_force", false},
                                           OpenCase{0, Precision::float64, 1e-12, "sponge_double", true, true},
                                           OpenCase{0, Precision::float32, 1e-5, "sponge_float", true, true},
                                           OpenCase{0, Precision::float16, 1e-4, "sponge_fp16_les", true, true, true},
                                           OpenCase{0, Precision::float64, 1e-12, "sponge_double_les_no_force", false,
                                                    true, true},
                                           OpenCase{1, Precision::float64, 1e-12, "free_slip_box_double"},
                                           OpenCase{1, Precision::float32, 1e-5, "free_slip_box_float"},
                                           OpenCase{2, Precision::float64, 1e-12, "periodic_along_face_double"},
                                           OpenCase{2, Precision::float16, 1e-4, "periodic_along_face_fp16"},
                                           OpenCase{3, Precision::float64, 1e-12, "two_outlets_double"},
                                           OpenCase{3, Precision::float32, 1e-5, "two_outlets_float"}),
                         [](const auto& info) { return std::string(info.param.name); });

// [[solid]] bodies of every kind of link at once, in the box of the test above: an interpolated sphere and a
// cylinder across the depth (near and far links at every q), a box with faces off the half-way planes cut by the
// periodic x face (its wall there lies on the face: q = 1/2, half-way), a half-way plate one cell thick and an
// interpolated block one cell from it (the gap's links have a solid second node: half-way), and a moving lid.
CaseConfig solids_case(const OracleCase& p) {
  CaseConfig c = all_boundaries_case(p);
  const auto solid = [](const char* name, SolidShape shape) {
    SolidConfig s;
    s.name = name;
    s.shape = shape;
    return s;
  };
  SolidConfig ball = solid("ball", SolidShape::sphere);
  ball.center = {8.3, 10.7, 4.2};
  ball.radius = 3.6;
  SolidConfig post = solid("post", SolidShape::cylinder);
  post.start = {20.6, 5.2, -1.0};
  post.end = {20.6, 5.2, 9.0};
  post.radius = 2.7;
  SolidConfig slab = solid("slab", SolidShape::box);
  slab.min = {-1.0, 19.3, -1.0};
  slab.max = {4.4, 22.8, 9.0};
  SolidConfig plate = solid("plate", SolidShape::box);
  plate.min = {14.0, 14.0, 1.0};
  plate.max = {15.0, 25.0, 7.0};
  plate.wall = SolidWall::halfway;
  SolidConfig block = solid("block", SolidShape::box);
  block.min = {15.7, 15.2, 1.3};
  block.max = {18.6, 24.1, 6.7};
  c.solids = {ball, post, slab, plate, block};
  finalize_case(c);
  return c;
}

class FusedKernelWithSolidsVsOracle : public ::testing::TestWithParam<OracleCase> {};

/// The fluid cells' entries of populations `f` ([i * n + k]) and their fields, solid cells left out.
std::vector<double> fluid_entries(const CaseConfig& c, const std::vector<double>& f) {
  const std::size_t n = std::size_t(c.size[0]) * c.size[1] * c.size[2];
  std::vector<double> out;
  for (int z = 0; z < c.size[2]; ++z)
    for (int y = 0; y < c.size[1]; ++y)
      for (int x = 0; x < c.size[0]; ++x) {
        if (reference::ReferenceLbm::solid_at(c, x, y, z) >= 0) continue;
        const std::size_t k = x + std::size_t(c.size[0]) * (y + std::size_t(c.size[1]) * z);
        for (int i = 0; i < 19; ++i) out.push_back(f[i * n + k]);
      }
  return out;
}

TEST_P(FusedKernelWithSolidsVsOracle, HundredStepsAgree) {
  EDDY_REQUIRE_DEVICE();
  const OracleCase p = GetParam();
  const CaseConfig config = solids_case(p);
  const std::vector<double> start = test::random_state(config);
  reference::ReferenceLbm oracle(config);
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  oracle.set_populations(sim->populations());
  int done = 0;
  for (int steps : {100, 101}) {
    for (; done < steps; ++done) oracle.step();
    sim->advance(steps - sim->time_step());
    sim->synchronize();
    const std::vector<double> fused = fluid_entries(config, sim->populations());
    const std::vector<double> expected = fluid_entries(config, oracle.populations());
    const double pop_error = test::max_relative_difference(fused, expected);
    EXPECT_LT(pop_error, p.tolerance) << "populations differ after " << steps << " steps";
    EXPECT_GT(test::max_relative_difference(fused, fluid_entries(config, start)), 1e-3);
    std::vector<double> rho;
    std::array<std::vector<double>, 3> u;
    oracle.fields(rho, u);
    const MacroscopicFields fields = sim->fields();
    EXPECT_LT(test::max_relative_difference(fields.rho, rho), p.tolerance) << steps << " steps";
    for (int a = 0; a < 3; ++a) {
      EXPECT_LT(test::max_relative_difference(fields.u[a], u[a]), 35 * p.tolerance) << a << ", " << steps << " steps";
    }
    std::cout << "[ oracle   ] solids, " << p.name << ", " << steps << " steps: max relative population difference "
              << pop_error << "\n";
  }
}

TEST(FusedKernelWithSolids, OracleSeesHalfwayWalls) {
  // The comparison can fail: the same bodies with half-way walls differ from the interpolating oracle well beyond
  // the double tolerance.
  EDDY_REQUIRE_DEVICE();
  const OracleCase p{Collision::trt, Precision::float64, 1e-12, "TRT_double"};
  const CaseConfig config = solids_case(p);
  CaseConfig halfway = config;
  for (SolidConfig& s : halfway.solids) s.wall = SolidWall::halfway;
  const std::vector<double> start = test::random_state(config);
  reference::ReferenceLbm oracle(config);
  auto sim = Simulation::create(halfway);
  sim->set_populations(start);
  oracle.set_populations(sim->populations());
  for (int s = 0; s < 20; ++s) oracle.step();
  sim->advance(20);
  const double error = test::max_relative_difference(fluid_entries(config, sim->populations()),
                                                     fluid_entries(config, oracle.populations()));
  EXPECT_GT(error, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(InterpolatedWalls, FusedKernelWithSolidsVsOracle,
                         ::testing::Values(OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double"},
                                           OracleCase{Collision::bgk, Precision::float64, 1e-12, "BGK_double"},
                                           OracleCase{Collision::trt, Precision::float32, 1e-5, "TRT_float"},
                                           OracleCase{Collision::trt, Precision::float16, 1e-4, "TRT_fp16"},
                                           OracleCase{Collision::trt, Precision::float64, 1e-12, "TRT_double_no_force",
                                                      false}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---- Open faces and [[solid]] bodies that reach them: the order of the two passes -----------------------------------

/// The open layouts 0 and 2 with bodies that reach the open faces, so that cut links and open links meet: the
/// open-face pass reads the wall slots of face cells beside a body (a pressure outlet's moments, an outflow's and a
/// free-slip face's copies), and near interpolated links whose second node is an open face's ghost node read what
/// that pass sets. Layout 0: a cylinder whose axis runs out through the inlet face, a box standing on the pressure
/// outlet (faces off the half-way planes), a half-way box on the outlet too, a sphere cut by the free-slip face, a
/// box cut by the convective outflow face, and a sphere in the middle (links of neither kind); layout 2 (x periodic):
/// a sphere cut by the inlet face, a box on the outlet cut by the periodic x face, a cylinder across the depth.
CaseConfig open_solids_case(const OpenCase& p) {
  CaseConfig c = open_boundaries_case(p);
  const auto solid = [](const char* name, SolidShape shape) {
    SolidConfig s;
    s.name = name;
    s.shape = shape;
    return s;
  };
  if (p.layout == 0) {
    SolidConfig nozzle = solid("nozzle", SolidShape::cylinder);
    nozzle.start = {-2.0, 12.3, 3.7};
    nozzle.end = {7.4, 12.3, 3.7};
    nozzle.radius = 2.2;
    SolidConfig step = solid("step", SolidShape::box);
    step.min = {25.6, 4.3, 1.4};
    step.max = {31.0, 9.7, 6.6};
    SolidConfig block = solid("block", SolidShape::box);
    block.min = {27.3, 20.2, 2.2};
    block.max = {30.5, 23.6, 5.8};
    block.wall = SolidWall::halfway;
    SolidConfig cap = solid("cap", SolidShape::sphere);
    cap.center = {15.2, 0.8, 4.1};
    cap.radius = 2.9;
    SolidConfig weir = solid("weir", SolidShape::box);
    weir.min = {12.3, 27.6, -1.0};
    weir.max = {17.8, 31.0, 9.0};
    SolidConfig ball = solid("ball", SolidShape::sphere);
    ball.center = {15.5, 15.5, 4.0};
    ball.radius = 3.1;
    c.solids = {nozzle, step, block, cap, weir, ball};
  } else {
    SolidConfig ball = solid("ball", SolidShape::sphere);
    ball.center = {11.4, 0.6, 4.3};
    ball.radius = 3.3;
    SolidConfig step = solid("step", SolidShape::box);
    step.min = {-2.4, 25.3, 1.6};
    step.max = {4.3, 31.0, 6.2};
    SolidConfig post = solid("post", SolidShape::cylinder);
    post.start = {20.2, 14.7, -1.0};
    post.end = {20.2, 14.7, 9.0};
    post.radius = 2.6;
    c.solids = {ball, step, post};
  }
  finalize_case(c);
  return c;
}

class OpenFacesWithSolidsVsOracle : public ::testing::TestWithParam<OpenCase> {};

TEST_P(OpenFacesWithSolidsVsOracle, HundredStepsAgree) {
  EDDY_REQUIRE_DEVICE();
  const OpenCase p = GetParam();
  const CaseConfig config = open_solids_case(p);
  // The case has what it is meant to test: interpolated links next to an open face, some whose second node is an
  // open face's ghost node (near ones among them), and open links beside a body.
  const Decomposition d = serial_decomposition(config);
  const std::vector<CellFlag> flags = build_flags(config, d);
  const CutLinkList list = cut_links(config, d, flags);
  int late = 0, through_open = 0;
  for (std::int64_t k = list.early_interpolated; k < list.interpolated; ++k) {
    const CutLink& l = list.links[std::size_t(k)];
    ++late;
    if (is_open(flags[std::size_t(l.behind)]) && l.near != 0) ++through_open;
  }
  EXPECT_GT(late, 20);
  EXPECT_GT(through_open, 2);
  EXPECT_GT(list.early_interpolated, 20);
  int beside_body = 0;  // open links into a face cell with a neighbour inside a body
  for (const OpenLink& l : open_links(config, d, flags)) {
    for (int i = 1; i < 19; ++i) {
      int g[3];
      bool inside = true;
      for (int a = 0; a < 3; ++a) {
        g[a] = l.position[a] - 1 + d3q19::c(i, a);
        inside = inside && g[a] >= 0 && g[a] < config.size[a];
      }
      if (inside && reference::ReferenceLbm::solid_at(config, g[0], g[1], g[2]) >= 0) {
        ++beside_body;
        break;
      }
    }
  }
  EXPECT_GT(beside_body, 10);

  const std::vector<double> start = test::random_state(config);
  reference::ReferenceLbm oracle(config);
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  oracle.set_populations(sim->populations());
  int done = 0;
  for (int steps : {100, 101}) {  // "swapped" and "own" layouts
    for (; done < steps; ++done) oracle.step();
    sim->advance(steps - sim->time_step());
    sim->synchronize();
    const std::vector<double> fused = fluid_entries(config, sim->populations());
    const double pop_error = test::max_relative_difference(fused, fluid_entries(config, oracle.populations()));
    EXPECT_LT(pop_error, p.tolerance) << "populations differ after " << steps << " steps";
    EXPECT_GT(test::max_relative_difference(fused, fluid_entries(config, start)), 1e-3);
    std::vector<double> rho;
    std::array<std::vector<double>, 3> u;
    oracle.fields(rho, u);
    const MacroscopicFields fields = sim->fields();
    EXPECT_LT(test::max_relative_difference(fields.rho, rho), p.tolerance) << steps << " steps";
    double speed = 0.0, velocity_error = 0.0;
    for (int a = 0; a < 3; ++a)
      for (std::size_t k = 0; k < u[a].size(); ++k) {
        speed = std::max(speed, std::abs(u[a][k]));
        velocity_error = std::max(velocity_error, std::abs(fields.u[a][k] - u[a][k]));
      }
    EXPECT_LT(velocity_error / speed, 35 * p.tolerance) << steps << " steps";
    std::cout << "[ oracle   ] open faces and solids " << p.name << ", " << steps
              << " steps: max relative population difference " << pop_error << "\n";
  }
}

INSTANTIATE_TEST_SUITE_P(OpenFacesAndSolids, OpenFacesWithSolidsVsOracle,
                         ::testing::Values(OpenCase{0, Precision::float64, 1e-12, "all_types_double"},
                                           OpenCase{0, Precision::float32, 1e-5, "all_types_float"},
                                           OpenCase{0, Precision::float16, 1e-4, "all_types_fp16"},
                                           OpenCase{2, Precision::float64, 1e-12, "periodic_along_face_double"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(FusedKernel, RepeatedRunsAreBitIdentical) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig config = all_boundaries_case({Collision::trt, Precision::float32, 0, ""});
  const std::vector<double> start = test::random_state(config);
  std::vector<double> result[2];
  for (auto& r : result) {
    auto sim = Simulation::create(config);
    sim->set_populations(start);
    sim->advance(50);
    r = sim->populations();
  }
  EXPECT_EQ(result[0], result[1]);
}

TEST(FusedKernel, Fp16StoresANanAsNan) {
  // fp16's stochastic rounding adds random bits to a value's bit pattern; added to a NaN whose significand is all
  // ones (what GPUs produce) they would carry into the sign bit and store -0, hiding the NaN from the run's
  // instability check. A cell whose moments are not finite therefore draws zero bits (kernels/rounding_bits.hpp).
  // One NaN population makes the cell it streams into collide to 19 NaNs, which must all be stored as NaN.
  EDDY_REQUIRE_DEVICE();
  const CaseConfig config = all_boundaries_case({Collision::trt, Precision::float16, 0, ""});
  std::vector<double> start = test::random_state(config);
  const std::size_t n = std::size_t(config.size[0]) * config.size[1] * config.size[2];
  const std::size_t cell = 15 + std::size_t(config.size[0]) * (15 + std::size_t(config.size[1]) * 4);
  start[1 * n + cell] = std::numeric_limits<double>::quiet_NaN();
  auto sim = Simulation::create(config);
  sim->set_populations(start);
  for (int step = 1; step <= 2; ++step) {  // both kinds of step of the in-place scheme
    sim->advance(1);
    sim->synchronize();
    const std::vector<double> f = sim->populations();
    const auto nans = std::count_if(f.begin(), f.end(), [](double v) { return std::isnan(v); });
    EXPECT_GE(nans, d3q19::Q) << "after step " << step;
  }
}

TEST(FusedKernel, SubBoxUpdatesComposeToTheWholeBox) {
  // The in-place kernel updates any sub-box of a block, in either layout: two halves, one after the other, give
  // exactly the whole-box result, and the second half's cells are untouched until their own launch.
  EDDY_REQUIRE_DEVICE();
  CaseConfig config = all_boundaries_case({Collision::trt, Precision::float64, 0, ""});
  const Decomposition serial = serial_decomposition(config);
  const BlockShape shape = block_shape(serial);
  const std::size_t size = std::size_t(d3q19::Q) * std::size_t(shape.n_cells());
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> value(0.01, 0.1);
  std::vector<double> host(size);
  for (auto& v : host) v = value(rng);
  DeviceBuffer<CellFlag> flags(std::size_t(shape.n_cells()));
  flags.upload(build_flags(config, serial));
  const auto relax = relaxation<double>(config);
  const auto walls = wall_velocities<double>(config);
  const RoundingKey key{0, {0, 0, 0}};
  const Box all = shape.interior();
  Box left = all, right = all;
  left.hi[1] = 4;
  right.lo[1] = 4;
  for (PopulationLayout layout : {PopulationLayout::own, PopulationLayout::swapped}) {
    DeviceBuffer<double> whole(size), halves(size);
    whole.upload(host);
    halves.upload(host);
    ASSERT_TRUE(aligned_range(shape, all).used);
    ASSERT_FALSE(aligned_range(shape, left).used || aligned_range(shape, right).used);
    const PopulationView<double> w{whole.data(), shape.n_cells()}, h{halves.data(), shape.n_cells()};
    stream_collide(w, layout, FlagView{flags.data()}, shape, all, relax, walls, key);
    stream_collide(h, layout, FlagView{flags.data()}, shape, left, relax, walls, key);
    const std::vector<double> only_left = halves.download();
    stream_collide(h, layout, FlagView{flags.data()}, shape, right, relax, walls, key);
    backend::synchronize();
    EXPECT_EQ(whole.download(), halves.download()) << "layout " << int(layout);
    // 64-bit population offsets (blocks beyond ~600^3 cells) give the same result as the 32-bit ones used here.
    DeviceBuffer<double> wide(size);
    wide.upload(host);
    stream_collide(PopulationView<double>{wide.data(), shape.n_cells()}, layout, FlagView{flags.data()}, shape, all,
                   relax, walls, key, nullptr, /*wide_index=*/true);
    backend::synchronize();
    EXPECT_EQ(whole.download(), wide.download()) << "64-bit offsets, layout " << int(layout);
    // Cell (3, 6, 3) and all its neighbours lie in the right half: untouched after the left half; (3, 2, 3) is
    // in the left half and has changed.
    for (int i = 0; i < d3q19::Q; ++i) {
      const std::int64_t right_cell = i * shape.n_cells() + shape.index(3, 6, 3);
      const std::int64_t left_cell = i * shape.n_cells() + shape.index(3, 2, 3);
      EXPECT_EQ(only_left[right_cell], host[right_cell]) << "direction " << i << ", layout " << int(layout);
      if (i > 0) EXPECT_NE(only_left[left_cell], host[left_cell]) << "direction " << i << ", layout " << int(layout);
    }
  }
}

}  // namespace
}  // namespace eddy
