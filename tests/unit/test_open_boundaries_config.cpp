// Unit tests for the open [boundary.<face>] types (io/case/open_boundaries.cpp): each type's keys and defaults,
// lattice and SI units, the inlet profiles (solver/open_boundaries.hpp inlet_velocity, inlet_ramp) and the CSV profile
// file, and every bad input: one line naming the key (and the file and line of a CSV file), exit status 2, or 8 for a
// profile file that cannot be read.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/errors.hpp"
#include "solver/lattice_setup.hpp"
#include "solver/open_boundaries.hpp"
#include "solver/run_report.hpp"

namespace eddy {
namespace {

/// A 2D channel 32 x 16 x 1 (periodic z, walls y) with U = 0.05, tau = 0.8, and `faces` (the [boundary.*] tables).
std::string channel(const std::string& faces, const std::string& extra = "") {
  return "[domain]\nsize = [32, 16, 1]\nperiodic = [false, false, true]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
         "[run]\nsteps = 1\n" +
         extra + faces;
}

const std::string kOutlet = "[boundary.x_max]\ntype = \"pressure_outlet\"\n";

/// The same channel in SI: 0.41 m wide on 16 cells (dx = 0.025625 m), U = 0.2 m/s at lattice velocity 0.05, water.
std::string si_channel(const std::string& faces) {
  return "[domain]\nsize = [32, 16, 1]\nperiodic = [false, false, true]\n[physics]\nlength = 16\n"
         "[units]\nlength = 0.41\nvelocity = 0.2\nviscosity = 1e-3\ndensity = 1000\nlattice_velocity = 0.05\n"
         "[run]\nsteps = 1\n" +
         faces;
}

struct Failure {
  std::string message;
  int code = 0;
};
Failure failure_of(const std::string& text, const std::string& origin = "open.toml",
                   const std::vector<std::string>& overrides = {}) {
  try {
    parse_case(text, origin, overrides);
  } catch (const CaseFileError& e) {
    return {e.what(), kExitCaseFileError};
  } catch (const InputError& e) {
    return {e.what(), kExitInputError};
  }
  return {"<no InputError thrown>", 0};
}

#define EXPECT_OPEN_ERROR(text, ...)                                             \
  do {                                                                           \
    const Failure f_ = failure_of(text);                                         \
    EXPECT_EQ(f_.code, 2) << f_.message;                                         \
    EXPECT_EQ(f_.message.rfind("open.toml: ", 0), 0u) << f_.message;             \
    EXPECT_EQ(f_.message.find('\n'), std::string::npos) << f_.message;           \
    for (const std::string& fragment_ : std::vector<std::string>{__VA_ARGS__}) { \
      EXPECT_NE(f_.message.find(fragment_), std::string::npos)                   \
          << "\"" << f_.message << "\" lacks \"" << fragment_ << "\"";           \
    }                                                                            \
  } while (0)

/// A temporary directory holding a case and its CSV profile file.
struct ProfileDir {
  std::filesystem::path dir;
  ProfileDir() {
    dir = std::filesystem::temp_directory_path() / ("eddy_open_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  ~ProfileDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  std::string origin() const { return (dir / "case.toml").string(); }
};

const std::string kCsvInlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"csv\"\nfile = \"inlet.csv\"\n";

// ---- reading -------------------------------------------------------------------------------------------------------

TEST(OpenBoundaryReader, ReadsEveryTypeWithItsDefaults) {
  const CaseConfig c =
      parse_case(channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [1.0, 0.2, 0.0]\nramp_time = 100\n" +
                         kOutlet + "[boundary.y_min]\ntype = \"free_slip\"\n[boundary.y_max]\ntype = \"outflow\"\n"),
                 "open.toml");
  EXPECT_EQ(c.faces[0].kind, FaceKind::velocity_inlet);
  EXPECT_EQ(c.faces[0].profile, InletProfile::uniform);
  EXPECT_DOUBLE_EQ(c.faces[0].velocity[0], 0.05);  // in units of U = 0.05
  EXPECT_DOUBLE_EQ(c.faces[0].velocity[1], 0.01);
  EXPECT_EQ(c.faces[0].ramp_time, 100.0);
  EXPECT_EQ(c.faces[1].kind, FaceKind::pressure_outlet);
  EXPECT_EQ(c.faces[1].density, 1.0);
  EXPECT_EQ(c.faces[2].kind, FaceKind::free_slip);
  EXPECT_EQ(c.faces[3].kind, FaceKind::outflow);
  EXPECT_EQ(c.faces[3].scheme, OutflowScheme::zero_gradient);
  EXPECT_TRUE(has_open_faces(c));
}

TEST(OpenBoundaryReader, ParabolicPeakFromTheMeanVelocity) {
  // Plane Poiseuille across y (z periodic): U_mean = 2/3 U_m.
  const CaseConfig two_d = parse_case(
      channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmean_velocity = 1.0\n" + kOutlet),
      "open.toml");
  EXPECT_DOUBLE_EQ(two_d.faces[0].speed, 1.5 * 0.05);
  EXPECT_FALSE(two_d.faces[0].mean_speed);
  // The duct product form across y and z: U_mean = 4/9 U_m.
  const CaseConfig three_d = parse_case(
      "[domain]\nsize = [32, 16, 16]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 1\n"
      "[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmean_velocity = 1.0\n" +
          kOutlet,
      "open.toml");
  EXPECT_DOUBLE_EQ(three_d.faces[0].speed, 2.25 * 0.05);
  // finalize_case is idempotent on the result.
  CaseConfig again = three_d;
  finalize_case(again);
  EXPECT_EQ(again.faces[0].speed, three_d.faces[0].speed);
  // A uniform inlet from a speed: normal to the face, into the domain (x_max: -x).
  const CaseConfig uniform =
      parse_case(channel("[boundary.x_max]\ntype = \"velocity_inlet\"\nmean_velocity = 2.0\n[boundary.x_min]\ntype = "
                         "\"pressure_outlet\"\ndensity = 1.01\n"),
                 "open.toml");
  EXPECT_EQ(uniform.faces[1].velocity, (std::array<double, 3>{-0.1, 0.0, 0.0}));
  EXPECT_EQ(uniform.faces[0].density, 1.01);
}

TEST(OpenBoundaryReader, OutletPressureAndConvectionVelocity) {
  const CaseConfig c = parse_case(
      channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nmax_velocity = 1\n[boundary.x_max]\ntype = "
              "\"pressure_outlet\"\npressure = 0.002\n[boundary.y_max]\ntype = \"outflow\"\nscheme = \"convective\"\n"
              "[boundary.y_min]\ntype = \"outflow\"\nscheme = \"convective\"\nconvection_velocity = 0.5\n"),
      "open.toml");
  EXPECT_DOUBLE_EQ(c.faces[1].density, 1.006);  // rho = 1 + p / c_s^2
  EXPECT_TRUE(std::isnan(c.faces[1].pressure));
  EXPECT_DOUBLE_EQ(c.faces[3].convection_velocity, 0.05);  // default: U
  EXPECT_DOUBLE_EQ(c.faces[2].convection_velocity, 0.025);
}

TEST(OpenBoundaryReader, SiUnitsUnderUnits) {
  const CaseConfig c = parse_case(
      si_channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmax_velocity = 0.3\n"
                 "ramp_time = 2.0\n[boundary.x_max]\ntype = \"pressure_outlet\"\npressure = 5.0\n"
                 "[boundary.y_max]\ntype = \"outflow\"\nscheme = \"convective\"\nconvection_velocity = 0.4\n"),
      "open.toml");
  // A density in kg/m^3 (outlets meeting at an edge hold one density: this one on its own).
  const CaseConfig by_density = parse_case(
      si_channel(
          "[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmax_velocity = 0.3\n"
          "[boundary.x_max]\ntype = \"outflow\"\n[boundary.y_min]\ntype = \"pressure_outlet\"\ndensity = 1010\n"),
      "open.toml");
  const double dx = 0.41 / 16, dt = 0.05 * dx / 0.2;
  EXPECT_NEAR(c.faces[0].speed, 0.3 * dt / dx, 1e-15);  // 0.075 lattice
  EXPECT_NEAR(c.faces[0].ramp_time, 2.0 / dt, 1e-9);
  EXPECT_NEAR(c.faces[1].density, 1.0 + 3.0 * 5.0 * dt * dt / (1000.0 * dx * dx), 1e-15);
  EXPECT_NEAR(by_density.faces[2].density, 1.01, 1e-15);
  EXPECT_NEAR(c.faces[3].convection_velocity, 0.4 * dt / dx, 1e-15);
  EXPECT_FALSE(c.faces[0].in_si);
  CaseConfig again = c;  // idempotent
  finalize_case(again);
  EXPECT_EQ(again.faces[0].speed, c.faces[0].speed);
  EXPECT_EQ(again.faces[1].density, c.faces[1].density);
}

TEST(OpenBoundaryReader, TypeOverrideDropsTheOtherTypesKeys) {
  const std::string text =
      channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmean_velocity = 1\n" + kOutlet);
  const CaseConfig c = parse_case(text, "open.toml", {"boundary.x_min.type=\"wall\""});
  EXPECT_EQ(c.faces[0].kind, FaceKind::wall);
  const CaseConfig d = parse_case(text, "open.toml", {"boundary.x_max.type=\"free_slip\""});
  EXPECT_EQ(d.faces[1].kind, FaceKind::free_slip);
}

// ---- profiles -----------------------------------------------------------------------------------------------------

// Start-up warnings (printed under the open faces' lines): inflow with nowhere to leave, a ramp longer than the run.
TEST(OpenBoundaryWarnings, InflowWithoutAnOutletAndARampLongerThanTheRun) {
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\n";
  const std::string backflow =
      "[boundary.x_max]\ntype = \"velocity_inlet\"\nvelocity = [-0.02, 0, 0]\n";  // into the domain
  EXPECT_EQ(open_face_warnings(parse_case(channel(inlet + kOutlet), "open.toml")), "");
  const std::string two = open_face_warnings(parse_case(channel(inlet + backflow), "open.toml"));
  EXPECT_NE(two.find("warning: boundary.x_min, boundary.x_max push fluid in, but no face is a pressure_outlet or "
                     "outflow"),
            std::string::npos)
      << two;
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 1) << two;
  const std::string parabolic =
      "[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\n"
      "max_velocity = 1.0\n";
  EXPECT_NE(
      open_face_warnings(parse_case(channel(parabolic), "open.toml")).find("warning: boundary.x_min pushes fluid in"),
      std::string::npos);
  // sin^2(pi t / 2T) at t = T / 2: half the velocity.
  const std::string ramped = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\nramp_time = 200\n";
  const std::string ramp = open_face_warnings(parse_case(channel(ramped + kOutlet), "open.toml", {"run.steps=100"}));
  EXPECT_NE(ramp.find("warning: boundary.x_min.ramp_time is longer than the run (100 steps): the inlet reaches 50 % of "
                      "its velocity"),
            std::string::npos)
      << ramp;
  EXPECT_EQ(open_face_warnings(parse_case(channel(ramped + kOutlet), "open.toml", {"run.steps=200"})), "");
}

TEST(OpenBoundaryProfiles, ParabolaVanishesOnTheWallsAndPeaksInTheMiddle) {
  CaseConfig c = parse_case(
      channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmax_velocity = 2\n" + kOutlet),
      "open.toml");
  EXPECT_EQ(inlet_velocity(c, 0, {0.0, 0.0, 0.5})[0], 0.0);
  EXPECT_EQ(inlet_velocity(c, 0, {0.0, 16.0, 0.5})[0], 0.0);
  EXPECT_DOUBLE_EQ(inlet_velocity(c, 0, {0.0, 8.0, 0.5})[0], 0.1);
  EXPECT_DOUBLE_EQ(inlet_velocity(c, 0, {0.0, 4.0, 0.3})[0], 0.1 * 4 * 4.0 * 12.0 / 256.0);  // 4 y (H - y) / H^2
  EXPECT_EQ(inlet_ramp(0.0, 0.0), 1.0);
  EXPECT_EQ(inlet_ramp(100.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(inlet_ramp(100.0, 50.0), 0.5);  // sin^2(pi / 4)
  EXPECT_EQ(inlet_ramp(100.0, 100.0), 1.0);
  EXPECT_LT(inlet_ramp(100.0, 1.0), 1e-3);  // starts with zero slope
}

TEST(OpenBoundaryProfiles, CsvLineAndGridInterpolateLinearly) {
  const ProfileDir d;
  d.write("inlet.csv", "# a linear profile across y (cells), speeds in units of U\ny,u\n0,0\n8,1\n16,3\n");
  const CaseConfig line = parse_case(channel(kCsvInlet + kOutlet), d.origin());
  ASSERT_EQ(line.faces[0].profile, InletProfile::csv);
  EXPECT_DOUBLE_EQ(inlet_velocity(line, 0, {0.0, 4.0, 0.5})[0], 0.5 * 0.05);
  EXPECT_DOUBLE_EQ(inlet_velocity(line, 0, {0.0, 12.0, 0.5})[0], 2.0 * 0.05);
  EXPECT_DOUBLE_EQ(inlet_velocity(line, 0, {0.0, 16.0, 0.5})[0], 3.0 * 0.05);
  // The Mach check takes the fastest point.
  EXPECT_NEAR(line.mach(), std::sqrt(3.0) * 0.15, 1e-12);
  // A grid over y and z with the velocity vector; x_max: into the domain is -x.
  d.write("grid.csv", "z,y,ux,uy,uz\n0,0,-1,0,0\n0,16,-1,0,0\n4,0,-2,0.5,0\n4,16,-2,0.5,0\n");
  const CaseConfig grid = parse_case(
      "[domain]\nsize = [16, 16, 4]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 1\n"
      "[boundary.x_max]\ntype = \"velocity_inlet\"\nprofile = \"csv\"\nfile = \"grid.csv\"\n"
      "[boundary.x_min]\ntype = \"pressure_outlet\"\n",
      d.origin());
  const std::array<double, 3> u = inlet_velocity(grid, 1, {16.0, 3.0, 1.0});
  EXPECT_DOUBLE_EQ(u[0], -1.25 * 0.05);
  EXPECT_DOUBLE_EQ(u[1], 0.125 * 0.05);
}

// ---- bad input -----------------------------------------------------------------------------------------------------

TEST(OpenBoundaryErrors, InletOnAPeriodicAxisAndMach) {
  EXPECT_OPEN_ERROR(channel("[boundary.z_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\n"), "boundary.z_min",
                    "periodic");
  EXPECT_OPEN_ERROR(
      channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\nmax_velocity = 4\n" + kOutlet),
      "Mach number", "boundary.x_min.max_velocity", "0.3");
  EXPECT_OPEN_ERROR(channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [5, 0, 0]\n" + kOutlet),
                    "Mach number", "boundary.x_min.velocity");
  EXPECT_OPEN_ERROR(si_channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1.2\n" + kOutlet),
                    "Mach number", "units.lattice_velocity");
}

TEST(OpenBoundaryErrors, ContradictoryAndMisplacedKeys) {
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\n";
  EXPECT_OPEN_ERROR(channel(inlet + "velocity = [1, 0, 0]\nmean_velocity = 1\n" + kOutlet),
                    "boundary.x_min.mean_velocity contradicts boundary.x_min.velocity");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\nmax_velocity = 1\n" + kOutlet), "max_velocity contradicts");
  EXPECT_OPEN_ERROR(channel(inlet + "profile = \"parabolic\"\nvelocity = [1, 0, 0]\n" + kOutlet),
                    "boundary.x_min.velocity contradicts", "parabolic");
  EXPECT_OPEN_ERROR(channel(inlet + "profile = \"csv\"\nfile = \"a.csv\"\nmean_velocity = 1\n" + kOutlet),
                    "mean_velocity contradicts", "csv");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\nfile = \"a.csv\"\n" + kOutlet), "boundary.x_min.file",
                    "only used with profile = \"csv\"");
  EXPECT_OPEN_ERROR(channel(inlet + "profile = \"csv\"\n" + kOutlet), "missing key 'boundary.x_min.file'");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet), "missing key", "velocity_inlet");
  EXPECT_OPEN_ERROR(channel(inlet + "velocity = [-1, 0, 0]\n" + kOutlet), "does not point into the domain");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = -1\n" + kOutlet), "boundary.x_min.mean_velocity");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\nramp_time = -5\n" + kOutlet), "boundary.x_min.ramp_time");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\ndensity = 1\n" + kOutlet), "boundary.x_min.density",
                    "is not used by type = \"velocity_inlet\"");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\ntemperature = 1\n" + kOutlet),
                    "boundary.x_min.temperature is not used");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\n[boundary.x_max]\ntype = \"pressure_outlet\"\ndensity = "
                                    "1\npressure = 0\n"),
                    "boundary.x_max.pressure contradicts boundary.x_max.density");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\n[boundary.x_max]\ntype = \"pressure_outlet\"\ndensity = 0\n"),
                    "boundary.x_max.density");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\n[boundary.x_max]\ntype = \"outflow\"\nconvection_velocity = "
                                    "1\n"),
                    "convection_velocity is only used with scheme = \"convective\"");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\n[boundary.x_max]\ntype = \"free_slip\"\nscheme = \"x\"\n"),
                    "boundary.x_max.scheme is not used by type = \"free_slip\"");
  EXPECT_OPEN_ERROR(channel(inlet + "mean_velocity = 1\n[boundary.x_max]\ntype = \"outlet\"\n"), "boundary.x_max.type",
                    "pressure_outlet");
}

TEST(OpenBoundaryErrors, WhatTheOpenTypesDoNotSupport) {
  const std::string faces = "[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\n" + kOutlet;
  // A parabola needs a walled axis across the face: here y is periodic too.
  EXPECT_OPEN_ERROR(
      "[domain]\nsize = [32, 16, 1]\nperiodic = [false, true, true]\n[physics]\nvelocity = 0.05\ntau = "
      "0.8\n[run]\nsteps = 1\n[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"parabolic\"\n"
      "mean_velocity = 1\n" +
          kOutlet,
      "boundary.x_min.profile", "parabolic");
  EXPECT_OPEN_ERROR(channel(faces, "[thermal]\nprandtl = 0.71\n"), "[thermal]");
  EXPECT_OPEN_ERROR(channel(faces, "[particles]\ncount = 10\n"), "[particles]");
  EXPECT_OPEN_ERROR(channel(faces, "[numerics]\nout_of_core = true\n"), "out-of-core", "boundary.x_min");
  EXPECT_OPEN_ERROR(
      "[domain]\nsize = [1, 16, 16]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 1\n"
      "[boundary.x_max]\ntype = \"pressure_outlet\"\n",
      "boundary.x_max", "at least 2 cells");
  EXPECT_OPEN_ERROR(
      "[domain]\nsize = [32, 16, 1]\nperiodic = [false, false, true]\n[physics]\ntau = 0.8\n[run]\n"
      "steps = 1\n" +
          faces,
      "physics.velocity, which is 0");
  // An inlet across a one-cell axis (found by a hostile-input session: it ran, and the mass grew by 1220 %).
  EXPECT_OPEN_ERROR(
      "[domain]\nsize = [32, 16, 1]\nperiodic = [true, false, false]\n[physics]\nvelocity = 0.05\ntau = 0.8\n"
      "[run]\nsteps = 1\n[boundary.z_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\n",
      "boundary.z_min", "at least 2 cells along z");
}

// Outlet densities far from rho0 and convection faster than a cell a step were accepted and blew up at the first
// step as an "instability" (exit 3, with advice about the velocity); they are input errors, naming the key given.
TEST(OpenBoundaryErrors, OutletDensityAndConvectionVelocityRanges) {
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\n";
  const std::string outlet = inlet + "[boundary.x_max]\ntype = \"pressure_outlet\"\n";
  EXPECT_OPEN_ERROR(channel(outlet + "density = 2.0\n"), "boundary.x_max.density = 2", "within 0.1 of 1");
  EXPECT_OPEN_ERROR(channel(outlet + "density = 1e-300\n"), "boundary.x_max.density", "within 0.1 of 1");
  EXPECT_OPEN_ERROR(channel(outlet + "density = 1e300\n"), "boundary.x_max.density", "within 0.1 of 1");
  // Given as a pressure: the message names pressure and its value, and the density it gave.
  EXPECT_OPEN_ERROR(channel(outlet + "pressure = -0.3333333\n"), "boundary.x_max.pressure = -0.3333333",
                    "the outlet density 1.000000001e-07");
  EXPECT_OPEN_ERROR(si_channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 0.2\n"
                               "[boundary.x_max]\ntype = \"pressure_outlet\"\npressure = -1e6\n"),
                    "boundary.x_max.pressure = -1000000 Pa", "within 0.1 of 1");
  // Inside the range: 1 +- 0.1 (0.0333 lattice pressure is rho = 1.1).
  EXPECT_NO_THROW(parse_case(channel(outlet + "density = 0.9\n"), "open.toml"));
  EXPECT_NO_THROW(parse_case(channel(outlet + "pressure = 0.0333\n"), "open.toml"));
  const std::string convective = inlet + "[boundary.x_max]\ntype = \"outflow\"\nscheme = \"convective\"\n";
  // In units of physics.velocity = 0.05: 21 is 1.05 cells a step.
  EXPECT_OPEN_ERROR(channel(convective + "convection_velocity = 21\n"), "boundary.x_max.convection_velocity",
                    "one cell per step");
  EXPECT_OPEN_ERROR(channel(convective + "convection_velocity = 1e300\n"), "boundary.x_max.convection_velocity");
  EXPECT_NO_THROW(parse_case(channel(convective + "convection_velocity = 19\n"), "open.toml"));
}

// Sponge layers (kernels/sponge_layers.hpp): thickness in cells or m, tau at the face with its default, the layers'
// values on the block, and every bad value naming its key.
TEST(OpenBoundarySponge, ThicknessTauAndTheirDefaults) {
  const std::string inlet =
      "[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\nsponge = 4\nsponge_tau = 1\n";
  const CaseConfig c = parse_case(
      channel(inlet + kOutlet + "sponge = 8.5\nsponge_tau = 1.2\n[boundary.y_max]\ntype = \"outflow\"\n"), "open.toml");
  EXPECT_EQ(c.faces[0].sponge, 4.0);
  EXPECT_EQ(c.faces[0].sponge_tau, 1.0);
  EXPECT_EQ(c.faces[1].sponge, 8.5);
  EXPECT_EQ(c.faces[1].sponge_tau, 1.2);
  EXPECT_EQ(c.faces[3].sponge, 0.0);  // no layer
  std::string text = channel(kOutlet + "sponge = 4\n");
  text.replace(text.find("tau = 0.8"), 9, "tau = 0.51");
  const CaseConfig low_tau = parse_case(text, "open.toml");
  EXPECT_EQ(low_tau.faces[1].sponge_tau, kDefaultSpongeTau);
  // Under [units] the thickness is in metres: 0.1025 m on dx = 0.025625 m is 4 cells.
  const CaseConfig si = parse_case(si_channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 0.2\n"
                                              "sponge = 0.1025\n[boundary.x_max]\ntype = \"pressure_outlet\"\n"),
                                   "open.toml");
  EXPECT_NEAR(si.faces[0].sponge, 4.0, 1e-12);

  // The layers on a block: 1 / L and tau_f - tau per face, the block's global offset and the domain's size.
  Decomposition d = serial_decomposition(c);
  d.offset = {3, 0, 0};
  const SpongeLayers<double> layers = sponge_layers<double>(c, d);
  EXPECT_TRUE(layers.present());
  EXPECT_EQ(layers.inverse_thickness[0], 0.25);
  EXPECT_NEAR(layers.tau_excess[0], 0.2, 1e-15);
  EXPECT_EQ(layers.inverse_thickness[1], 1.0 / 8.5);
  EXPECT_NEAR(layers.tau_excess[1], 0.4, 1e-15);
  EXPECT_EQ(layers.inverse_thickness[3], 0.0);
  // Block cell x = 26 is global x = 28, centre 28.5, 3.5 cells from the x_max face at 32: (1 - 3.5 / 8.5)^2 0.4.
  EXPECT_NEAR(layers.tau_excess_at(26, 5, 1), 0.4 * (5.0 / 8.5) * (5.0 / 8.5), 1e-15);
  EXPECT_EQ(layers.tau_excess_at(20, 5, 1), 0.0);  // global 22: 9.5 cells from the face, outside the layer
  EXPECT_FALSE(sponge_layers<double>(parse_case(channel(kOutlet), "open.toml"), d).present());
  // Without LES the kernel with local rates still needs tau0 and the magic parameter.
  const Smagorinsky<double> rates = smagorinsky<double>(c);
  EXPECT_FALSE(rates.on());
  EXPECT_EQ(rates.tau0, 0.8);
  EXPECT_EQ(rates.magic, c.magic);
}

TEST(OpenBoundarySponge, BadValuesNameTheKey) {
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 1\n";
  EXPECT_OPEN_ERROR(channel(inlet + "sponge = 0\n" + kOutlet), "boundary.x_min.sponge", "> 0");
  EXPECT_OPEN_ERROR(channel(inlet + "sponge = -3\n" + kOutlet), "boundary.x_min.sponge");
  EXPECT_OPEN_ERROR(channel(inlet + "sponge = 0.5\n" + kOutlet), "boundary.x_min.sponge", "at least one cell");
  EXPECT_OPEN_ERROR(channel(inlet + "sponge = 16.5\n" + kOutlet), "boundary.x_min.sponge", "half the domain",
                    "16 cells");
  EXPECT_OPEN_ERROR(channel(inlet + "sponge = 1e300\n" + kOutlet), "boundary.x_min.sponge");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge_tau = 1.0\n"), "boundary.x_max.sponge_tau", "has none");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge = 4\nsponge_tau = 0.7\n"), "boundary.x_max.sponge_tau = 0.7",
                    "physics.tau (0.8");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge = 4\nsponge_tau = 0.8\n"), "boundary.x_max.sponge_tau = 0.8",
                    "above physics.tau");
  // Without sponge_tau the default 0.6 would not raise tau = 0.8: the layer is refused, naming the cause.
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge = 4\n"), "boundary.x_max.sponge = 4", "change nothing",
                    "physics.tau = 0.8");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge = 4\nsponge_tau = 2.5\n"), "boundary.x_max.sponge_tau",
                    "at most 2");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "sponge = 4\nsponge_tau = nan\n"), "boundary.x_max.sponge_tau");
  // Free-slip and wall faces have no layer (a sponge is for faces that the flow crosses).
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "[boundary.y_min]\ntype = \"free_slip\"\nsponge = 4\n"),
                    "boundary.y_min", "sponge");
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + "[boundary.y_min]\ntype = \"wall\"\nsponge = 4\n"), "boundary.y_min",
                    "sponge");
  // Under [units] the limits are said in metres.
  EXPECT_OPEN_ERROR(si_channel("[boundary.x_min]\ntype = \"velocity_inlet\"\nmean_velocity = 0.2\nsponge = 1.0\n"
                               "[boundary.x_max]\ntype = \"pressure_outlet\"\n"),
                    "boundary.x_min.sponge = 1 m", "0.41 m");
}

// Pressure outlets meeting at an edge must hold the same density (the edge's cells blew up otherwise); opposite
// faces may differ (a pressure-driven flow).
TEST(OpenBoundaryErrors, OutletsMeetingAtAnEdgeNeedOneDensity) {
  const std::string inlet = "[boundary.x_min]\ntype = \"velocity_inlet\"\nvelocity = [0.02, 0, 0]\n";
  const std::string y_outlet = "[boundary.y_max]\ntype = \"pressure_outlet\"\ndensity = 0.999\n";
  EXPECT_OPEN_ERROR(channel(inlet + kOutlet + y_outlet),
                    "boundary.x_max and boundary.y_max are pressure outlets that meet at an edge with different "
                    "densities (1 and 0.999",
                    "give them the same density or pressure");
  const std::string y_same = "[boundary.y_max]\ntype = \"pressure_outlet\"\ndensity = 1.0\n";
  EXPECT_NO_THROW(parse_case(channel(inlet + kOutlet + y_same), "open.toml"));
  const std::string x_min_outlet = "[boundary.x_min]\ntype = \"pressure_outlet\"\ndensity = 1.01\n";
  EXPECT_NO_THROW(parse_case(channel(x_min_outlet + kOutlet), "open.toml"));
}

TEST(OpenBoundaryErrors, CsvProfileFileProblemsNameTheFileAndLine) {
  const ProfileDir d;
  const auto failure = [&](const std::string& csv) {
    d.write("inlet.csv", csv);
    return failure_of(channel(kCsvInlet + kOutlet), d.origin());
  };
  // Missing: the case-file error (exit status 8), naming the key and the file.
  const Failure missing = failure_of(channel(kCsvInlet + kOutlet), d.origin());
  EXPECT_EQ(missing.code, kExitCaseFileError) << missing.message;
  EXPECT_NE(missing.message.find("boundary.x_min.file"), std::string::npos) << missing.message;
  EXPECT_NE(missing.message.find("inlet.csv"), std::string::npos) << missing.message;
  struct Bad {
    std::string csv, fragment;
  };
  const Bad bad[] = {
      {"y,speed\n0,1\n16,1\n", "inlet.csv:1: unknown column 'speed'"},
      {"x,u\n0,1\n16,1\n", "inlet.csv:1: column 'x' is the axis normal to face x_min"},
      {"u\n1\n", "inlet.csv:1: no position column"},
      {"y,u,ux,uy,uz\n0,1,1,0,0\n", "inlet.csv:1: give the velocity as one column u"},
      {"# header next\ny,u\n0,1\n8,abc\n16,1\n", "inlet.csv:4: column 'u': 'abc' is not a number"},
      {"y,u\n0,1\n8,\n16,1\n", "inlet.csv:3: column 'u' is empty or NaN"},
      {"y,u\n0,1\n8,1,2\n", "inlet.csv:3: expected 2 cells, found 3"},
      {"y,u\n0,1\n0,2\n16,1\n", "inlet.csv:3: the same position as line 2"},
      {"y,u\n0,1\n16,-1\n", "inlet.csv:3: the velocity points out of the domain"},
      {"y,u\n4,1\n16,1\n", "the points cover y from 4 to 16, but face x_min spans y from 0 to 16 cells"},
      {"y,u\n0,1\n", "at least two different y positions"},
      {"y,ux,uy,uz\n0,-0.5,1,0\n16,1,0,0\n", "inlet.csv:2: the velocity points out of the domain"},
      {"y,ux,uy,uz\n0,0,1,0\n16,0,1,0\n", "no point's velocity has a component into the domain"},
      {"y,u\n0,0\n16,0\n", "no point's velocity has a component into the domain"},
  };
  for (const Bad& b : bad) {
    const Failure f = failure(b.csv);
    EXPECT_EQ(f.code, kExitInputError) << f.message;
    EXPECT_EQ(f.message.find('\n'), std::string::npos) << f.message;
    EXPECT_NE(f.message.find(b.fragment), std::string::npos)
        << "\"" << f.message << "\" lacks \"" << b.fragment << "\"";
    EXPECT_NE(f.message.find("boundary.x_min.file"), std::string::npos) << f.message;
  }
  // A grid with a point missing.
  d.write("grid.csv", "y,z,u\n0,0,1\n16,0,1\n0,4,1\n");
  const Failure grid = failure_of(
      "[domain]\nsize = [16, 16, 4]\n[physics]\nvelocity = 0.05\ntau = 0.8\n[run]\nsteps = 1\n"
      "[boundary.x_min]\ntype = \"velocity_inlet\"\nprofile = \"csv\"\nfile = \"grid.csv\"\n" +
          kOutlet,
      d.origin());
  EXPECT_EQ(grid.code, kExitInputError) << grid.message;
  EXPECT_NE(grid.message.find("3 points do not form a grid"), std::string::npos) << grid.message;
}

}  // namespace
}  // namespace eddy
