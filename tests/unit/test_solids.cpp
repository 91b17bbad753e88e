// Unit tests for [[solid]] (io/case/solids.cpp, solver/solid_shapes.hpp, the solid flags of build_flags): every bad
// input gives one message naming its key (exit status 2 through InputError), metres under [units] become cells,
// the shapes cover the cells they should (a sphere against its volume and a brute-force count written here, a
// cylinder across a 2D domain the same cells in every plane), and the flags of a block are decided by global
// position, ghost cells included; the wall distances q of the cut links (interpolated walls) against values worked
// out by hand, and each block's cut links against the one-rank list.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "kernels/d3q19.hpp"
#include "solver/decomposition.hpp"
#include "solver/errors.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/solid_shapes.hpp"

namespace eddy {
namespace {

/// A channel 32 x 16 x 8, periodic in x and z, walls in y, and `solids` (TOML text) after it.
std::string channel_with(const std::string& solids, const std::string& extra = "") {
  return "[domain]\nsize = [32, 16, 8]\nperiodic = [true, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "[run]\nsteps = 1\n" +
         extra + solids;
}

const std::string kSphere = "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [8, 8, 4]\nradius = 3\n";

/// The InputError message of parsing `text` ("<no InputError thrown>" if none), and its exit code.
struct Failure {
  std::string message;
  int code = 0;
};
Failure failure_of(const std::string& text) {
  try {
    parse_case(text, "solid.toml");
  } catch (const CaseFileError& e) {
    return {e.what(), kExitCaseFileError};
  } catch (const InputError& e) {
    return {e.what(), kExitInputError};  // how solver/main.cpp ends the run
  }
  return {"<no InputError thrown>", 0};
}

#define EXPECT_SOLID_ERROR(text, fragment)                             \
  do {                                                                 \
    const Failure f_ = failure_of(text);                               \
    EXPECT_EQ(f_.code, 2) << f_.message;                               \
    EXPECT_EQ(f_.message.rfind("solid.toml: ", 0), 0u) << f_.message;  \
    EXPECT_EQ(f_.message.find('\n'), std::string::npos) << f_.message; \
    EXPECT_NE(f_.message.find(fragment), std::string::npos)            \
        << "\"" << f_.message << "\" lacks \"" << fragment << "\"";    \
  } while (0)

TEST(SolidReader, ReadsEveryShape) {
  const CaseConfig c = parse_case(
      channel_with(kSphere +
                   "[[solid]]\nname = \"post\"\nshape = \"cylinder\"\nstart = [20, 8, 0]\nend = [20, 8, 8]\n"
                   "radius = 2.5\n[[solid]]\nname = \"step\"\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [4, 2, 8]\n"),
      "solid.toml");
  ASSERT_EQ(c.solids.size(), 3u);
  EXPECT_EQ(c.solids[0].name, "ball");
  EXPECT_EQ(c.solids[0].shape, SolidShape::sphere);
  EXPECT_EQ(c.solids[0].center, (std::array<double, 3>{8, 8, 4}));
  EXPECT_EQ(c.solids[0].radius, 3.0);
  EXPECT_EQ(c.solids[1].shape, SolidShape::cylinder);
  EXPECT_EQ(c.solids[1].start, (std::array<double, 3>{20, 8, 0}));
  EXPECT_EQ(c.solids[1].end, (std::array<double, 3>{20, 8, 8}));
  EXPECT_EQ(c.solids[1].radius, 2.5);
  EXPECT_EQ(c.solids[2].shape, SolidShape::box);
  EXPECT_EQ(c.solids[2].min, (std::array<double, 3>{0, 0, 0}));
  EXPECT_EQ(c.solids[2].max, (std::array<double, 3>{4, 2, 8}));
  for (const SolidConfig& s : c.solids) EXPECT_FALSE(s.in_metres);
  EXPECT_TRUE(parse_case(channel_with(""), "solid.toml").solids.empty());
}

TEST(SolidReader, BadInputsNameTheirKeyAndExitWithTwo) {
  const std::string head = "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\n";
  // Unknown keys, keys of another shape, missing keys.
  EXPECT_SOLID_ERROR(channel_with(kSphere + "colour = 1\n"), "unknown key 'solid[0].colour'");
  EXPECT_SOLID_ERROR(channel_with(kSphere + "radis = 1\n"), "unknown key 'solid[0].radis' (did you mean 'radius'?)");
  EXPECT_SOLID_ERROR(channel_with(kSphere + "min = [0, 0, 0]\n"),
                     "solid[0].min is not used by shape = \"sphere\" (its keys: center, radius)");
  EXPECT_SOLID_ERROR(channel_with(head + "radius = 3\n"), "missing key 'solid[0].center'");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nshape = \"sphere\"\ncenter = [1, 1, 1]\nradius = 1\n"),
                     "missing required key 'solid[0].name'");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"x\"\ncenter = [1, 1, 1]\nradius = 1\n"),
                     "missing required key 'solid[0].shape'");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"x\"\nshape = \"cube\"\n"),
                     "solid[0].shape = \"cube\" is not allowed");
  // Wrong types; [solid] written as a plain table.
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1]\nradius = 1\n"),
                     "solid[0].center = [1, 1] has the wrong type");
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1, 1]\nradius = \"big\"\n"),
                     "solid[0].radius = \"big\" has the wrong type");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = 3\n"), "solid[0].name = 3 has the wrong type");
  EXPECT_SOLID_ERROR(channel_with("[solid]\nname = \"ball\"\n"), "expected an array of tables, one [[solid]]");
  EXPECT_SOLID_ERROR("solid = 1\n" + channel_with(""), "solid = 1 has the wrong type");
  // Non-finite and non-positive radii.
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1, 1]\nradius = nan\n"),
                     "solid[0].radius = nan is not a finite number");
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1, 1]\nradius = inf\n"),
                     "solid[0].radius = inf is not a finite number");
  EXPECT_SOLID_ERROR(channel_with(head + "center = [inf, 1, 1]\nradius = 1\n"),
                     "solid[0].center = [inf, 1, 1] is not an array of finite numbers");
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1, 1]\nradius = 0\n"),
                     "solid[0].radius = 0 is out of range: radius must be > 0 (cells)");
  EXPECT_SOLID_ERROR(channel_with(head + "center = [1, 1, 1]\nradius = -2\n"),
                     "solid[0].radius = -2 is out of range: radius must be > 0 (cells)");
  // An empty box, a cylinder without an axis.
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"b\"\nshape = \"box\"\nmin = [0, 4, 0]\nmax = [4, 4, 8]\n"),
                     "give an empty box: min < max is needed on every axis (the y axis is not)");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"b\"\nshape = \"box\"\nmin = [0, 0, 9]\nmax = [4, 4, 8]\n"),
                     "(the z axis is not)");
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"c\"\nshape = \"cylinder\"\nstart = [1, 2, 3]\n"
                                  "end = [1, 2, 3]\nradius = 1\n"),
                     "give a cylinder axis of zero length: start and end must differ");
  // Names: empty, repeated (the second is named).
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"\"\nshape = \"sphere\"\ncenter = [1, 1, 1]\nradius = 1\n"),
                     "solid[0].name = \"\" is not allowed");
  EXPECT_SOLID_ERROR(channel_with(kSphere + kSphere),
                     "solid[1].name = \"ball\" is used by an earlier solid: each [[solid]] needs a name of its own");
  // No fluid left; solids with what does not see them yet.
  EXPECT_SOLID_ERROR(channel_with("[[solid]]\nname = \"all\"\nshape = \"box\"\nmin = [-1, -1, -1]\n"
                                  "max = [40, 40, 40]\n"),
                     "the solids cover every cell of the domain (domain.size = [32, 16, 8]): no fluid cell is left");
  EXPECT_SOLID_ERROR(channel_with(kSphere, "[particles]\ncount = 4\n"), "[[solid]] with [particles] is not supported");
  EXPECT_SOLID_ERROR(channel_with(kSphere, "[boundary.y_min]\ntemperature = 1.0\n[thermal]\nprandtl = 0.7\n"),
                     "[[solid]] with a fixed-temperature wall (boundary.y_min.temperature) is not supported");
  // An adiabatic [thermal] run takes solids (they are adiabatic walls).
  EXPECT_EQ(parse_case(channel_with(kSphere, "[thermal]\nprandtl = 0.7\n"), "solid.toml").solids.size(), 1u);
}

TEST(SolidReader, TopLevelKeysAndOverrides) {
  // A solid's key at the top level points at [[solid]]; a key of a plain section too ("name": [case]) keeps its hint.
  EXPECT_SOLID_ERROR("radius = 3\n" + channel_with(""), "(did you mean 'solid.radius' under [[solid]]?)");
  EXPECT_SOLID_ERROR("name = \"x\"\n" + channel_with(""), "(did you mean 'case.name' under [case]?)");
  // --set reaches the whole array only.
  try {
    parse_case(channel_with(kSphere), "solid.toml", {"solid.radius=2"});
    ADD_FAILURE() << "--set solid.radius was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad --set 'solid.radius=2': 'solid' is an array"), std::string::npos)
        << e.what();
  }
  const CaseConfig c = parse_case(channel_with(kSphere), "solid.toml",
                                  {"solid=[{name=\"b\", shape=\"box\", min=[0,0,0], max=[4,4,4]}]"});
  ASSERT_EQ(c.solids.size(), 1u);
  EXPECT_EQ(c.solids[0].name, "b");
}

TEST(SolidReader, TwoBoxesThatTogetherLeaveNoFluidAreRefused) {
  const std::string boxes =
      "[[solid]]\nname = \"lower\"\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [32, 8, 8]\n"
      "[[solid]]\nname = \"upper\"\nshape = \"box\"\nmin = [0, 7.5, 0]\nmax = [32, 16, 8]\n";
  EXPECT_SOLID_ERROR(channel_with(boxes), "no fluid cell is left");
  // One row left free (cells j = 8, centres 8.5): accepted.
  const std::string gap =
      "[[solid]]\nname = \"lower\"\nshape = \"box\"\nmin = [0, 0, 0]\nmax = [32, 8, 8]\n"
      "[[solid]]\nname = \"upper\"\nshape = \"box\"\nmin = [0, 9, 0]\nmax = [32, 16, 8]\n";
  EXPECT_EQ(parse_case(channel_with(gap), "solid.toml").solids.size(), 2u);
}

TEST(SolidShapes, NoFluidOnLargeDomainsFromOneSolid) {
  // Above kSolidScanCells one convex solid holding the eight corner cells holds them all; one that misses a corner
  // leaves fluid.
  const std::array<int, 3> size = {1024, 1024, 128};
  ASSERT_GT(std::int64_t(size[0]) * size[1] * size[2], kSolidScanCells);
  SolidConfig box;
  box.shape = SolidShape::box;
  box.min = {0.0, 0.0, 0.0};
  box.max = {1024.0, 1024.0, 128.0};
  EXPECT_FALSE(solids_leave_fluid({box}, size));
  box.min[1] = 0.6;  // the row j = 0 (centres 0.5) is left out
  EXPECT_TRUE(solids_leave_fluid({box}, size));
  SolidConfig ball;
  ball.shape = SolidShape::sphere;
  ball.center = {512.0, 512.0, 64.0};
  ball.radius = 730.0;  // the corner centres are sqrt(511.5^2 * 2 + 63.5^2) = 726.2 away
  EXPECT_FALSE(solids_leave_fluid({ball}, size));
  ball.radius = 726.0;
  EXPECT_TRUE(solids_leave_fluid({ball}, size));
}

TEST(SolidReader, StructChecksGiveTheSameRules) {
  CaseConfig c = parse_case(channel_with(kSphere), "solid.toml");
  c.solids[0].radius = -1.0;
  try {
    finalize_case(c);
    FAIL() << "a negative radius was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("solid[0].radius = -1 is out of range: radius must be > 0"), std::string::npos)
        << e.what();
  }
  c.solids[0].radius = 3.0;
  finalize_case(c);  // idempotent: a finalized case finalizes again unchanged
  EXPECT_EQ(c.solids[0].center, (std::array<double, 3>{8, 8, 4}));
}

TEST(SolidReader, MetresUnderUnitsBecomeCells) {
  // 0.1 m over 128 cells: dx = 0.1 / 128 m. A sphere at 0.05 m of radius 0.01 m is at 64 cells, radius 12.8.
  const std::string text =
      "[domain]\nsize = [128, 128, 1]\nperiodic = [false, false, true]\n"
      "[units]\nlength = 0.1\nvelocity = 0.01\nviscosity = 1e-6\n[run]\nsteps = 1\n"
      "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.05, 0.025, 0.0004]\nradius = 0.01\n"
      "[[solid]]\nname = \"b\"\nshape = \"box\"\nmin = [0.0, 0.0, 0.0]\nmax = [0.01, 0.02, 0.1]\n";
  const CaseConfig c = parse_case(text, "si.toml");
  const double dx = 0.1 / 128;
  ASSERT_EQ(c.solids.size(), 2u);
  EXPECT_DOUBLE_EQ(c.units.dx, dx);
  EXPECT_NEAR(c.solids[0].center[0], 64.0, 1e-12);
  EXPECT_NEAR(c.solids[0].center[1], 32.0, 1e-12);
  EXPECT_NEAR(c.solids[0].center[2], 0.512, 1e-12);
  EXPECT_NEAR(c.solids[0].radius, 12.8, 1e-12);
  EXPECT_NEAR(c.solids[1].max[0], 12.8, 1e-12);
  EXPECT_NEAR(c.solids[1].max[1], 25.6, 1e-12);
  EXPECT_FALSE(c.solids[0].in_metres);
  // A radius that is 0 in cells after the conversion is impossible (> 0 in m stays > 0); a negative one names m.
  const Failure f = failure_of(
      "[domain]\nsize = [128, 128, 1]\nperiodic = [false, false, true]\n"
      "[units]\nlength = 0.1\nvelocity = 0.01\nviscosity = 1e-6\n[run]\nsteps = 1\n"
      "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.05, 0.025, 0.0]\nradius = -0.01\n");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.message.find("solid[0].radius = -0.01 is out of range: radius must be > 0 (m)"), std::string::npos)
      << f.message;
}

/// Runs the eddy binary on `text` (a case written to a temporary file), stdout and stderr captured.
struct EddyRun {
  int code = -1;
  std::string out, err;
  std::string file;  ///< the output file named by run_eddy's `keep`, "" when absent
};
/// Runs `eddy run` on case `text` in a fresh directory; `keep`: an output file to read back into EddyRun::file.
EddyRun run_eddy(const std::string& text, const std::string& tag, const std::string& keep = "") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("eddy_solids_" + std::to_string(::getpid()) + "_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "case.toml") << text;
  const std::string command = "OMP_NUM_THREADS=1 '" + std::string(EDDY_EXECUTABLE) + "' run '" +
                              (dir / "case.toml").string() + "' --output '" + (dir / "out").string() +
                              "' </dev/null >'" + (dir / "out.txt").string() + "' 2>'" + (dir / "err.txt").string() +
                              "'";
  const int status = std::system(command.c_str());
  EddyRun r;
  r.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const auto read = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  r.out = read(dir / "out.txt");
  r.err = read(dir / "err.txt");
  if (!keep.empty()) r.file = read(dir / "out" / keep);
  fs::remove_all(dir);
  return r;
}

TEST(SolidCommandLine, ABadSolidIsOneErrorLineAndExitTwo) {
  const EddyRun r = run_eddy(channel_with("[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [8, 8, 4]\n"
                                          "radius = -1\n"),
                             "bad");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("eddy: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("solid[0].radius = -1 is out of range"), std::string::npos) << r.err;
}

TEST(SolidCommandLine, ASolidThatCoversNoCellIsAWarning) {
  // A sphere of radius 0.3 round a cell corner holds no cell centre (the nearest are 0.87 away); one outside the
  // domain covers nothing either. The run goes on (exit 0) with one warning line each on stdout.
  const std::string text =
      channel_with(kSphere +
                       "[[solid]]\nname = \"speck\"\nshape = \"sphere\"\ncenter = [20, 8, 4]\nradius = 0.3\n"
                       "[[solid]]\nname = \"away\"\nshape = \"box\"\nmin = [40, 0, 0]\nmax = [50, 4, 4]\n",
                   "[output]\nvtk = false\n");
  const EddyRun r = run_eddy(text, "warn");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\nwarning: solid 'speck' covers no cell"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nwarning: solid 'away' covers no cell"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("warning: solid 'ball'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("solid       'ball' sphere, "), std::string::npos) << r.out;
}

// [[solid]] forces = true (solver/solid_forces.hpp): read as a boolean; the run reports F[name] on every progress
// line and writes one CSV row per sample (every report here: forces.every defaults to at most run.report_every).
// The coefficients, the sampling, restarts and out-of-core runs: tests/unit/test_force_output.cpp.
TEST(SolidForcesKey, ReadAndChecked) {
  EXPECT_FALSE(parse_case(channel_with(kSphere), "solid.toml").solids[0].forces);
  EXPECT_TRUE(parse_case(channel_with(kSphere + "forces = true\n"), "solid.toml").solids[0].forces);
  EXPECT_SOLID_ERROR(channel_with(kSphere + "forces = 1\n"), "solid[0].forces");
}

TEST(SolidForcesKey, ProgressLineAndCsv) {
  const std::string forced = "[domain]\nsize = [32, 16, 8]\nperiodic = [true, false, true]\n[physics]\n"
                             "velocity = 0.05\ntau = 0.8\nbody_force = [1e-4, 0, 0]\n[run]\nsteps = 6\n"
                             "report_every = 2\n[output]\nvtk = false\n" +
                             kSphere + "forces = true\n";
  const EddyRun r = run_eddy(forced, "forces", "case_forces.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("F[ball] = ("), std::string::npos) << r.out;
  EXPECT_EQ(r.file.rfind("step,time,ball_Fx,ball_Fy,ball_Fz,ball_Tx,ball_Ty,ball_Tz,ball_CD,ball_CL\n2,2,", 0), 0u)
      << r.file;
  EXPECT_EQ(std::count(r.file.begin(), r.file.end(), '\n'), 4) << r.file;  // header and steps 2, 4, 6
  const EddyRun none = run_eddy(channel_with(kSphere, "[output]\nvtk = false\n"), "noforces", "case_forces.csv");
  EXPECT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(none.file, "");  // no file without forces = true
  EXPECT_EQ(none.out.find("F[ball]"), std::string::npos);
}

// [[solid]] wall (kernels/boundary_rules.hpp): "interpolated" (the default) or "halfway"; out_of_core = true refuses
// interpolated walls when the case is read, naming the solid's key and the two ways out.
TEST(SolidWallKey, ReadAndChecked) {
  EXPECT_EQ(parse_case(channel_with(kSphere), "solid.toml").solids[0].wall, SolidWall::interpolated);
  EXPECT_EQ(parse_case(channel_with(kSphere + "wall = \"halfway\"\n"), "solid.toml").solids[0].wall,
            SolidWall::halfway);
  EXPECT_EQ(parse_case(channel_with(kSphere + "wall = \"interpolated\"\n"), "solid.toml").solids[0].wall,
            SolidWall::interpolated);
  EXPECT_SOLID_ERROR(channel_with(kSphere + "wall = \"curved\"\n"), "solid[0].wall");
  EXPECT_SOLID_ERROR(channel_with(kSphere + "wall = 1\n"), "solid[0].wall");
  EXPECT_SOLID_ERROR(channel_with(kSphere, "[numerics]\nout_of_core = true\n"),
                     "solid[0].wall = \"interpolated\" (the default without a wall key) is not supported with "
                     "numerics.out_of_core = true");
  EXPECT_EQ(parse_case(channel_with(kSphere + "wall = \"halfway\"\n", "[numerics]\nout_of_core = true\n"), "solid.toml")
                .solids[0]
                .wall,
            SolidWall::halfway);
}

TEST(SolidShippedCase, SphereChannelLoadsWithItsDocumentedValues) {
  const CaseConfig c = load_case(std::string(EDDY_SOURCE_DIR) + "/cases/sphere_channel.toml");
  EXPECT_EQ(c.name, "sphere_channel");
  EXPECT_EQ(c.size, (std::array<int, 3>{48, 24, 24}));
  EXPECT_EQ(c.faces[0].kind, FaceKind::periodic);
  EXPECT_EQ(c.faces[2].kind, FaceKind::wall);
  EXPECT_EQ(c.faces[4].kind, FaceKind::periodic);
  EXPECT_NEAR(c.nu, 0.1, 1e-15);
  ASSERT_EQ(c.solids.size(), 1u);
  EXPECT_EQ(c.solids[0].shape, SolidShape::sphere);
  EXPECT_EQ(c.solids[0].radius, 5.0);
  // cases/README.md: 552 solid cells; u_max of the empty channel F H^2 / (8 nu) = physics.velocity.
  EXPECT_EQ(solid_cell_count(c.solids[0], c.size), 552);
  EXPECT_NEAR(c.body_force[0] * 24.0 * 24.0 / (8.0 * c.nu), c.velocity, 1e-12);
  EXPECT_LE(c.mach(), 0.3);
}

// ---- the shapes ----------------------------------------------------------------------------------------------------

/// Cells of an n^3 grid whose centre is within r of c, counted by a plain loop over every cell (independent of
/// solver/solid_shapes.hpp: no bounding box, the distance through std::hypot).
std::int64_t brute_force_sphere(int n, double cx, double cy, double cz, double r) {
  std::int64_t count = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double d = std::hypot(i + 0.5 - cx, j + 0.5 - cy, k + 0.5 - cz);
        if (d < r - 1e-9) ++count;
        if (std::abs(d - r) <= 1e-9) ADD_FAILURE() << "a cell centre on the surface: pick another centre";
      }
  return count;
}

TEST(SolidShapes, SphereCoversItsVolume) {
  // The staircase sphere's volume (its solid cells) differs from 4/3 pi r^3 by the cells its surface cuts that are
  // counted in or out by their centre: a lattice-point count, whose error is far below the surface's 4 pi r^2 cells
  // (measured here: -0.35 %, +0.91 %, -0.23 %, +0.18 %, +0.09 % at r = 3.3, 6, 8.7, 12, 17.25). Tolerance: 2 %
  // below r = 6, 1 % from there, 0.3 % from r = 12; a sphere one cell too large or too small in radius misses them
  // by 3 / r, i.e. 25 % to 90 %. The cells of the bounding-box scan equal the brute-force count exactly.
  const int n = 48;
  const std::array<int, 3> size = {n, n, n};
  for (double r : {3.3, 6.0, 8.7, 12.0, 17.25}) {
    SolidConfig s;
    s.name = "ball";
    s.shape = SolidShape::sphere;
    s.center = {23.9, 24.2, 24.05};  // off the lattice's symmetry: no cell centre on the surface
    s.radius = r;
    const std::int64_t cells = solid_cell_count(s, size);
    EXPECT_EQ(cells, brute_force_sphere(n, s.center[0], s.center[1], s.center[2], r)) << "r = " << r;
    const double volume = 4.0 / 3.0 * M_PI * r * r * r;
    const double tolerance = r >= 12.0 ? 0.003 : r >= 6.0 ? 0.01 : 0.02;
    EXPECT_NEAR(double(cells) / volume, 1.0, tolerance) << "r = " << r << ": " << cells << " cells, volume " << volume;
  }
}

TEST(SolidShapes, FormulasOnTheirBoundaries) {
  // On the surface counts as inside.
  EXPECT_TRUE(inside_sphere({1.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, 1.0));
  EXPECT_FALSE(inside_sphere({1.5, 0.5, 0.5}, {0.5, 0.5, 0.5}, 0.999));
  EXPECT_TRUE(inside_box({0.0, 2.0, 1.0}, {0.0, 0.0, 0.0}, {1.0, 2.0, 3.0}));
  EXPECT_FALSE(inside_box({0.0, 2.5, 1.0}, {0.0, 0.0, 0.0}, {1.0, 2.0, 3.0}));
  // A cylinder along the diagonal: inside near the axis between the caps, outside beyond a cap or the radius.
  const Point3 a = {0, 0, 0}, b = {4, 4, 4};
  EXPECT_TRUE(inside_cylinder({2, 2, 2}, a, b, 0.1));
  EXPECT_TRUE(inside_cylinder({2.5, 2, 2}, a, b, 0.5));
  EXPECT_FALSE(inside_cylinder({3, 2, 2}, a, b, 0.5));
  EXPECT_FALSE(inside_cylinder({-0.1, -0.1, -0.1}, a, b, 1.0));
  EXPECT_FALSE(inside_cylinder({4.1, 4.1, 4.1}, a, b, 1.0));
  EXPECT_TRUE(inside_cylinder({4, 4, 4}, a, b, 1.0));
}

// ---- wall distances (solver/solid_shapes.hpp, wall_distance) -------------------------------------------------------

SolidConfig shape_of(SolidShape shape) {
  SolidConfig s;
  s.name = "s";
  s.shape = shape;
  return s;
}

TEST(SolidWallDistance, ClosedFormsAgainstValuesByHand) {
  const std::array<int, 3> domain = {16, 16, 16};
  const std::array<bool, 3> walls = {false, false, false};
  // Sphere of radius 1.3 at (5, 5, 5): from (6.5, 5.5, 5.5) along -x, (1.5 - t)^2 + 0.5 = 1.69.
  SolidConfig ball = shape_of(SolidShape::sphere);
  ball.center = {5, 5, 5};
  ball.radius = 1.3;
  EXPECT_NEAR(wall_distance(ball, {6.5, 5.5, 5.5}, {-1, 0, 0}, domain, walls), 1.5 - std::sqrt(1.19), 1e-15);
  // Along the diagonal (-1, -1, 0) from (6.5, 6.5, 5.5): 2 (1.5 - t)^2 + 0.25 = 1.69.
  EXPECT_NEAR(wall_distance(ball, {6.5, 6.5, 5.5}, {-1, -1, 0}, domain, walls), 1.5 - std::sqrt(0.72), 1e-15);
  // A link that passes the sphere by: -1.
  EXPECT_EQ(wall_distance(ball, {8.5, 8.5, 8.5}, {1, 0, 0}, domain, walls), -1.0);
  // Cylinder along z through (5, 5), radius 1.3: from (6.5, 5.5, 3.5) along (-1, 0, 1) the radial distance alone
  // counts, (1.5 - t)^2 + 0.25 = 1.69, t = 0.3.
  SolidConfig post = shape_of(SolidShape::cylinder);
  post.start = {5, 5, 0};
  post.end = {5, 5, 10};
  post.radius = 1.3;
  EXPECT_NEAR(wall_distance(post, {6.5, 5.5, 3.5}, {-1, 0, 1}, domain, walls), 0.3, 1e-15);
  // Its end cap at z = 10: from (5.5, 5.5, 10.5) along -z the cap is half a cell away (radially inside).
  EXPECT_EQ(wall_distance(post, {5.5, 5.5, 10.5}, {0, 0, -1}, domain, walls), 0.5);
  // Box: the slabs; a face at x = 4 from the node at 4.5 is exactly half-way, one at y = 2.25 from 1.5 at 3/4, and
  // along (1, 1, 0) from (0.5, 1.5, 1.5) the later of the x (1/2) and y (3/4) entries.
  SolidConfig box = shape_of(SolidShape::box);
  box.min = {1, 2.25, 0};
  box.max = {4, 7.6, 3};
  EXPECT_EQ(wall_distance(box, {4.5, 5.5, 1.5}, {-1, 0, 0}, domain, walls), 0.5);
  EXPECT_EQ(wall_distance(box, {2.5, 1.5, 1.5}, {0, 1, 0}, domain, walls), 0.75);
  EXPECT_EQ(wall_distance(box, {0.5, 1.5, 1.5}, {1, 1, 0}, domain, walls), 0.75);
  EXPECT_NEAR(wall_distance(box, {2.5, 8.5, 1.5}, {0, -1, 1}, domain, walls), 0.9, 1e-15);
}

TEST(SolidWallDistance, PeriodicImagesAndCutFaces) {
  const std::array<int, 3> domain = {8, 8, 8};
  // A box over the whole periodic x extent is a slab without end: a diagonal link across the periodic face meets
  // its y face at 0.2 (its image from (-0.5, 1.5) along (1, -1)); without the periodic axis the domain ends at x = 0
  // and the link enters the solid there, half-way.
  SolidConfig slab = shape_of(SolidShape::box);
  slab.min = {0, 0, 0};
  slab.max = {8, 1.3, 8};
  EXPECT_NEAR(wall_distance(slab, {-0.5, 1.5, 1.5}, {1, -1, 0}, domain, {true, false, false}), 0.2, 1e-15);
  EXPECT_EQ(wall_distance(slab, {-0.5, 1.5, 1.5}, {1, -1, 0}, domain, {false, false, false}), 0.5);
  // A sphere cut by the periodic x face (not repeated across it): seen from the far side's node, its wall is the
  // face, half-way.
  SolidConfig ball = shape_of(SolidShape::sphere);
  ball.center = {0.7, 4, 4};
  ball.radius = 2.1;
  EXPECT_EQ(wall_distance(ball, {-0.5, 4.5, 4.5}, {1, 0, 0}, domain, {true, true, true}), 0.5);
}

/// Link (global cell, direction) -> q.
using LinkMap = std::map<std::pair<std::array<int, 3>, int>, double>;

LinkMap global_links(const CaseConfig& c, const Decomposition& d, std::int64_t* ghost_second_nodes = nullptr) {
  const BlockShape shape = block_shape(d);
  const CutLinkList list = cut_links(c, d, build_flags(c, d));
  LinkMap map;
  for (std::int64_t k = 0; k < std::int64_t(list.links.size()); ++k) {
    const CutLink& l = list.links[std::size_t(k)];
    EXPECT_EQ(shape.index(l.x, l.y, l.z), l.cell);
    EXPECT_EQ(l.behind, l.cell - shape.offset(d3q19::c(l.dir, 0), d3q19::c(l.dir, 1), d3q19::c(l.dir, 2)));
    const int b[3] = {l.x - d3q19::c(l.dir, 0), l.y - d3q19::c(l.dir, 1), l.z - d3q19::c(l.dir, 2)};
    const bool ghost = b[0] < 1 || b[1] < 1 || b[2] < 1 || b[0] > shape.n[0] || b[1] > shape.n[1] || b[2] > shape.n[2];
    // The three groups: interior second node, ghost second node, half-way.
    if (k < list.interior_interpolated) EXPECT_FALSE(ghost) << k;
    if (k >= list.interior_interpolated && k < list.interpolated) EXPECT_TRUE(ghost) << k;
    if (k < list.interpolated) {
      EXPECT_NE(l.q, 0.5);
      EXPECT_EQ(l.near, l.q < 0.5 ? 1 : 0);
    }
    if (ghost && k < list.interpolated && ghost_second_nodes) ++*ghost_second_nodes;
    const std::array<int, 3> g = {d.offset[0] + l.x - 1, d.offset[1] + l.y - 1, d.offset[2] + l.z - 1};
    // Interpolated links carry their q; half-way ones 1/2, or their q when the second node is solid.
    map[{g, l.dir}] = k < list.interpolated ? l.q : -l.q;
  }
  return map;
}

TEST(CutLinks, BlocksListTheOneRankLinksWithTheSameWallDistances) {
  // A sphere and a cylinder cut by every rank boundary of a 2 x 2 x 2 split, one cut by the periodic x face: the
  // blocks' links together are the one-rank links, each with the same q (bits) and the same kind; links whose
  // second node is a ghost cell are in their own group (and exist).
  CaseConfig c;
  c.name = "links";
  c.size = {16, 14, 12};
  for (auto& f : c.faces) f.kind = FaceKind::wall;
  c.faces[0].kind = c.faces[1].kind = FaceKind::periodic;
  c.tau = 0.8;
  c.steps = 1;
  SolidConfig ball = shape_of(SolidShape::sphere);
  ball.name = "ball";
  ball.center = {8.2, 7.1, 5.8};
  ball.radius = 3.4;
  SolidConfig edge = shape_of(SolidShape::sphere);
  edge.name = "edge";
  edge.center = {0.6, 3.0, 3.0};
  edge.radius = 2.2;
  SolidConfig post = shape_of(SolidShape::cylinder);
  post.name = "post";
  post.start = {12.3, 3.3, 0.0};
  post.end = {12.3, 3.3, 12.0};
  post.radius = 1.9;
  post.wall = SolidWall::halfway;
  c.solids = {ball, edge, post};
  finalize_case(c);
  const Decomposition serial = serial_decomposition(c);
  std::int64_t serial_ghosts = 0;
  const LinkMap reference = global_links(c, serial, &serial_ghosts);
  EXPECT_GT(serial_ghosts, 0);  // across the periodic face
  LinkMap blocks;
  std::int64_t ghosts = 0;
  for (int bx = 0; bx < 2; ++bx)
    for (int by = 0; by < 2; ++by)
      for (int bz = 0; bz < 2; ++bz) {
        Decomposition d = serial;
        const int b[3] = {bx, by, bz};
        for (int a = 0; a < 3; ++a) {
          d.local_size[a] = c.size[a] / 2;
          d.offset[a] = b[a] * d.local_size[a];
        }
        for (const auto& [key, q] : global_links(c, d, &ghosts)) EXPECT_TRUE(blocks.emplace(key, q).second);
      }
  EXPECT_GT(ghosts, serial_ghosts);  // the rank boundaries cut the sphere
  ASSERT_EQ(blocks.size(), reference.size());
  for (const auto& [key, q] : reference) {
    ASSERT_EQ(blocks.count(key), 1u);
    EXPECT_EQ(blocks.at(key), q) << key.first[0] << " " << key.first[1] << " " << key.first[2] << " dir " << key.second;
  }
  // The ball's q puts the wall on its surface, |x_f + q c - centre| = r, on every link into it.
  int ball_links = 0;
  for (const auto& [key, q] : reference) {
    const int i = key.second;
    const double p[3] = {key.first[0] + 0.5, key.first[1] + 0.5, key.first[2] + 0.5};
    if (!inside_solid(ball, {p[0] + d3q19::c(i, 0), p[1] + d3q19::c(i, 1), p[2] + d3q19::c(i, 2)})) continue;
    const double w[3] = {p[0] + std::abs(q) * d3q19::c(i, 0) - 8.2, p[1] + std::abs(q) * d3q19::c(i, 1) - 7.1,
                         p[2] + std::abs(q) * d3q19::c(i, 2) - 5.8};
    EXPECT_NEAR(std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), 3.4, 1e-12)
        << key.first[0] << " " << key.first[1] << " " << key.first[2] << " dir " << i;
    ++ball_links;
  }
  EXPECT_GT(ball_links, 100);
}

TEST(SolidFlags, CylinderAcrossAOneCellDeepDomainIsTheSameInEveryPlane) {
  // A 2D cylinder: axis along z across the whole depth of a 1-cell domain, and across 5 planes of a deeper one;
  // every z-plane gets the same solid cells, and those are the disc's cells.
  for (int nz : {1, 5}) {
    CaseConfig c;
    c.name = "cyl";
    c.size = {24, 20, nz};
    for (auto& f : c.faces) f.kind = FaceKind::periodic;
    c.faces[2].kind = c.faces[3].kind = FaceKind::wall;
    c.tau = 0.8;
    c.steps = 1;
    SolidConfig s;
    s.name = "post";
    s.shape = SolidShape::cylinder;
    s.start = {9.3, 10.1, 0.0};
    s.end = {9.3, 10.1, double(nz)};
    s.radius = 4.2;
    c.solids = {s};
    finalize_case(c);
    const Decomposition d = serial_decomposition(c);
    const BlockShape shape = block_shape(d);
    const std::vector<CellFlag> flags = build_flags(c, d);
    int solid_in_plane = -1;
    for (int z : {1, 0, nz + 1, nz}) {  // the first and last planes, and the periodic ghost planes
      int count = 0;
      for (int y = 1; y <= c.size[1]; ++y)
        for (int x = 1; x <= c.size[0]; ++x) {
          const CellFlag f = flags[shape.index(x, y, z)];
          const bool disc = std::hypot(x - 0.5 - 9.3, y - 0.5 - 10.1) <= 4.2;
          EXPECT_EQ(f == kWall, disc) << "nz " << nz << ", cell " << x << ", " << y << ", " << z;
          EXPECT_EQ(f == kWall, flags[shape.index(x, y, 1)] == kWall);
          count += f == kWall;
        }
      if (solid_in_plane < 0) solid_in_plane = count;
      EXPECT_EQ(count, solid_in_plane) << "nz " << nz << ", plane " << z;
    }
    EXPECT_GT(solid_in_plane, 40);  // about pi 4.2^2 = 55
    // Fluid cells beside the cylinder take the near-solid path; cells far from it the plain one.
    EXPECT_EQ(flags[shape.index(10, 6, 1)], kFluidNearSolid);  // just below the disc (y centre 5.5)
    EXPECT_EQ(flags[shape.index(20, 10, 1)], kFluid);
  }
}

TEST(SolidFlags, BlockFlagsEqualTheOneRankFlagsOnTheSameCells) {
  // A sphere cut by every rank boundary of a 2 x 2 x 2 split and by the periodic x face: each block's flags, ghost
  // layer included, equal the one-rank flags of the same global cells (periodic ghosts: of the cells they copy).
  CaseConfig c;
  c.name = "blocks";
  c.size = {16, 14, 12};
  for (auto& f : c.faces) f.kind = FaceKind::wall;
  c.faces[0].kind = c.faces[1].kind = FaceKind::periodic;
  c.tau = 0.8;
  c.steps = 1;
  SolidConfig s;
  s.name = "ball";
  s.shape = SolidShape::sphere;
  s.center = {1.0, 7.0, 6.0};  // crosses x = 0, so it is cut off there (not repeated across the periodic face)
  s.radius = 4.5;
  c.solids = {s};
  finalize_case(c);
  const Decomposition serial = serial_decomposition(c);
  const BlockShape whole = block_shape(serial);
  const std::vector<CellFlag> reference = build_flags(c, serial);
  for (int bx = 0; bx < 2; ++bx)
    for (int by = 0; by < 2; ++by)
      for (int bz = 0; bz < 2; ++bz) {
        Decomposition d = serial;
        const int b[3] = {bx, by, bz};
        for (int a = 0; a < 3; ++a) {
          d.local_size[a] = c.size[a] / 2;
          d.offset[a] = b[a] * d.local_size[a];
        }
        const BlockShape shape = block_shape(d);
        const std::vector<CellFlag> flags = build_flags(c, d);
        for (int z = 0; z < shape.n[2] + 2; ++z)
          for (int y = 0; y < shape.n[1] + 2; ++y)
            for (int x = 0; x < shape.n[0] + 2; ++x) {
              int g[3] = {d.offset[0] + x, d.offset[1] + y, d.offset[2] + z};  // index in the one-rank block
              // Ghosts across a non-periodic face are the one-rank block's ghosts; across the periodic x face, the
              // one-rank block's ghost there has the same flag as the cell it copies.
              const CellFlag f = flags[shape.index(x, y, z)];
              const CellFlag r = reference[whole.index(g[0], g[1], g[2])];
              if (is_solid(f) || is_solid(r)) {
                EXPECT_EQ(f, r) << "block " << bx << by << bz << ", cell " << x << ", " << y << ", " << z;
              }
            }
      }
  // The sphere is cut at x = 0: no solid cell at the far side of the periodic face (global x = 15), and the
  // one-rank ghost at x = -1 copies that cell (fluid).
  EXPECT_FALSE(is_solid(reference[whole.index(16, 7, 6)]));
  EXPECT_FALSE(is_solid(reference[whole.index(0, 7, 6)]));
  EXPECT_TRUE(is_solid(reference[whole.index(1, 7, 6)]));
}

}  // namespace
}  // namespace eddy
