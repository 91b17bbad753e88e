// Out-of-core runs (solver/out_of_core.hpp) against in-core runs of the same case, backend and storage: the fields,
// the populations and the raw stored state must be bitwise identical, for time blocks k = 1, 2, 4 and 2, 3 and 7
// slabs (a count that does not divide the planes included), at a time that is a multiple of k and one that is not.
// Cases: a cavity (walls on every face, two moving walls, a body force), a channel (periodic in x and z, walls in
// y, driven by a body force) and a fully periodic Taylor-Green vortex; fp16's stochastic rounding makes the keys of
// halo cells across the periodic z face count. Also: a budget too small for one slab names the minimum, and that
// minimum runs; slabs thinner than their halo work; derived output fields (vorticity, Q, |S|) are the same;
// restarts between in-core and out-of-core runs continue bit for bit. With [thermal] (the temperature travels with
// the slabs): the heated cavity (cases/heated_cavity_2d.toml, shrunk, and turned so that its 2D plane is cut by the
// slabs), a Rayleigh-Benard layer (cases/rayleigh_benard_3d.toml, shrunk) and a heated box periodic in z give the
// in-core T, fields and wall heat flux bit for bit, with one and two sub-steps; the memory plan counts T;
// restarts carry T; particles are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

#include "io/case_config.hpp"
#include "io/solid_files.hpp"
#include "solver/out_of_core.hpp"
#include "solver/simulation.hpp"
#include "solver/solid_forces.hpp"
#include "solver/tessellated_sphere.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

enum class Flow { cavity, channel, taylor_green };

const char* flow_name(Flow f) { return f == Flow::cavity ? "cavity" : f == Flow::channel ? "channel" : "taylor_green"; }

/// 35 z-planes: 7 slabs of 5, each deep enough for the halo of k = 4.
CaseConfig flow_case(Flow flow, Precision precision) {
  CaseConfig c = test::box_case(12, 10, 35, 0.0);
  c.tau = 0.0;
  c.velocity = 0.08;
  c.reynolds = 40.0;
  if (flow == Flow::cavity) {
    c.faces[3] = {FaceKind::moving_wall, {0.08, 0.0, 0.02}};
    c.faces[0] = {FaceKind::moving_wall, {0.0, 0.03, 0.0}};
    c.body_force = {0.0, 0.0, 2e-6};
  } else if (flow == Flow::channel) {
    test::make_periodic(c, 0);
    test::make_periodic(c, 2);
    c.body_force = {3e-5, 0.0, 1e-5};
  } else {
    for (int a = 0; a < 3; ++a) test::make_periodic(c, a);
    c.initial = {InitialKind::taylor_green_3d, 0.05};  // lattice units
  }
  c.precision = precision;
  return c;
}

/// The flow in core, finalized.
CaseConfig in_core_case(Flow flow, Precision precision) {
  CaseConfig c = flow_case(flow, precision);
  c.out_of_core.mode = OutOfCoreMode::off;
  finalize_case(c);
  return c;
}

CaseConfig out_of_core_case(CaseConfig c, int time_block, int slabs) {
  c.out_of_core.mode = OutOfCoreMode::on;
  c.out_of_core.time_block = time_block;
  c.out_of_core.slabs = slabs;
  c.out_of_core.device_memory_limit = std::int64_t(1) << 30;
  return c;
}

/// Asserts bitwise equality of two runs' fields, populations and stored state; `what` names the comparison.
void expect_identical(Simulation& in_core, Simulation& out_of_core, const std::string& what) {
  const MacroscopicFields a = in_core.fields(), b = out_of_core.fields();
  EXPECT_TRUE(a.rho == b.rho) << what << ": density differs";
  for (int d = 0; d < 3; ++d) EXPECT_TRUE(a.u[d] == b.u[d]) << what << ": velocity component " << d << " differs";
  EXPECT_TRUE(in_core.populations() == out_of_core.populations()) << what << ": populations differ";
  const RawState ra = in_core.raw_state(), rb = out_of_core.raw_state();
  EXPECT_EQ(ra.step, rb.step) << what;
  EXPECT_EQ(ra.layout, rb.layout) << what;
  EXPECT_TRUE(ra.populations == rb.populations) << what << ": stored populations differ";
  const Diagnostics da = in_core.diagnose(), db = out_of_core.diagnose();
  EXPECT_EQ(da.mass, db.mass) << what;
  EXPECT_EQ(da.max_speed, db.max_speed) << what;
}

using Params = std::tuple<Flow, Precision, int, int>;  // flow, storage, time_block, slabs

class OutOfCore : public ::testing::TestWithParam<Params> {};

TEST_P(OutOfCore, EqualsInCoreBitwise) {
  EDDY_REQUIRE_DEVICE();
  const auto [flow, precision, k, slabs] = GetParam();
  const CaseConfig base = in_core_case(flow, precision);
  CaseConfig ooc = out_of_core_case(flow_case(flow, precision), k, slabs);
  finalize_case(ooc);
  auto in_core = Simulation::create(base);
  auto out = Simulation::create(ooc);
  OutOfCoreStats stats;
  ASSERT_TRUE(out->out_of_core(stats));
  ASSERT_FALSE(in_core->out_of_core(stats));
  out->out_of_core(stats);
  EXPECT_EQ(stats.time_block, k);
  EXPECT_EQ(stats.slabs, slabs);
  expect_identical(*in_core, *out, "initial state");
  // 8 steps (a multiple of every k here), then 3 more (a partial block for k = 2 and 4, odd layouts for all).
  in_core->advance(8);
  out->advance(8);
  expect_identical(*in_core, *out, "after 8 steps");
  in_core->advance(3);
  out->advance(3);
  expect_identical(*in_core, *out, "after 11 steps");
  out->out_of_core(stats);
  EXPECT_EQ(stats.sweeps, (8 + k - 1) / k + (3 + k - 1) / k);
  EXPECT_GT(stats.bytes_up, 0.0);
  EXPECT_GT(stats.bytes_down, 0.0);
  // The flow has moved: equality is not of two states at rest.
  EXPECT_GT(out->diagnose().max_speed, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(KAndSlabs, OutOfCore,
                         ::testing::Combine(::testing::Values(Flow::cavity, Flow::channel, Flow::taylor_green),
                                            ::testing::Values(Precision::float32, Precision::float16,
                                                              Precision::float64),
                                            ::testing::Values(1, 2, 4), ::testing::Values(2, 3, 7)),
                         [](const ::testing::TestParamInfo<Params>& info) {
                           const Precision p = std::get<1>(info.param);
                           return std::string(flow_name(std::get<0>(info.param))) + "_" +
                                  (p == Precision::float16   ? "fp16"
                                   : p == Precision::float64 ? "double"
                                                             : "float") +
                                  "_k" + std::to_string(std::get<2>(info.param)) + "_slabs" +
                                  std::to_string(std::get<3>(info.param));
                         });

// Solid bodies: the host planes' flags come from build_flags on an extended block (solver/out_of_core_simulation.cpp),
// decided by global position like every block's, so a sphere cut by the slab boundaries, and one cut off by the
// periodic z face (its halo planes wrap the block), give the in-core bits; so do the forces on it.
TEST(OutOfCoreSolids, SphereEqualsInCoreBitwise) {
  EDDY_REQUIRE_DEVICE();
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    for (const std::array<double, 3> centre : {std::array<double, 3>{6.0, 5.0, 17.5}, {6.0, 5.0, 1.0}}) {
      CaseConfig base = flow_case(Flow::channel, precision);
      SolidConfig s;
      s.name = "ball";
      s.shape = SolidShape::sphere;
      s.center = centre;
      s.radius = 3.7;
      s.wall = SolidWall::halfway;  // interpolated walls run in core only (OutOfCoreSolids.InterpolatedWallsRefused)
      base.solids = {s};
      for (const auto [k, slabs] : {std::pair<int, int>{1, 7}, {2, 3}, {4, 2}}) {
        CaseConfig in = base;
        in.out_of_core.mode = OutOfCoreMode::off;
        CaseConfig ooc = out_of_core_case(base, k, slabs);
        finalize_case(in);
        finalize_case(ooc);
        auto in_core = Simulation::create(in);
        auto out = Simulation::create(ooc);
        OutOfCoreStats stats;
        ASSERT_TRUE(out->out_of_core(stats));
        in_core->advance(11);
        out->advance(11);
        const std::string what = "sphere at z " + std::to_string(centre[2]) + ", storage " +
                                 std::to_string(int(precision)) + ", time_block " + std::to_string(k) + ", " +
                                 std::to_string(slabs) + " slabs";
        expect_identical(*in_core, *out, what);
        EXPECT_GT(out->diagnose().max_speed, 1e-5) << what;
        // The sphere is there: its cells read density 0.
        const MacroscopicFields f = out->fields();
        EXPECT_EQ(f.rho[f.index(6, 5, int(centre[2]))], 0.0) << what;
        // The forces on it: the in-core pass over the host state, after an odd and an even step count.
        for (int more : {0, 1}) {
          in_core->advance(more);
          out->advance(more);
          const std::vector<unsigned long long> a = global_solid_force_sums(*in_core);
          EXPECT_EQ(global_solid_force_sums(*out), a) << what << ", forces after " << 11 + more << " steps";
          EXPECT_NE(a[0], 0ull) << what;
        }
      }
    }
  }
}

// Meshes: voxelised by each extended block of host planes (solver/block_solids.hpp), by global position: a mesh sphere
// cut by the slab boundaries and by the periodic z face, and an open mesh repaired with repair = "fill", give the
// in-core bits; the summary counts each rank's own planes only (the same cells as in core).
TEST(OutOfCoreSolids, MeshesEqualInCoreBitwise) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig base = flow_case(Flow::channel, Precision::float32);
  SolidConfig ball, open;
  ball.name = "ball";
  ball.shape = SolidShape::mesh;
  ball.wall = SolidWall::halfway;  // out of core: interpolated walls are refused
  ball.surface = std::make_shared<const TriangleMesh>(transformed_mesh(uv_sphere({6.2, 5.1, 1.4}, 3.9, 12, 24), ball));
  open.name = "open";
  open.shape = SolidShape::mesh;
  open.wall = SolidWall::halfway;
  open.repair = MeshRepair::fill;
  TriangleMesh cut = uv_sphere({5.7, 4.8, 17.6}, 3.6, 12, 24);
  cut.triangles.erase(cut.triangles.begin() + 100, cut.triangles.begin() + 106);
  open.surface = std::make_shared<const TriangleMesh>(transformed_mesh(cut, open));
  base.solids = {ball, open};
  for (const auto [k, slabs] : {std::pair<int, int>{1, 7}, {2, 3}}) {
    CaseConfig in = base;
    in.out_of_core.mode = OutOfCoreMode::off;
    CaseConfig ooc = out_of_core_case(base, k, slabs);
    finalize_case(in);
    finalize_case(ooc);
    auto in_core = Simulation::create(in);
    auto out = Simulation::create(ooc);
    in_core->advance(11);
    out->advance(11);
    const std::string what = "time_block " + std::to_string(k) + ", " + std::to_string(slabs) + " slabs";
    expect_identical(*in_core, *out, what);
    ASSERT_EQ(out->solid_summary().size(), 2u);
    for (std::size_t n = 0; n < 2; ++n) {
      EXPECT_EQ(out->solid_summary()[n].cells, in_core->solid_summary()[n].cells) << what;
      EXPECT_EQ(out->solid_summary()[n].odd_columns, in_core->solid_summary()[n].odd_columns) << what;
    }
    EXPECT_GT(in_core->solid_summary()[1].odd_columns, 0) << what;
    EXPECT_GT(in_core->solid_summary()[0].cells, 150) << what;
  }
}

// Interpolated walls (the default of [[solid]] wall) need a pass over the cut links after every step on the whole
// block: out of core a case built in code is refused with a message naming the solid and the way out (the case
// reader refuses out_of_core = true with them already, tests/unit/test_solids.cpp), and out_of_core = "auto" keeps
// such a case in core.
TEST(OutOfCoreSolids, InterpolatedWallsRefused) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig base = flow_case(Flow::channel, Precision::float32);
  SolidConfig s;
  s.name = "ball";
  s.shape = SolidShape::sphere;
  s.center = {6.0, 5.0, 8.0};
  s.radius = 3.0;
  base.solids = {s};
  CaseConfig ooc = out_of_core_case(base, 2, 2);
  ooc.out_of_core.mode = OutOfCoreMode::automatic;  // passes the reader's check; then ask for out of core
  finalize_case(ooc);
  ooc.out_of_core.mode = OutOfCoreMode::on;
  std::string message;
  try {
    Simulation::create(ooc);
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("solid 'ball' has wall = \"interpolated\", which runs in core only"), std::string::npos)
      << message;
  EXPECT_NE(message.find("wall = \"halfway\""), std::string::npos) << message;
  // "auto" with a budget the block exceeds would go out of core: with interpolated walls it stays in core.
  CaseConfig automatic = out_of_core_case(base, 0, 0);
  automatic.out_of_core.mode = OutOfCoreMode::automatic;
  automatic.out_of_core.device_memory_limit = 1000;
  automatic.out_of_core.time_block = 0;
  automatic.out_of_core.slabs = 0;
  finalize_case(automatic);
  auto in_core = Simulation::create(automatic);
  OutOfCoreStats stats;
  EXPECT_FALSE(in_core->out_of_core(stats));
}

TEST(OutOfCoreBudget, TooSmallForOneSlabNamesTheMinimumAndTheMinimumRuns) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = out_of_core_case(flow_case(Flow::channel, Precision::float32), 2, 0);
  c.out_of_core.device_memory_limit = 100000;  // a 14 x 12 plane (pitch 16) takes 16 * 12 * 77 = 14784 bytes
  finalize_case(c);
  std::string message;
  try {
    Simulation::create(c);
  } catch (const InputError& e) {
    message = e.what();
  }
  ASSERT_NE(message, "") << "a 100000-byte budget was accepted";
  EXPECT_NE(message.find("numerics.device_memory_limit"), std::string::npos) << message;
  EXPECT_NE(message.find("too small for even one slab"), std::string::npos) << message;
  // The minimum it names: slabs of one plane, each buffer 1 + 2 (k + 1) = 7 planes, and a carry of 2 (k + 1) = 6.
  const std::int64_t minimum = (2 * 7 + 6) * 16 * 12 * 77;
  EXPECT_NE(message.find("(" + std::to_string(minimum) + " bytes)"), std::string::npos) << message;
  // That budget runs, with the most slabs it allows, and one byte less does not.
  c.out_of_core.device_memory_limit = minimum;
  auto out = Simulation::create(c);
  OutOfCoreStats stats;
  out->out_of_core(stats);
  EXPECT_LE(stats.device_bytes, minimum);
  EXPECT_EQ(stats.slabs, 35);
  const CaseConfig base = in_core_case(Flow::channel, Precision::float32);
  auto in_core = Simulation::create(base);
  in_core->advance(5);
  out->advance(5);
  expect_identical(*in_core, *out, "at the minimum budget");
  c.out_of_core.device_memory_limit = minimum - 1;
  EXPECT_THROW(Simulation::create(c), InputError);
}

TEST(OutOfCoreSlabs, ThinnerThanTheHaloEqualInCore) {
  // One plane per slab with a halo of 5: each slab's lower halo reaches back over 5 slabs already written back,
  // which the carry covers.
  EDDY_REQUIRE_DEVICE();
  for (const Flow flow : {Flow::cavity, Flow::taylor_green}) {
    const CaseConfig base = in_core_case(flow, Precision::float16);
    CaseConfig ooc = out_of_core_case(flow_case(flow, Precision::float16), 4, 35);
    finalize_case(ooc);
    auto in_core = Simulation::create(base);
    auto out = Simulation::create(ooc);
    in_core->advance(9);
    out->advance(9);
    expect_identical(*in_core, *out, std::string("slabs of one plane, ") + flow_name(flow));
  }
}

TEST(OutOfCoreSlabs, PeriodicBlocksThinnerThanTheHaloWrapIt) {
  // nz = 1 (a 2D case) and 2 with halos of 2 to 5 planes: the halo holds the block's periodic images several times
  // over, and the halo cells draw the rounding bits of the cells they copy (fp16).
  EDDY_REQUIRE_DEVICE();
  for (const int nz : {1, 2}) {
    for (const int k : {1, 4}) {
      CaseConfig base = flow_case(Flow::channel, Precision::float16);
      base.size[2] = nz;
      CaseConfig ooc = out_of_core_case(base, k, 1);
      base.out_of_core.mode = OutOfCoreMode::off;
      finalize_case(base);
      finalize_case(ooc);
      auto in_core = Simulation::create(base);
      auto out = Simulation::create(ooc);
      in_core->advance(9);
      out->advance(9);
      expect_identical(*in_core, *out, "nz = " + std::to_string(nz) + ", time_block " + std::to_string(k));
    }
  }
}

TEST(OutOfCoreOutput, DerivedFieldsEqualInCore) {
  // Vorticity, Q and |S| from the slabs' velocity with one plane beyond each slab: the same values as in core,
  // across slab ends, walls and periodic faces, in both layouts (after 8 and 9 steps).
  EDDY_REQUIRE_DEVICE();
  for (const Flow flow : {Flow::cavity, Flow::channel, Flow::taylor_green}) {
    for (const Precision precision : {Precision::float32, Precision::float16}) {
      auto in_core = Simulation::create(in_core_case(flow, precision));
      CaseConfig ooc = out_of_core_case(flow_case(flow, precision), 2, 7);
      finalize_case(ooc);
      auto out = Simulation::create(ooc);
      for (const int steps : {8, 1}) {
        in_core->advance(steps);
        out->advance(steps);
        for (const char* name : {"vorticity", "q_criterion", "strain_rate"}) {
          const std::vector<double> a = in_core->derived_field(name), b = out->derived_field(name);
          EXPECT_TRUE(a == b) << flow_name(flow) << ", " << name << ", step " << in_core->time_step();
          double largest = 0.0;
          for (double v : a) largest = std::max(largest, std::abs(v));
          // A plane shear flow has Q = 0 (rotation and strain balance): the channel's Q is round-off.
          if (flow == Flow::channel && std::string(name) == "q_criterion") continue;
          EXPECT_GT(largest, 1e-6) << flow_name(flow) << ", " << name << ": a field of zeros proves nothing";
        }
      }
    }
  }
}

// Next to a body, a cell of a slab's end plane takes a one-sided difference that reaches two planes beyond it, and
// a cell next to a periodic face one two cells past the face: the slabs' velocity carries the planes two beyond its
// own (readout_z_planes) and the outer layer along x and y (solver/outer_layer.hpp), so the values are those of the
// in-core run. Two spheres, one cut by slab ends, one by all three periodic faces; slabs of 1, 5 and 7 planes; both
// layouts. (Before, the slab ends read a velocity plane that was never computed there.)
TEST(OutOfCoreOutput, DerivedFieldsNextToBodiesEqualInCore) {
  EDDY_REQUIRE_DEVICE();
  for (const Precision precision : {Precision::float32, Precision::float16, Precision::float64}) {
    CaseConfig base = flow_case(Flow::taylor_green, precision);
    base.solids = {test::halfway_ball({6.0, 5.0, 15.0}, 3.6), test::halfway_ball({0.5, 9.5, 34.0}, 2.6)};
    base.solids[1].name = "corner ball";
    CaseConfig in = base;
    in.out_of_core.mode = OutOfCoreMode::off;
    finalize_case(in);
    auto in_core = Simulation::create(in);
    std::vector<std::unique_ptr<Simulation>> out;
    for (const auto [k, slabs] : {std::pair<int, int>{1, 35}, {2, 7}, {3, 5}}) {
      CaseConfig c = out_of_core_case(base, k, slabs);
      finalize_case(c);
      out.push_back(Simulation::create(c));
    }
    for (const int steps : {0, 8, 1}) {
      in_core->advance(steps);
      for (auto& o : out) o->advance(steps);
      for (const std::string name : {"vorticity", "q_criterion", "strain_rate"}) {
        const std::vector<double> a = in_core->derived_field(name);
        for (auto& o : out) {
          OutOfCoreStats stats;
          o->out_of_core(stats);
          EXPECT_TRUE(a == o->derived_field(name)) << name << ", precision " << int(precision) << ", step "
                                                   << in_core->time_step() << ", " << stats.slabs << " slabs";
        }
      }
    }
  }
}

TEST(OutOfCoreBudget, DefaultsFromTheBudgetStayWithinIt) {
  EDDY_REQUIRE_DEVICE();
  for (const std::int64_t budget : {std::int64_t(300000), std::int64_t(1000000), std::int64_t(1) << 30}) {
    CaseConfig c = out_of_core_case(flow_case(Flow::taylor_green, Precision::float16), 0, 0);
    c.out_of_core.device_memory_limit = budget;
    finalize_case(c);
    auto out = Simulation::create(c);
    OutOfCoreStats stats;
    out->out_of_core(stats);
    EXPECT_LE(stats.device_bytes, budget) << budget;
    EXPECT_GE(stats.time_block, 1);
    EXPECT_GE(stats.slabs, 1);
    const CaseConfig base = in_core_case(Flow::taylor_green, Precision::float16);
    auto in_core = Simulation::create(base);
    in_core->advance(7);
    out->advance(7);
    expect_identical(*in_core, *out, "defaults for budget " + std::to_string(budget));
  }
}

TEST(OutOfCoreRestart, StatesMoveBetweenInCoreAndOutOfCoreRuns) {
  EDDY_REQUIRE_DEVICE();
  const CaseConfig base = in_core_case(Flow::cavity, Precision::float16);
  CaseConfig ooc = out_of_core_case(flow_case(Flow::cavity, Precision::float16), 2, 3);
  finalize_case(ooc);
  auto reference = Simulation::create(base);
  reference->advance(5);  // odd: the "swapped" layout
  const RawState at5 = reference->raw_state();
  reference->advance(6);
  auto out = Simulation::create(ooc);
  out->set_raw_state(at5);
  out->advance(6);
  expect_identical(*reference, *out, "in-core state continued out of core");
  auto back = Simulation::create(base);
  back->set_raw_state(out->raw_state());
  back->advance(4);
  reference->advance(4);
  expect_identical(*reference, *back, "out-of-core state continued in core");
}

// ---- Heat transport out of core ------------------------------------------------------------------------------

enum class Heat { cavity, rayleigh_benard, periodic_box };

const char* heat_name(Heat h) {
  return h == Heat::cavity ? "heated_cavity" : h == Heat::rayleigh_benard ? "rayleigh_benard" : "periodic_box";
}

/// The thermal cases, 35 z-planes (as flow_case), not finalized:
///   cavity:          cases/heated_cavity_2d.toml (hot x_min, cold x_max, adiabatic walls, Ra 1e5) turned into the
///                    x-z plane (one periodic cell in y, gravity -z), so that the slabs cut the 2D cavity;
///   rayleigh_benard: cases/rayleigh_benard_3d.toml (hot bottom z_min, cold top z_max, periodic x and y, Ra 1e4,
///                    a hashed initial perturbation) on 12 x 10 x 35;
///   periodic_box:    hot x_min, cold x_max, gravity -y, periodic z (T crosses the periodic z face in the halos).
/// `more`: further --set overrides.
CaseConfig heat_case(Heat heat, Precision precision, const std::vector<std::string>& more = {}) {
  const std::string cases = std::string(EDDY_SOURCE_DIR) + "/cases/";
  std::vector<std::string> sets;
  std::string file = "heated_cavity_2d.toml";
  if (heat == Heat::cavity) {
    sets = {"domain.size=[16,1,35]", "domain.periodic=[false,true,false]", "thermal.gravity=[0.0,0.0,-1.0]",
            "physics.length=35"};
  } else if (heat == Heat::rayleigh_benard) {
    file = "rayleigh_benard_3d.toml";
    sets = {"domain.size=[12,10,35]", "physics.length=35", "thermal.perturbation=0.05"};
  } else {
    sets = {"domain.size=[12,10,35]", "domain.periodic=[false,false,true]", "physics.length=12", "thermal.rayleigh=1e4",
            "thermal.perturbation=0.05"};
  }
  sets.insert(sets.end(), more.begin(), more.end());
  CaseConfig c = load_case(cases + file, sets);
  c.write_vtk = false;
  c.precision = precision;
  return c;
}

/// Asserts bitwise equality of two thermal runs: expect_identical, the vorticity (from the velocity with the
/// buoyancy's F/2), and T, its range and total, the heat through each face.
void expect_identical_heat(Simulation& in_core, Simulation& out_of_core, const std::string& what) {
  expect_identical(in_core, out_of_core, what);
  EXPECT_TRUE(in_core.derived_field("vorticity") == out_of_core.derived_field("vorticity")) << what << ": vorticity";
  EXPECT_TRUE(in_core.temperature() == out_of_core.temperature()) << what << ": temperature differs";
  EXPECT_EQ(in_core.face_heat_inflow(), out_of_core.face_heat_inflow()) << what << ": wall heat flux differs";
  const ThermalDiagnostics a = in_core.thermal_diagnostics(), b = out_of_core.thermal_diagnostics();
  EXPECT_EQ(a.total, b.total) << what;
  EXPECT_EQ(a.min, b.min) << what;
  EXPECT_EQ(a.max, b.max) << what;
}

/// The largest |T - T(t = 0)| over the cells: a test whose T has not moved proves nothing.
double temperature_change(Simulation& sim, const std::vector<double>& initial) {
  const std::vector<double> t = sim.temperature();
  double change = 0.0;
  for (std::size_t k = 0; k < t.size(); ++k) change = std::max(change, std::abs(t[k] - initial[k]));
  return change;
}

/// Runs `heat` in core and out of core with time_block k and `slabs` for 8 and then 3 more steps, comparing both.
void expect_heat_equal(CaseConfig base, int k, int slabs, const std::string& what) {
  CaseConfig in = base;
  in.out_of_core.mode = OutOfCoreMode::off;
  CaseConfig ooc = out_of_core_case(base, k, slabs);
  finalize_case(in);
  finalize_case(ooc);
  auto in_core = Simulation::create(in);
  auto out = Simulation::create(ooc);
  OutOfCoreStats stats;
  ASSERT_TRUE(out->out_of_core(stats)) << what;
  EXPECT_EQ(stats.time_block, k) << what;
  EXPECT_EQ(stats.slabs, slabs) << what;
  const std::vector<double> initial = in_core->temperature();
  expect_identical_heat(*in_core, *out, what + ", initial state");
  in_core->advance(8);
  out->advance(8);
  expect_identical_heat(*in_core, *out, what + ", after 8 steps");
  in_core->advance(3);
  out->advance(3);
  expect_identical_heat(*in_core, *out, what + ", after 11 steps");
  EXPECT_GT(out->diagnose().max_speed, 1e-5) << what << ": buoyancy should have set the fluid in motion";
  EXPECT_GT(temperature_change(*out, initial), 1e-3) << what << ": T should have moved";
}

using HeatParams = std::tuple<Heat, Precision, int, int>;  // case, storage, time_block, slabs

class OutOfCoreThermal : public ::testing::TestWithParam<HeatParams> {};

TEST_P(OutOfCoreThermal, EqualsInCoreBitwise) {
  EDDY_REQUIRE_DEVICE();
  const auto [heat, precision, k, slabs] = GetParam();
  CaseConfig c = heat_case(heat, precision);
  finalize_case(c);
  ASSERT_EQ(c.thermal.substeps, 1);  // two sub-steps: OutOfCoreThermalSubsteps
  expect_heat_equal(heat_case(heat, precision), k, slabs,
                    std::string(heat_name(heat)) + ", k " + std::to_string(k) + ", " + std::to_string(slabs) +
                        " slabs, storage " + std::to_string(int(precision)));
}

INSTANTIATE_TEST_SUITE_P(KAndSlabs, OutOfCoreThermal,
                         ::testing::Combine(::testing::Values(Heat::cavity, Heat::rayleigh_benard, Heat::periodic_box),
                                            ::testing::Values(Precision::float32, Precision::float16,
                                                              Precision::float64),
                                            ::testing::Values(1, 2, 4), ::testing::Values(2, 7)),
                         [](const ::testing::TestParamInfo<HeatParams>& info) {
                           const Precision p = std::get<1>(info.param);
                           return std::string(heat_name(std::get<0>(info.param))) + "_" +
                                  (p == Precision::float16   ? "fp16"
                                   : p == Precision::float64 ? "double"
                                                             : "float") +
                                  "_k" + std::to_string(std::get<2>(info.param)) + "_slabs" +
                                  std::to_string(std::get<3>(info.param));
                         });

// Two sub-steps per step move T two planes per step: the halo is k S + 1 planes (solver/slab_plan.hpp), which the
// slab buffers show, and the runs stay bitwise.
TEST(OutOfCoreThermalSubsteps, TwoSubstepsEqualInCoreBitwise) {
  EDDY_REQUIRE_DEVICE();
  for (const Heat heat : {Heat::rayleigh_benard, Heat::periodic_box}) {
    // kappa = U L / sqrt(Pr Ra) above 1/8: the diffusion limit asks for two sub-steps.
    const std::vector<std::string> sets =
        heat == Heat::rayleigh_benard ? std::vector<std::string>{"thermal.prandtl=0.02"}
                                      : std::vector<std::string>{"thermal.prandtl=0.05", "thermal.rayleigh=1e3"};
    CaseConfig base = heat_case(heat, Precision::float16, sets);
    CaseConfig check = base;
    finalize_case(check);
    ASSERT_EQ(check.thermal.substeps, 2) << heat_name(heat);
    for (const auto [k, slabs] : {std::pair<int, int>{1, 7}, {3, 3}}) {
      expect_heat_equal(base, k, slabs,
                        std::string(heat_name(heat)) + " with 2 sub-steps, k " + std::to_string(k) + ", " +
                            std::to_string(slabs) + " slabs");
      CaseConfig ooc = out_of_core_case(base, k, slabs);
      finalize_case(ooc);
      OutOfCoreStats stats;
      Simulation::create(ooc)->out_of_core(stats);
      // 35 planes in 3 or 7 slabs: a middle slab is the largest, 35 / slabs (rounded up) own planes and a halo of
      // k S + 1 planes on each side.
      const int own = (35 + slabs - 1) / slabs, halo = 2 * k + 1;
      EXPECT_EQ(stats.buffer_planes, own + 2 * halo) << heat_name(heat) << ", k " << k;
    }
  }
}

// The heated cavity as the case file has it: 2D, one periodic cell in z; the halo wraps the block several times.
TEST(OutOfCoreThermal, TwoDimensionalCavityWrapsItsHalo) {
  EDDY_REQUIRE_DEVICE();
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    for (const int k : {1, 4}) {
      CaseConfig c = load_case(std::string(EDDY_SOURCE_DIR) + "/cases/heated_cavity_2d.toml",
                               {"domain.size=[20,20,1]", "physics.length=20"});
      c.write_vtk = false;
      c.precision = precision;
      expect_heat_equal(c, k, 1, "2D cavity, k " + std::to_string(k) + ", storage " + std::to_string(int(precision)));
    }
  }
}

// A solid body in a heated box, periodic on every axis (no wall temperatures, which solids do not take): the scalar
// step carries T unchanged in the solid cells, so the T field out of core, whose slab buffers start the second T
// field with whatever they held, equals in core there too (it held 0 in every solid cell before).
TEST(OutOfCoreThermal, SolidBodyKeepsItsTemperature) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = load_case(std::string(EDDY_SOURCE_DIR) + "/cases/heated_cavity_2d.toml",
                           {"domain.size=[16,12,30]", "domain.periodic=[true,true,true]", "physics.length=12",
                            "thermal.rayleigh=1e3", "thermal.perturbation=0.3", "thermal.temperature_difference=1.0"});
  c.write_vtk = false;
  c.solids.push_back(test::halfway_ball({8.0, 6.0, 14.5}, 4.6));
  for (const auto [k, slabs] : {std::pair<int, int>{1, 1}, {3, 3}}) {
    expect_heat_equal(c, k, slabs,
                      "sphere in a heated box, k " + std::to_string(k) + ", " + std::to_string(slabs) + " slabs");
  }
}

// The memory plan counts T: the budget that holds the fluid-only minimum is too small with [thermal]; the message
// names the minimum with T (5 values of 4 bytes more per cell), and that minimum runs.
TEST(OutOfCoreThermal, BudgetCountsTheTemperature) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig c = out_of_core_case(heat_case(Heat::periodic_box, Precision::float32), 2, 0);
  // A 12 x 10 plane (pitch 16) takes 16 * 12 * 77 = 14784 bytes for the fluid, 16 * 12 * 97 = 18624 with T;
  // slabs of one plane: buffers of 1 + 2 (k + 1) = 7 planes and a carry of 6.
  const std::int64_t fluid_minimum = (2 * 7 + 6) * 16 * 12 * 77, minimum = (2 * 7 + 6) * 16 * 12 * 97;
  c.out_of_core.device_memory_limit = fluid_minimum;
  finalize_case(c);
  std::string message;
  try {
    Simulation::create(c);
  } catch (const InputError& e) {
    message = e.what();
  }
  ASSERT_NE(message, "") << "the fluid-only minimum was accepted with [thermal]";
  EXPECT_NE(message.find("too small for even one slab"), std::string::npos) << message;
  EXPECT_NE(message.find("(" + std::to_string(minimum) + " bytes)"), std::string::npos) << message;
  EXPECT_NE(message.find("for T and u"), std::string::npos) << message;
  c.out_of_core.device_memory_limit = minimum;
  auto out = Simulation::create(c);
  OutOfCoreStats stats;
  out->out_of_core(stats);
  EXPECT_LE(stats.device_bytes, minimum);
  EXPECT_EQ(stats.slabs, 35);
  CaseConfig in = heat_case(Heat::periodic_box, Precision::float32);
  in.out_of_core.mode = OutOfCoreMode::off;
  finalize_case(in);
  auto in_core = Simulation::create(in);
  in_core->advance(5);
  out->advance(5);
  expect_identical_heat(*in_core, *out, "at the minimum budget with T");
  c.out_of_core.device_memory_limit = minimum - 1;
  EXPECT_THROW(Simulation::create(c), InputError);
}

// Checkpoints carry T (Simulation::raw_state): states move between in-core and out-of-core runs bit for bit.
TEST(OutOfCoreThermal, RestartsCarryTheTemperature) {
  EDDY_REQUIRE_DEVICE();
  for (const Precision precision : {Precision::float32, Precision::float16}) {
    CaseConfig in = heat_case(Heat::rayleigh_benard, precision);
    in.out_of_core.mode = OutOfCoreMode::off;
    finalize_case(in);
    CaseConfig ooc = out_of_core_case(heat_case(Heat::rayleigh_benard, precision), 2, 3);
    finalize_case(ooc);
    auto reference = Simulation::create(in);
    reference->advance(5);  // odd: the "swapped" layout
    const RawState at5 = reference->raw_state();
    ASSERT_FALSE(at5.temperature.empty());
    reference->advance(6);
    auto out = Simulation::create(ooc);
    out->set_raw_state(at5);
    out->advance(6);
    expect_identical_heat(*reference, *out, "in-core state continued out of core");
    auto again = Simulation::create(ooc);  // out of core to out of core
    again->set_raw_state(out->raw_state());
    auto back = Simulation::create(in);
    back->set_raw_state(out->raw_state());
    back->advance(4);
    again->advance(4);
    reference->advance(4);
    expect_identical_heat(*reference, *back, "out-of-core state continued in core");
    expect_identical_heat(*reference, *again, "out-of-core state continued out of core");
  }
}

// Particles couple to the whole block at every step: out of core refuses them with that reason (a case built in
// code that skipped the reader's check), and "auto" keeps a particle case in core whatever the budget.
TEST(OutOfCoreParticles, RefusedWithTheReasonAndAutoStaysInCore) {
  EDDY_REQUIRE_DEVICE();
  CaseConfig base = flow_case(Flow::cavity, Precision::float32);
  base.particles.enabled = true;
  base.particles.count = 20;
  base.particles.diameter = 0.5;
  CaseConfig automatic = out_of_core_case(base, 0, 0);
  automatic.out_of_core.mode = OutOfCoreMode::automatic;
  automatic.out_of_core.device_memory_limit = 1000;  // far below the block: "auto" would go out of core
  finalize_case(automatic);
  OutOfCoreStats stats;
  EXPECT_FALSE(Simulation::create(automatic)->out_of_core(stats));
  CaseConfig on = automatic;
  on.out_of_core.mode = OutOfCoreMode::on;  // past the reader's check (tests/unit/test_case_config.cpp)
  std::string message;
  try {
    Simulation::create(on);
  } catch (const InputError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("[particles] is not supported out of core"), std::string::npos) << message;
  EXPECT_NE(message.find("whole block at every step"), std::string::npos) << message;
}

}  // namespace
}  // namespace eddy
