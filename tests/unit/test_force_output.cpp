// The forces on [[solid]] bodies as a user sees them (solver/solid_forces.hpp, io/forces_csv.hpp), through the case
// reader and the eddy binary:
//   - the reference keys and their defaults (projected areas worked out here from the shapes, SI conversion,
//     directions, the sampling interval), and one clear message for each bad input;
//   - C_D and C_L in <case>_forces.csv against values computed here from the CSV's own force columns and the
//     reference area, velocity and directions (in SI), and on the progress line;
//   - rows every forces.every steps; the closing summary's mean, min, max and amplitude against the CSV's window;
//     its frequency and Strouhal number on a synthetic series;
//   - a restart continues the file bitwise (from a sample step and between samples, after a crash cut its last line),
//     a file of other columns is kept under another name;
//   - out of core the same file, byte for byte, as in core.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "io/csv_table.hpp"
#include "kernels/backend.hpp"
#include "solver/solid_forces.hpp"
#include "solver/solid_shapes.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/test_support.hpp"

namespace eddy {
namespace {

using test::read_text;
using test::run_eddy;
using test::TempDir;
using test::write_text;
using Vec = std::array<double, 3>;

/// A channel 32 x 16 x 8 (periodic x and z, walls in y) driven along x, with `solids` (TOML) after it.
std::string channel(const std::string& solids, const std::string& extra = "", int steps = 40) {
  return "[domain]\nsize = [32, 16, 8]\nperiodic = [true, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "body_force = [1e-4, 0, 0]\n[run]\nsteps = " +
         std::to_string(steps) + "\nreport_every = 10\n[output]\nvtk = false\n" + extra + solids;
}

const std::string kBall = "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [8, 8, 4]\nradius = 3\n";

/// The InputError message of parsing `text`, "" when it parses.
std::string error_of(const std::string& text) { return test::case_error(text, "forces.toml"); }
#define EXPECT_CASE_ERROR(text, fragment) EDDY_EXPECT_CASE_ERROR("forces.toml", text, fragment)

TEST(ForceReferences, DefaultsFromTheShapes) {
  const CaseConfig c = parse_case(
      channel(kBall + "forces = true\n"
                      "[[solid]]\nname = \"post\"\nshape = \"cylinder\"\nstart = [20, 8, -3]\nend = [20, 8, 11]\n"
                      "radius = 2.5\nforces = true\n"
                      "[[solid]]\nname = \"step\"\nshape = \"box\"\nmin = [26, -2, 1]\nmax = [29, 5, 6]\n"
                      "forces = true\n"
                      "[[solid]]\nname = \"rod\"\nshape = \"cylinder\"\nstart = [2, 3, 4]\nend = [12, 3, 4]\n"
                      "radius = 1\nforces = true\n"),
      "forces.toml");
  // Drag along the body force (+x), lift +y.
  for (const SolidConfig& s : c.solids) {
    EXPECT_EQ(s.drag_direction, (std::array<double, 3>{1, 0, 0})) << s.name;
    EXPECT_EQ(s.lift_direction, (std::array<double, 3>{0, 1, 0})) << s.name;
    EXPECT_EQ(s.reference_velocity, 0.05) << s.name;  // physics.velocity
  }
  EXPECT_DOUBLE_EQ(c.solids[0].reference_area, M_PI * 9.0);   // pi r^2
  EXPECT_EQ(c.solids[0].reference_length, 6.0);               // the diameter
  EXPECT_DOUBLE_EQ(c.solids[1].reference_area, 2 * 2.5 * 8);  // across the flow: diameter x the 8 cells inside
  EXPECT_EQ(c.solids[1].reference_length, 5.0);
  EXPECT_DOUBLE_EQ(c.solids[2].reference_area, 5.0 * 5.0);  // y clipped to [0, 5], z from 1 to 6: 5 x 5
  EXPECT_DOUBLE_EQ(c.solids[2].reference_length, 5.0);      // its extent along lift (y), clipped
  EXPECT_DOUBLE_EQ(c.solids[3].reference_area, M_PI);       // an axis along the flow: the end cap, pi r^2
  // Samples: min(report_every = 10, round(0.1 L / U)) with the smallest L / U = 2 / 0.05 = 40 (the rod): 4 steps.
  EXPECT_EQ(c.forces.every, 4);
  // finalize_case is idempotent: the filled defaults read as given.
  CaseConfig again = c;
  finalize_case(again);
  for (std::size_t k = 0; k < c.solids.size(); ++k) {
    EXPECT_EQ(again.solids[k].reference_area, c.solids[k].reference_area);
    EXPECT_EQ(again.solids[k].reference_length, c.solids[k].reference_length);
    EXPECT_EQ(again.solids[k].lift_direction, c.solids[k].lift_direction);
  }
  EXPECT_EQ(again.forces.every, 4);
}

/// The area of the convex hull of 2D points (Andrew's monotone chain, then the shoelace formula).
double hull_area(std::vector<std::array<double, 2>> p) {
  std::sort(p.begin(), p.end());
  const auto cross = [](const std::array<double, 2>& o, const std::array<double, 2>& a,
                        const std::array<double, 2>& b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  };
  std::vector<std::array<double, 2>> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
    h[k++] = p[i];
  }
  double area = 0.0;
  for (std::size_t i = 0; i + 1 < k; ++i) area += h[i][0] * h[i + 1][1] - h[i + 1][0] * h[i][1];
  return 0.5 * std::abs(area);
}

TEST(ForceReferences, RotatedBoxProjectsItsTurnedShape) {
  // A box of extents 6 x 2 x 3 turned about its centre, well inside the domain: its default reference area is the
  // area of its shadow on the plane normal to the drag direction (x), here the convex hull of its eight turned
  // corners' (y, z); its reference length the spread of the corners along the lift direction (y). 30 degrees about
  // z by hand: 6 cos 30 + 9 and 6 sin 30 + 2 cos 30.
  const Vec lo = {12, 6, 2}, hi = {18, 8, 5}, centre = {15, 7, 3.5};
  for (const Vec& rotate : {Vec{0, 0, 30}, Vec{20, 35, -50}, Vec{0, 0, 90}}) {
    const std::string box = "[[solid]]\nname = \"b\"\nshape = \"box\"\nmin = [12, 6, 2]\nmax = [18, 8, 5]\nrotate = [" +
                            std::to_string(rotate[0]) + ", " + std::to_string(rotate[1]) + ", " +
                            std::to_string(rotate[2]) + "]\nforces = true\n";
    const CaseConfig c = parse_case(channel(box), "forces.toml");
    const Matrix3 r = rotation_matrix(rotate);
    std::vector<std::array<double, 2>> shadow;
    double y_lo = HUGE_VAL, y_hi = -HUGE_VAL;
    for (int k = 0; k < 8; ++k) {
      const Vec corner = {(k & 1) ? hi[0] : lo[0], (k & 2) ? hi[1] : lo[1], (k & 4) ? hi[2] : lo[2]};
      const Vec turned = rotate_point(r, {corner[0] - centre[0], corner[1] - centre[1], corner[2] - centre[2]});
      shadow.push_back({turned[1], turned[2]});
      y_lo = std::min(y_lo, turned[1]);
      y_hi = std::max(y_hi, turned[1]);
    }
    const std::string what = "rotate " + std::to_string(rotate[2]);
    EXPECT_NEAR(c.solids[0].reference_area, hull_area(shadow), 1e-12) << what;
    EXPECT_NEAR(c.solids[0].reference_length, y_hi - y_lo, 1e-12) << what;
    if (rotate == Vec{0, 0, 30}) {
      EXPECT_NEAR(c.solids[0].reference_area, 6 * std::cos(M_PI / 6) + 9, 1e-12);
      EXPECT_NEAR(c.solids[0].reference_length, 3 + 2 * std::cos(M_PI / 6), 1e-12);
    }
    if (rotate == Vec{0, 0, 90}) {  // a quarter turn: the x extent 6 now along y
      EXPECT_NEAR(c.solids[0].reference_area, 6.0 * 3.0, 1e-12);
      EXPECT_NEAR(c.solids[0].reference_length, 6.0, 1e-12);
    }
  }
}

TEST(ForceReferences, TiltedCylinderAndGivenDirections) {
  // An axis in the x-y plane at 30 degrees to the drag direction (x): 2 r L sin 30 + pi r^2 cos 30, L = 8.
  const double L = 8.0, r = 1.5;
  const std::string tilted = "[[solid]]\nname = \"tilt\"\nshape = \"cylinder\"\nstart = [10, 6, 4]\nend = [" +
                             std::to_string(10 + L * std::cos(M_PI / 6)) + ", " +
                             std::to_string(6 + L * std::sin(M_PI / 6)) + ", 4]\nradius = 1.5\nforces = true\n";
  const CaseConfig c = parse_case(channel(tilted), "forces.toml");
  const double length =
      std::hypot(std::stod(std::to_string(L * std::cos(M_PI / 6))), std::stod(std::to_string(L * std::sin(M_PI / 6))));
  EXPECT_NEAR(c.solids[0].reference_area, 2 * r * length * 0.5 + M_PI * r * r * std::cos(M_PI / 6), 1e-5);
  // Drag along y (given, not normalised): the default lift turns to +x.
  const CaseConfig up = parse_case(channel(kBall + "forces = true\ndrag_direction = [0, 2, 0]\n"), "forces.toml");
  EXPECT_EQ(up.solids[0].drag_direction, (std::array<double, 3>{0, 1, 0}));
  EXPECT_EQ(up.solids[0].lift_direction, (std::array<double, 3>{1, 0, 0}));
  const CaseConfig both = parse_case(
      channel(kBall + "forces = true\ndrag_direction = [1, 1, 0]\nlift_direction = [-3, 3, 0]\n"), "forces.toml");
  EXPECT_NEAR(both.solids[0].drag_direction[0], std::sqrt(0.5), 2e-16);
  EXPECT_NEAR(both.solids[0].lift_direction[0], -std::sqrt(0.5), 2e-16);
  EXPECT_NEAR(both.solids[0].lift_direction[1], std::sqrt(0.5), 2e-16);
}

TEST(ForceReferences, DirectionsOfExtremeMagnitudeAreUnitVectors) {
  // |v|^2 underflows to a subnormal or zero for 1e-160 and overflows for 1e200: found by the case fuzzer (a tiny
  // drag_direction normalised to a vector of length 1 +- 1e-9, and a huge one to zero).
  const auto norm = [](const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
  for (const std::string given : {"[3e-160, 4e-160, 0]", "[1e-310, 0, 1e-310]", "[3e200, -4e200, 1e200]"}) {
    const CaseConfig c = parse_case(channel(kBall + "forces = true\ndrag_direction = " + given + "\n"), "forces.toml");
    EXPECT_NEAR(norm(c.solids[0].drag_direction), 1.0, 1e-15) << given;
    EXPECT_NEAR(norm(c.solids[0].lift_direction), 1.0, 1e-15) << given;
  }
  const CaseConfig small =
      parse_case(channel(kBall + "forces = true\ndrag_direction = [3e-160, 4e-160, 0]\n"), "forces.toml");
  EXPECT_NEAR(small.solids[0].drag_direction[0], 0.6, 1e-15);
  EXPECT_NEAR(small.solids[0].drag_direction[1], 0.8, 1e-15);
}

TEST(ForceReferences, SiConversion) {
  // dx = 0.1 m / 20 cells = 5 mm; U = 2 m/s as 0.05 lattice: dt = 0.05 * 5e-3 / 2 = 1.25e-4 s.
  const std::string text =
      "[domain]\nsize = [64, 32, 1]\nperiodic = [true, false, true]\n[units]\nlength = 0.1\nvelocity = 2.0\n"
      "viscosity = 0.004\nlattice_velocity = 0.05\n[physics]\nlength = 20\n[run]\nsteps = 1\n"
      "[[solid]]\nname = \"cyl\"\nshape = \"cylinder\"\nstart = [0.1, 0.08, 0]\nend = [0.1, 0.08, 0.005]\n"
      "radius = 0.025\nforces = true\n"
      "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.2, 0.08, 0.0025]\nradius = 0.02\nforces = true\n"
      "reference_area = 0.003\nreference_velocity = 1.0\nreference_length = 0.03\n";
  const CaseConfig c = parse_case(text, "si.toml");
  const double dx = 0.005, dt = 1.25e-4;
  ASSERT_DOUBLE_EQ(c.units.dx, dx);
  ASSERT_DOUBLE_EQ(c.units.dt, dt);
  // Defaults: the diameter times the depth of the 2D domain (one cell, 5 mm), the case's velocity and diameter.
  EXPECT_NEAR(c.solids[0].reference_area * dx * dx, 0.05 * 0.005, 1e-15);
  EXPECT_NEAR(c.solids[0].reference_velocity * dx / dt, 2.0, 1e-12);
  EXPECT_NEAR(c.solids[0].reference_length * dx, 0.05, 1e-15);
  // Given in SI: m^2, m/s, m.
  EXPECT_NEAR(c.solids[1].reference_area * dx * dx, 0.003, 1e-15);
  EXPECT_NEAR(c.solids[1].reference_velocity * dx / dt, 1.0, 1e-12);
  EXPECT_NEAR(c.solids[1].reference_length * dx, 0.03, 1e-15);
}

TEST(ForceReferences, BadInputNamesTheKey) {
  EXPECT_CASE_ERROR(channel(kBall + "reference_area = 3\n"),
                    "solid[0].reference_area is used only with solid[0].forces = true");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\nreference_area = -1\n"),
                    "solid[0].reference_area = -1 is out of range");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\nreference_velocity = 0\n"), "solid[0].reference_velocity = 0");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\ndrag_direction = [0, 0, 0]\n"),
                    "solid[0].drag_direction = [0, 0, 0] is not a direction");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\nlift_direction = [1, 1, 0]\n"),
                    "solid[0].lift_direction = [0.7071067812, 0.7071067812, 0] is not perpendicular to "
                    "solid[0].drag_direction = [1, 0, 0] (normalised; their angle is 45 degrees)");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\ndrag_direction = [1, \"a\", 0]\n"), "solid[0].drag_direction");
  EXPECT_CASE_ERROR(channel(kBall, "[forces]\nevery = 5\n"),
                    "[forces] is used only with a [[solid]] that has forces = true");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\n", "[forces]\nevery = 0\n"), "forces.every = 0 is out of range");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\n", "[forces]\nevry = 5\n"), "(did you mean 'every'?)");
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\n", "[forces]\nstatistics_from = \"late\"\n"),
                    "forces.statistics_from");
  // A sphere so large that pi r^2 overflows (found by the case fuzzer): the default area is refused, not inf.
  EXPECT_CASE_ERROR(channel("[[solid]]\nname = \"huge\"\nshape = \"sphere\"\ncenter = [8, 8, 4]\nradius = 1e200\n"
                            "forces = true\n"),
                    "solid[0]'s projected area (the default reference area) is not a finite number of cells");
  // A solid outside the domain projects no area: its coefficients need one given.
  EXPECT_CASE_ERROR(channel(kBall + "forces = true\n[[solid]]\nname = \"away\"\nshape = \"box\"\nmin = [40, 0, 0]\n"
                                    "max = [50, 4, 4]\nforces = true\n"),
                    "solid[1] projects no area inside the domain: it lies outside it (check its position against");
  EXPECT_EQ(error_of(channel(kBall + "forces = true\n", "[forces]\nevery = 5\nstatistics_from = 20\n")), "");
}

/// The lines of the closing summary (from "forces      '" on).
std::string summary_of(const std::string& out) {
  const std::size_t at = out.find("\nforces      '");
  return at == std::string::npos ? std::string() : out.substr(at + 1);
}

TEST(ForceCoefficients, AgainstTheForceColumnsInSi) {
  // rho = 1.2 kg/m^3; dx = 1 mm, U = 0.5 m/s as 0.05: the sphere (r = 3 mm) takes the defaults, the box given
  // references and directions at 45 degrees.
  TempDir dir;
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [32, 16, 8]\nperiodic = [true, false, true]\n[units]\ndx = 0.001\nvelocity = 0.5\n"
             "viscosity = 1e-4\ndensity = 1.2\nlattice_velocity = 0.05\n[physics]\nlength = 10\n"
             "body_force = [1e-4, 2e-5, 0]\n[run]\nsteps = 30\nreport_every = 10\n[output]\nvtk = false\n"
             "[forces]\nevery = 5\n"
             "[[solid]]\nname = \"ball\"\nshape = \"sphere\"\ncenter = [0.008, 0.008, 0.004]\nradius = 0.003\n"
             "forces = true\n"
             "[[solid]]\nname = \"brick\"\nshape = \"box\"\nmin = [0.02, 0.004, 0.002]\nmax = [0.026, 0.011, 0.006]\n"
             "forces = true\nreference_area = 2e-5\nreference_velocity = 0.4\ndrag_direction = [1, 1, 0]\n"
             "lift_direction = [-1, 1, 0]\n");
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const CsvTable t = read_csv(dir.file("out/case_forces.csv"));
  ASSERT_EQ(t.column("step"), (std::vector<double>{5, 10, 15, 20, 25, 30}));
  const double rho = 1.2, dt = 0.05 * 0.001 / 0.5;
  for (std::size_t r = 0; r < 6; ++r) {
    EXPECT_NEAR(t.column("time")[r], t.column("step")[r] * dt, 1e-18);
    // The drag direction follows the body force: (1e-4, 2e-5, 0) normalised; lift +y made perpendicular to it.
    const double n = std::hypot(1e-4, 2e-5), dx_ = 1e-4 / n, dy_ = 2e-5 / n;
    const double fx = t.column("ball_Fx")[r], fy = t.column("ball_Fy")[r];
    const double q = 0.5 * rho * 0.5 * 0.5 * M_PI * 0.003 * 0.003;  // (1/2) rho U^2 pi r^2
    EXPECT_NEAR(t.column("ball_CD")[r], (fx * dx_ + fy * dy_) / q, 1e-12 * std::abs(fx / q)) << r;
    EXPECT_NEAR(t.column("ball_CL")[r], (-fx * dy_ + fy * dx_) / q, 1e-12 * std::abs(fx / q)) << r;
    const double bx = t.column("brick_Fx")[r], by = t.column("brick_Fy")[r];
    const double qb = 0.5 * rho * 0.4 * 0.4 * 2e-5;
    EXPECT_NEAR(t.column("brick_CD")[r], (bx + by) / std::sqrt(2.0) / qb, 1e-12 * std::abs(bx / qb)) << r;
    EXPECT_NEAR(t.column("brick_CL")[r], (by - bx) / std::sqrt(2.0) / qb, 1e-12 * std::abs(bx / qb)) << r;
    EXPECT_GT(std::abs(t.column("ball_CD")[r]), 1e-3);  // not trivially zero
  }
  // The progress line of step 30 shows the last row's coefficients (5 significant digits).
  char expected[128];
  std::snprintf(expected, sizeof expected, "C_D %.5g C_L %.5g", t.column("ball_CD")[5], t.column("ball_CL")[5]);
  const std::size_t line = out.find("step        30");
  ASSERT_NE(line, std::string::npos) << out;
  EXPECT_NE(out.substr(line, out.find('\n', line) - line).find(expected), std::string::npos) << expected << "\n" << out;
}

/// mean, min, max, amplitude of rows [first, end) of `v`.
std::array<double, 4> window_statistics(const std::vector<double>& v, std::size_t first) {
  double sum = 0, lo = v[first], hi = v[first];
  for (std::size_t i = first; i < v.size(); ++i) {
    sum += v[i];
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  return {sum / double(v.size() - first), lo, hi, (hi - lo) / 2};
}

/// The four numbers of the summary line "<name> mean a, min b, max c, amplitude d".
std::array<double, 4> printed_statistics(const std::string& summary, const std::string& name) {
  const std::regex line(name + " mean (\\S+), min (\\S+), max (\\S+), amplitude (\\S+) ");
  std::smatch m;
  if (!std::regex_search(summary, m, line)) {
    ADD_FAILURE() << "no '" << name << " mean ...' in\n" << summary;
    return {};
  }
  return {std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4])};
}

TEST(ForceSummary, StatisticsOfTheCsvWindow) {
  TempDir dir;
  write_text(dir.file("case.toml"), channel(kBall + "forces = true\n", "[forces]\nevery = 3\n", 40));
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const CsvTable t = read_csv(dir.file("out/case_forces.csv"));
  ASSERT_EQ(t.column("step").size(), 13u);  // 3, 6, ..., 39: every forces.every steps, not at reports
  EXPECT_EQ(t.column("step").back(), 39.0);
  const auto check = [&](const std::string& summary, std::size_t first) {
    for (const char* c : {"CD", "CL"}) {
      const std::array<double, 4> want = window_statistics(t.column(std::string("ball_") + c), first);
      const std::array<double, 4> got = printed_statistics(summary, c[1] == 'D' ? "C_D" : "C_L");
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(got[k], want[k], 1e-5 * std::abs(want[k])) << c << " " << k;
    }
  };
  std::string summary = summary_of(out);
  // The second half: rows 6..12 (t = 21 .. 39).
  EXPECT_NE(summary.find("'ball': 7 samples from t = 21 to 39 steps (the second half of the samples; one every 3"),
            std::string::npos)
      << summary;
  check(summary, 6);
  EXPECT_NE(summary.find("C_L frequency: none (too few samples (7, at least 16 needed))"), std::string::npos)
      << summary;
  ASSERT_EQ(run_eddy(dir, "--set forces.statistics_from=10", out), 0) << out;
  summary = summary_of(out);
  EXPECT_NE(summary.find("'ball': 10 samples from t = 12 to 39 steps (forces.statistics_from = 10 steps"),
            std::string::npos)
      << summary;
  check(summary, 3);
  ASSERT_EQ(run_eddy(dir, "--set forces.statistics_from=100", out), 0) << out;
  EXPECT_NE(summary_of(out).find("no samples to sum up (13 in all; forces.statistics_from = 100 steps holds none)"),
            std::string::npos)
      << out;
}

TEST(ForceSummary, FrequencyAndStrouhalNumberInSi) {
  // C_L = 0.8 sin(2 pi 5 Hz t) + 0.01, C_D = 2 + 0.1 sin(2 pi 10 Hz t), sampled every 4 steps of 1e-3 s for 4 s;
  // L = 20 cells of 5 mm = 0.1 m, U = 0.05 lattice = 0.25 m/s: St = 5 0.1 / 0.25 = 2.
  CaseConfig config;
  config.units.enabled = true;
  config.units.dx = 0.005;
  config.units.dt = 1e-3;
  config.forces.every = 4;
  SolidConfig s;
  s.name = "cyl";
  s.reference_length = 20;
  s.reference_velocity = 0.05;
  std::vector<double> t, cd, cl;
  for (int k = 1; k <= 1000; ++k) {
    t.push_back(k * 4e-3);
    cd.push_back(2.0 + 0.1 * std::sin(2 * M_PI * 10 * t.back()));
    cl.push_back(0.01 + 0.8 * std::sin(2 * M_PI * 5 * t.back() + 0.2));
  }
  const std::string text = force_summary(config, s, t, cd, cl);
  std::printf("%s", text.c_str());
  const std::regex frequency(
      "C_L frequency (\\S+) Hz \\(spectral peak, bin (\\S+)\\), St = f L / U = (\\S+) "
      "\\(L = 0.1 m, U = 0.25 m/s\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, frequency)) << text;
  EXPECT_NEAR(std::stod(m[1]), 5.0, 5e-4);                 // 10 periods in the window: measured 5.00004
  EXPECT_NEAR(std::stod(m[2]), 1.0 / (500 * 4e-3), 1e-6);  // the second half: 500 samples over 2 s
  EXPECT_NEAR(std::stod(m[3]), 2.0, 2e-4);
  const std::array<double, 4> d = printed_statistics(text, "C_D");
  EXPECT_NEAR(d[0], 2.0, 1e-5);                             // whole periods: the mean is exact to round-off
  EXPECT_NEAR(d[3], 0.1, 0.1 * (1 - std::cos(M_PI / 25)));  // 25 samples a period: crests within half a sample
}

/// Writes the channel case with checkpoints every `every` steps into `dir`.
void restart_case(const TempDir& dir, int checkpoint_every) {
  write_text(dir.file("case.toml"),
             channel(kBall + "forces = true\n",
                     "[forces]\nevery = 3\n[checkpoint]\nevery = " + std::to_string(checkpoint_every) + "\n", 40));
}

TEST(ForceSeriesFile, ARestartContinuesItBitwise) {
  TempDir dir;
  restart_case(dir, 10);
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const std::string whole = read_text(dir.file("out/case_forces.csv")), summary = summary_of(out);
  ASSERT_EQ(std::count(whole.begin(), whole.end(), '\n'), 14) << whole;  // header and 13 rows
  ASSERT_FALSE(summary.empty()) << out;
  // From step 30 (a sample step: row 30 kept, not written twice) and step 20 (between samples 18 and 21).
  for (const char* step : {"30", "20"}) {
    const std::string checkpoint = std::string("out/checkpoints/case_checkpoint_000000") + step + ".toml";
    if (std::string(step) == "20") {  // the newest two are kept: write 20 again
      ASSERT_EQ(run_eddy(dir, "--set run.steps=20", out), 0) << out;
    }
    ASSERT_EQ(run_eddy(dir, "--restart " + checkpoint, out), 0) << out;
    EXPECT_EQ(read_text(dir.file("out/case_forces.csv")), whole) << "restart from step " << step;
    EXPECT_EQ(summary_of(out), summary) << "restart from step " << step;
    EXPECT_NE(out.find("continued: "), std::string::npos) << out;
  }
  // A crash cut the file in the middle of a row after step 30: the partial row is dropped, the rest written again.
  ASSERT_EQ(run_eddy(dir, "--set run.steps=30", out), 0) << out;
  const std::string upto30 = read_text(dir.file("out/case_forces.csv"));
  write_text(dir.file("out/case_forces.csv"), upto30 + whole.substr(upto30.size(), 17));
  ASSERT_EQ(run_eddy(dir, "--restart out/checkpoints/case_checkpoint_00000030.toml", out), 0) << out;
  EXPECT_EQ(read_text(dir.file("out/case_forces.csv")), whole);
  // A file of other columns is kept under another name, never overwritten.
  write_text(dir.file("out/case_forces.csv"), "step,time,other_Fx\n2,2,1\n");
  ASSERT_EQ(run_eddy(dir, "--restart out/checkpoints/case_checkpoint_00000030.toml", out), 0) << out;
  EXPECT_EQ(read_text(dir.file("out/case_forces.csv.before_step_30")), "step,time,other_Fx\n2,2,1\n");
  EXPECT_NE(out.find("warning: the forces file"), std::string::npos) << out;
  const std::string restarted = read_text(dir.file("out/case_forces.csv"));
  EXPECT_EQ(restarted, whole.substr(0, whole.find('\n') + 1) + whole.substr(upto30.size()));  // rows after 30 only
}

TEST(ForceSeriesFile, OutOfCoreWritesTheInCoreFile) {
  if (backend::is_gpu())
    GTEST_SKIP() << "forces out of core are refused on a GPU build (ForceSeriesFile.OutOfCoreRefusedOnGpu)";
  TempDir dir;
  // Half-way walls: interpolated ones run in core only.
  write_text(dir.file("case.toml"),
             channel(kBall + "wall = \"halfway\"\nforces = true\n", "[forces]\nevery = 3\n", 40));
  std::string out;
  ASSERT_EQ(run_eddy(dir, "", out), 0) << out;
  const std::string in_core = read_text(dir.file("out/case_forces.csv"));
  for (const char* plan : {"", "--set numerics.time_block=2 --set numerics.slabs=3"}) {
    ASSERT_EQ(run_eddy(dir, std::string("--set numerics.out_of_core=true ") + plan, out), 0) << out;
    EXPECT_NE(out.find("out-of-core"), std::string::npos) << out;
    EXPECT_EQ(read_text(dir.file("out/case_forces.csv")), in_core) << plan;
  }
}

TEST(ForceSeriesFile, OutOfCoreRefusedOnGpu) {
  if (!backend::is_gpu()) GTEST_SKIP() << "the cpu backend computes forces out of core (OutOfCoreWritesTheInCoreFile)";
  TempDir dir;
  write_text(dir.file("case.toml"),
             channel(kBall + "wall = \"halfway\"\nforces = true\n", "[forces]\nevery = 3\n", 40));
  std::string out;
  EXPECT_EQ(run_eddy(dir, "--set numerics.out_of_core=true", out), 2) << out;
  EXPECT_NE(out.find("forces = true is computed in core only on a GPU build"), std::string::npos) << out;
}

}  // namespace
}  // namespace eddy
