// Probes ([[output.probe]], solver/probes.hpp) on this build's backend:
//   - the interpolation (solver/probe_interpolation.hpp): exact for multilinear fields, the known t (1 - t) f'' / 2
//     error of a quadratic one, periodic wrap, nodes beyond a wall dropped;
//   - the sampling kernel (kernels/probe_samples.hpp) against the plain read-outs fields() and temperature();
//   - the values in <case>_probe_<name>.csv against the analytic plane Poiseuille profile (lattice and SI units);
//   - the file's comments, header and rows; every bad input (exit status 2 naming the key, the probe and the
//     point); a restart continuing the file bitwise.
// 1 vs 2 and 4 ranks: tests/mpi/probes_ranks.sh.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/csv_table.hpp"
#include "kernels/probe_samples.hpp"
#include "solver/probe_interpolation.hpp"
#include "solver/simulation.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::read_text;
using test::run_eddy;
using test::TempDir;
using test::write_text;
using P = std::array<double, 3>;

/// The interpolation of field `f` (a function of the node centre) at `p`, all nodes fluid.
template <class F>
double interpolated(const P& p, const std::array<int, 3>& size, const std::array<bool, 3>& periodic, const F& f) {
  const ProbeStencil s = probe_stencil(p, size, periodic);
  return interpolate(
      s, [](int) { return true; },
      [&](int k) {
        const auto& n = s.node[std::size_t(k)];
        return f(n[0] + 0.5, n[1] + 0.5, n[2] + 0.5);
      });
}

TEST(ProbeInterpolation, ExactForMultilinearFields) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> in(0.5, 9.5);
  const auto f = [](double x, double y, double z) {
    return 0.3 + 1.5 * x - 2.0 * y + 0.25 * z + 0.125 * x * y - 0.5 * y * z + 0.0625 * x * y * z;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const P p = {in(random), in(random), in(random)};
    EXPECT_NEAR(interpolated(p, {10, 10, 10}, {false, false, false}, f), f(p[0], p[1], p[2]), 1e-12)
        << p[0] << " " << p[1] << " " << p[2];
  }
  // On a node: its own value, from one node.
  const ProbeStencil on = probe_stencil({2.5, 3.5, 4.5}, {10, 10, 10}, {false, false, false});
  EXPECT_EQ(on.count, 1);
  EXPECT_EQ(on.node[0], (std::array<int, 3>{2, 3, 4}));
}

TEST(ProbeInterpolation, QuadraticErrorWallsAndPeriodicFaces) {
  // Along one axis the interpolation of y^2 errs by t (1 - t) f'' / 2 = t (1 - t).
  for (double y : {1.0, 2.2, 3.75, 6.9}) {
    const double t = y - 0.5 - std::floor(y - 0.5);
    EXPECT_NEAR(
        interpolated({1.5, y, 0.5}, {3, 8, 1}, {false, false, true}, [](double, double yy, double) { return yy * yy; }),
        y * y + t * (1 - t), 1e-12)
        << y;
  }
  // Within half a cell of a wall: the first node's value (the node beyond the wall dropped, weights renormalised).
  const auto g = [](double x, double y, double z) { return x + 10 * y + 100 * z; };
  EXPECT_NEAR(interpolated({1.5, 0.2, 0.5}, {3, 8, 1}, {false, false, true}, g), g(1.5, 0.5, 0.5), 1e-12);
  EXPECT_NEAR(interpolated({3.0, 7.9, 0.5}, {3, 8, 1}, {false, false, true}, g), g(2.5, 7.5, 0.5), 1e-12);
  // Across a periodic face: the nodes at both ends, x = 0.2 between node 7 (at -0.5) and node 0 (at 0.5).
  const ProbeStencil wrap = probe_stencil({0.2, 4.5, 0.5}, {8, 8, 1}, {true, false, true});
  ASSERT_EQ(wrap.count, 2);
  EXPECT_EQ(wrap.node[0][0], 7);
  EXPECT_NEAR(wrap.weight[0], 0.3, 1e-15);
  EXPECT_EQ(wrap.node[1][0], 0);
  EXPECT_NEAR(wrap.weight[1], 0.7, 1e-15);
  EXPECT_EQ(wrap.cell, (std::array<int, 3>{0, 4, 0}));
  // The upper end of the domain belongs to the last cell.
  EXPECT_EQ(probe_stencil({8.0, 8.0, 1.0}, {8, 8, 1}, {false, false, false}).cell, (std::array<int, 3>{7, 7, 0}));
}

/// The sampling kernel's values at every cell of `c`'s block, some steps in, after an odd and after an even step:
/// those of fields() and temperature() (the same moment read-out); solid cells flagged.
void expect_samples_match_read_outs(CaseConfig c) {
  finalize_case(c);
  auto sim = Simulation::create(c);
  sim->advance(7);  // odd: the "own" layout
  for (int round = 0; round < 2; ++round) {
    const MacroscopicFields f = sim->fields();
    const std::vector<double> t = sim->temperature();
    std::vector<std::int64_t> cells(f.rho.size());
    for (std::size_t k = 0; k < cells.size(); ++k) cells[k] = std::int64_t(cells.size() - 1 - k);  // any order
    const std::vector<double> v = sim->probe_values(cells);
    ASSERT_EQ(v.size(), cells.size() * kProbeValues);
    int solid = 0;
    for (std::size_t j = 0; j < cells.size(); ++j) {
      const std::size_t k = std::size_t(cells[j]);
      const double* s = &v[j * kProbeValues];
      if (s[0] != 0.0) {
        ++solid;
        EXPECT_EQ(f.rho[k], 0.0) << k;  // fields() writes 0 in solid cells
        continue;
      }
      EXPECT_EQ(s[1], f.rho[k]) << k;
      for (int a = 0; a < 3; ++a) EXPECT_EQ(s[2 + a], f.u[std::size_t(a)][k]) << k;
      EXPECT_EQ(s[5], t.empty() ? 0.0 : t[k]) << k;
    }
    EXPECT_EQ(solid > 0, !c.solids.empty());
    sim->advance(1);  // and after an even step ("swapped")
  }
}

TEST(ProbeSamples, MatchTheFieldsAndTemperatureReadOuts) {
  EDDY_REQUIRE_DEVICE();
  // A channel around a sphere (interpolated walls), driven along x.
  CaseConfig c = test::box_case(12, 10, 6, 0.8);
  test::make_periodic(c, 0);
  test::make_periodic(c, 2);
  c.body_force = {1e-5, 0, 0};
  SolidConfig ball;
  ball.name = "ball";
  ball.shape = SolidShape::sphere;
  ball.center = {6, 5, 3};
  ball.radius = 2;
  c.solids.push_back(ball);
  expect_samples_match_read_outs(c);
  // A heated cavity (hot x_min, cold x_max): T and the buoyant velocity.
  CaseConfig h = test::box_case(10, 10, 1, 0.0);
  test::make_periodic(h, 2);
  h.tau = 0.0;
  h.velocity = 0.05;
  h.thermal.enabled = true;
  h.thermal.prandtl = 0.71;
  h.thermal.rayleigh = 1e4;
  h.thermal.walls[0] = ThermalWall::fixed;
  h.thermal.wall_temperature[0] = 0.5;
  h.thermal.walls[1] = ThermalWall::fixed;
  h.thermal.wall_temperature[1] = -0.5;
  expect_samples_match_read_outs(h);
}

/// Plane Poiseuille flow between half-way walls at y = 0 and y = H = 8 (periodic x and z), driven by F along x,
/// tau = 1 (nu = 1/6), in double; `units` replaces the lattice viscosity by [units] of the same lattice numbers.
std::string channel(const std::string& probes, const std::string& units = "", int steps = 3000) {
  const std::string physics = units.empty() ? "[physics]\ntau = 1.0\nbody_force = [1e-6, 0, 0]\n"
                                            : "[physics]\nbody_force = [1e-6, 0, 0]\n" + units;
  return "[domain]\nsize = [4, 8, 1]\nperiodic = [true, false, true]\n" + physics +
         "[numerics]\nstorage = \"double\"\n[run]\nsteps = " + std::to_string(steps) +
         "\nreport_every = 1000\n[output]\nvtk = false\n" + probes;
}

constexpr double kForce = 1e-6, kNu = 1.0 / 6.0, kHeight = 8.0;
/// The analytic profile u(y) = F y (H - y) / (2 nu) (lattice units), exact at the nodes for the TRT half-way walls.
double poiseuille(double y) { return kForce * y * (kHeight - y) / (2 * kNu); }
/// What the probe shows at y: the linear interpolation of the node values, u(y) + t (1 - t) u'' / 2 with
/// u'' = -F / nu; within half a cell of a wall the first node's value.
double probed(double y) {
  if (y < 0.5) return poiseuille(0.5);
  if (y > kHeight - 0.5) return poiseuille(kHeight - 0.5);
  const double t = y - 0.5 - std::floor(y - 0.5);
  return poiseuille(y) - t * (1 - t) * kForce / (2 * kNu);
}

const std::vector<double> kHeights = {0.5, 1.0, 2.5, 3.2, 4.0, 5.75, 7.5, 0.25, 7.9};

std::string probe_points(double scale) {
  std::string points;
  for (std::size_t k = 0; k < kHeights.size(); ++k) {
    char text[96];
    std::snprintf(text, sizeof text, "%s[%.17g, %.17g, %.17g]", k ? ", " : "", 1.3 * scale, kHeights[k] * scale,
                  0.5 * scale);
    points += text;
  }
  return "[[output.probe]]\nname = \"profile\"\npoints = [" + points + "]\nevery = 1000\n";
}

TEST(Probes, PoiseuilleProfileInLatticeAndSiUnits) {
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  write_text(dir.file("case.toml"), channel(probe_points(1.0)));
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const CsvTable t = read_csv(dir.file("out/case_probe_profile.csv"));
  ASSERT_EQ(t.column("step").size(), 3u);
  EXPECT_EQ(t.column("time"), (std::vector<double>{1000, 2000, 3000}));
  for (std::size_t k = 0; k < kHeights.size(); ++k) {
    const std::string p = "p" + std::to_string(k) + "_";
    const double ux = t.column(p + "ux").back();
    EXPECT_NEAR(ux, probed(kHeights[k]), 1e-12 * poiseuille(4.0)) << "y = " << kHeights[k];
    EXPECT_NEAR(t.column(p + "uy").back(), 0.0, 1e-15);
    EXPECT_NEAR(t.column(p + "density").back(), 1.0, 1e-12);
  }

  // SI: dx = 1 mm, U = 0.01 m/s at U_lat = 0.05: dt = 5 ms; nu = (1/6) dx^2 / dt gives tau = 1; rho = 1000 kg/m^3.
  const double dx = 1e-3, dt = 5e-3;
  TempDir si;
  write_text(si.file("case.toml"), channel(probe_points(dx),
                                           "length = 8\n[units]\ndx = 1e-3\nvelocity = 0.01\nlattice_velocity = 0.05\n"
                                           "viscosity = 3.3333333333333335e-05\ndensity = 1000\n"));
  ASSERT_EQ(run_eddy(si, "", out), 0) << out;
  const CsvTable s = read_csv(si.file("out/case_probe_profile.csv"));
  ASSERT_EQ(s.column("time").size(), 3u);
  EXPECT_NEAR(s.column("time").back(), 3000 * dt, 1e-12);
  for (std::size_t k = 0; k < kHeights.size(); ++k) {
    const std::string p = "p" + std::to_string(k) + "_";
    EXPECT_NEAR(s.column(p + "ux").back(), probed(kHeights[k]) * dx / dt, 1e-9 * poiseuille(4.0) * dx / dt)
        << "y = " << kHeights[k] * dx << " m";
    EXPECT_NEAR(s.column(p + "density").back(), 1000.0, 1e-9);
  }
  EXPECT_NE(read_text(si.file("out/case_probe_profile.csv")).find("# point 1 = [0.0013, 0.001, 0.0005]"),
            std::string::npos);
}

TEST(Probes, FileFormatAndFields) {
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [16, 16, 1]\nperiodic = [false, false, true]\n[boundary.x_min]\ntemperature = 0.5\n"
             "[boundary.x_max]\ntemperature = -0.5\n[physics]\nvelocity = 0.05\n[thermal]\nprandtl = 0.71\n"
             "rayleigh = 1e3\ngravity = [0, -1, 0]\n[run]\nsteps = 10\n[output]\nvtk = false\n"
             "[[output.probe]]\nname = \"a\"\npoints = [[3, 4, 0.5], [8.25, 8, 0]]\nevery = 4\n"
             "fields = [\"temperature\", \"velocity\"]\n"
             "[[output.probe]]\nname = \"b-2\"\npoints = [[1, 1, 1]]\n");
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const std::string a = read_text(dir.file("out/case_probe_a.csv"));
  const std::string head =
      "# eddy probe 'a' of case 'case': temperature, velocity every 4 steps, interpolated trilinearly from the node "
      "centres\n# units: lattice (time in steps, density and velocity lattice units); points in cells\n"
      "# point 0 = [3, 4, 0.5]\n# point 1 = [8.25, 8, 0]\n"
      "step,time,p0_temperature,p0_ux,p0_uy,p0_uz,p1_temperature,p1_ux,p1_uy,p1_uz\n";
  EXPECT_EQ(a.substr(0, head.size()), head);
  const CsvTable ta = read_csv(dir.file("out/case_probe_a.csv"));
  EXPECT_EQ(ta.column("step"), (std::vector<double>{4, 8}));
  for (double t : ta.column("p0_temperature")) EXPECT_TRUE(t > -0.5 && t < 0.5) << t;
  const CsvTable tb = read_csv(dir.file("out/case_probe_b-2.csv"));
  EXPECT_EQ(tb.names, (std::vector<std::string>{"step", "time", "p0_density", "p0_ux", "p0_uy", "p0_uz"}));
  EXPECT_EQ(tb.column("step").size(), 10u);  // every = 1 by default
  EXPECT_FALSE(test::has_temporary_files(dir.path() / "out"));
}

/// The message of parsing `text`, "" when it parses.
std::string error_of(const std::string& text) { return test::case_error(text, "probe.toml"); }
#define EXPECT_CASE_ERROR(text, fragment) EDDY_EXPECT_CASE_ERROR("probe.toml", text, fragment)

TEST(Probes, BadInputIsRefusedNamingTheKey) {
  const std::string p = "[[output.probe]]\nname = \"p\"\n";
  EXPECT_EQ(error_of(channel(p + "points = [[1, 2, 0.5]]\n")), "");
  EXPECT_CASE_ERROR(channel("[[output.probe]]\npoints = [[1, 2, 0.5]]\n"), "output.probe[0].name");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\n" + p + "points = [[1, 2, 0.5]]\n"),
                    "output.probe[1].name = \"p\" is used by an earlier probe");
  EXPECT_CASE_ERROR(channel("[[output.probe]]\nname = \"a/b\"\npoints = [[1, 2, 0.5]]\n"), "output.probe[0].name");
  EXPECT_CASE_ERROR(channel(p), "missing required key 'output.probe[0].points'");
  EXPECT_CASE_ERROR(channel(p + "points = []\n"), "output.probe[0].points");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2]]\n"), "output.probe[0].points");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, \"z\"]]\n"), "output.probe[0].points");
  EXPECT_CASE_ERROR(
      channel(p + "points = [[1, 2, 0.5], [1, 9, 0.5]]\n"),
      "output.probe[0].points of 'p': point 1 = [1, 9, 0.5] lies outside the domain (y must be in [0, 8] cells)");
  EXPECT_CASE_ERROR(channel(p + "points = [[-0.1, 2, 0.5]]\n"), "point 0 = [-0.1, 2, 0.5] lies outside the domain");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\nevery = 0\n"), "output.probe[0].every = 0");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\nfields = [\"vorticity\"]\n"),
                    "'vorticity' is an output field a probe cannot sample");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\nfields = [\"velocty\"]\n"), "did you mean 'velocity'?");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\nfields = [\"temperature\"]\n"),
                    "\"temperature\" needs a [thermal] section");
  EXPECT_CASE_ERROR(channel(p + "points = [[1, 2, 0.5]]\nradius = 1\n"), "output.probe[0]");
  EXPECT_CASE_ERROR(channel("[output.probe]\nname = \"p\"\n"), "output.probe");
  std::string out_of_core = channel(p + "points = [[1, 2, 0.5]]\n");
  out_of_core.replace(out_of_core.find("storage"), 0, "out_of_core = true\n");
  EXPECT_CASE_ERROR(out_of_core, "[[output.probe]] is available in core only");
  // Under [units] the points are metres, and so is the message.
  EXPECT_CASE_ERROR(channel(p + "points = [[0.001, 0.009, 0.0005]]\n",
                            "length = 8\n[units]\ndx = 1e-3\nvelocity = 0.01\nviscosity = 3.3e-5\n"),
                    "point 0 = [0.001, 0.009, 0.0005] lies outside the domain (y must be in [0, 0.008] m)");

  // Through eddy: exit status 2, one line; a point in a solid found at the set-up.
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  std::string out;
  write_text(dir.file("case.toml"), channel(p + "points = [[1, 2, 0.5], [1, 9, 0.5]]\n"));
  EXPECT_EQ(run_eddy(dir, "", out), 2) << out;
  EXPECT_NE(out.find("output.probe[0].points"), std::string::npos) << out;
  write_text(dir.file("case.toml"),
             channel(p + "points = [[1, 2, 0.5], [2.5, 4.2, 0.5]]\n"
                         "[[solid]]\nname = \"post\"\nshape = \"box\"\nmin = [2, 3, 0]\nmax = [3, 5, 1]\n"));
  EXPECT_EQ(run_eddy(dir, "", out), 2) << out;
  EXPECT_NE(out.find("output.probe[0] 'p': point 1 = [2.5, 4.2, 0.5] lies in a solid cell (2, 4, 0)"),
            std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/case_probe_p.csv")));
}

TEST(Probes, ARestartContinuesTheFileBitwise) {
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  write_text(dir.file("case.toml"),
             channel("[[output.probe]]\nname = \"p\"\npoints = [[1, 2, 0.5], [3.3, 6.1, 0.2]]\nevery = 3\n"
                     "[checkpoint]\nevery = 10\n",
                     "", 40));
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const std::string whole = read_text(dir.file("out/case_probe_p.csv"));
  ASSERT_EQ(std::count(whole.begin(), whole.end(), '\n'), 4 + 1 + 13) << whole;  // comments, header, 13 rows
  // From step 30 (a sample step) and from step 20 (between samples 18 and 21).
  for (const char* step : {"30", "20"}) {
    if (std::string(step) == "20") ASSERT_EQ(run_eddy(dir, "--set run.steps=20", out), 0) << out;
    ASSERT_EQ(run_eddy(dir, std::string("--restart out/checkpoints/case_checkpoint_000000") + step + ".toml", out), 0)
        << out;
    EXPECT_EQ(read_text(dir.file("out/case_probe_p.csv")), whole) << "restart from step " << step;
    EXPECT_NE(out.find("case_probe_p.csv continued: "), std::string::npos) << out;
  }
  // A file of another probe (other points) is kept under another name, never overwritten.
  write_text(
      dir.file("case.toml"),
      channel("[[output.probe]]\nname = \"p\"\npoints = [[1, 2, 0.5]]\nevery = 3\n[checkpoint]\nevery = 10\n", "", 40));
  ASSERT_EQ(run_eddy(dir, "--restart out/checkpoints/case_checkpoint_00000030.toml", out), 0) << out;
  EXPECT_EQ(read_text(dir.file("out/case_probe_p.csv.before_step_30")), whole);
  EXPECT_NE(out.find("warning: the probe file"), std::string::npos) << out;
}

}  // namespace
}  // namespace eddy
