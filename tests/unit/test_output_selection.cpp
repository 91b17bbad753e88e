// Lighter output ([output] region and stride, [[output.slice]]) through the eddy command line, read back with VTK's
// own readers as ParaView reads them: every node of a region, a strided volume or a slice holds exactly the value of
// the full snapshot at that node, its origin and spacing place it where that node is, the slices' series are listed
// in their own .pvd with the times of their every; on 1, 2 and 4 ranks (pieces joined by a .pvti; ranks that hold
// none of a slice write no piece), out of core, and in SI under [units]. The selection's pure arithmetic (which
// nodes a rank owns and writes) is in tests/unit/test_output_box.cpp, the keys' errors in
// test_output_selection_config.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "io/case_config.hpp"
#include "solver/output_box.hpp"
#include "solver/simulation.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/test_support.hpp"
#include "tests/vtk_read.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;
using test::Arrays;
using test::read_arrays;
using test::read_text;
using test::TempDir;
using test::write_text;

/// A lid-driven box of uneven sides (uneven blocks on several ranks), 6 steps, with a derived field (vorticity: the
/// ghost layers count), snapshots at 3 and 6.
const std::string kCase =
    "[domain]\nsize = [13, 11, 9]\n[physics]\nvelocity = 0.08\nreynolds = 20\n"
    "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.3]\n"
    "[run]\nsteps = 6\n[output]\nevery = 3\nfields = [\"density\", \"velocity\", \"vorticity\"]\n";

/// The selection: a region sampled every 2nd x, 3rd y and z node; a z slice every 2 steps, an x slice at the
/// domain's upper face with output.every (3).
const std::string kSelection =
    "region = { min = [1.4, 0, 2], max = [12.6, 11, 8.5] }\nstride = [2, 3, 1]\n"
    "[[output.slice]]\nname = \"mid\"\nnormal = \"z\"\nposition = 4.5\nevery = 2\n"
    "[[output.slice]]\nnormal = \"x\"\nposition = 13\n";

/// One image as VTK's reader gives it.
struct Image {
  std::array<int, 6> extent{};
  std::array<double, 3> origin{}, spacing{};
  Arrays arrays;
};

Image read_image(const fs::path& path) {
  Image image;
  image.arrays = read_arrays(path.string());
  for (int a = 0; a < 6; ++a) image.extent[a] = int(image.arrays["image/extent"].numbers.at(a));
  for (int a = 0; a < 3; ++a) {
    image.origin[a] = image.arrays["image/origin"].numbers.at(a);
    image.spacing[a] = image.arrays["image/spacing"].numbers.at(a);
  }
  return image;
}

/// Checks that `part` holds the nodes first + I * stride of `full` (a whole-grid image), value for value in every
/// point array, and sits where they are; `count`: the nodes expected per axis.
void expect_nodes_of(const Image& part, const Image& full, const std::array<int, 3>& first,
                     const std::array<int, 3>& stride, const std::array<int, 3>& count, const std::string& what) {
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(part.extent[2 * a], 0) << what << " axis " << a;
    EXPECT_EQ(part.extent[2 * a + 1], count[a] - 1) << what << " axis " << a;
    EXPECT_NEAR(part.origin[a], full.origin[a] + first[a] * full.spacing[a], 1e-12 * full.spacing[a])
        << what << " axis " << a;
    EXPECT_NEAR(part.spacing[a], stride[a] * full.spacing[a], 1e-12 * full.spacing[a]) << what << " axis " << a;
  }
  const std::array<int, 3> n = {full.extent[1] + 1, full.extent[3] + 1, full.extent[5] + 1};
  int arrays = 0;
  for (const auto& [name, values] : full.arrays) {
    if (name.rfind("point/", 0) != 0) continue;
    ++arrays;
    ASSERT_EQ(part.arrays.count(name), 1u) << what << ": " << name;
    const test::ArrayValues& got = part.arrays.at(name);
    const int c = values.components;
    ASSERT_EQ(got.components, c) << what << ": " << name;
    ASSERT_EQ(got.numbers.size(), std::size_t(c) * count[0] * count[1] * count[2]) << what << ": " << name;
    int mismatches = 0;
    for (int k = 0; k < count[2]; ++k)
      for (int j = 0; j < count[1]; ++j)
        for (int i = 0; i < count[0]; ++i)
          for (int q = 0; q < c; ++q) {
            const std::size_t at = std::size_t(c) * (i + std::size_t(count[0]) * (j + std::size_t(count[1]) * k)) + q;
            const int x = first[0] + i * stride[0], y = first[1] + j * stride[1], z = first[2] + k * stride[2];
            const std::size_t from = std::size_t(c) * (x + std::size_t(n[0]) * (y + std::size_t(n[1]) * z)) + q;
            if (got.numbers[at] != values.numbers.at(from) && mismatches++ < 3) {
              ADD_FAILURE() << what << ": " << name << " component " << q << " at node (" << x << ", " << y << ", " << z
                            << ") = " << got.numbers[at] << ", the full snapshot has " << values.numbers[from];
            }
          }
    EXPECT_EQ(mismatches, 0) << what << ": " << name;
  }
  EXPECT_EQ(arrays, 3) << what << ": density, velocity and vorticity expected in the full snapshot";
}

/// The files a .pvd lists, with their times, in order.
std::vector<std::pair<double, std::string>> pvd_entries(const fs::path& pvd) {
  std::vector<std::pair<double, std::string>> entries;
  const std::string text = read_text(pvd.string());
  const std::regex entry(R"re(timestep="([^"]+)"[^>]*file="([^"]+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry); it != std::sregex_iterator(); ++it)
    entries.emplace_back(std::stod((*it)[1]), (*it)[2]);
  return entries;
}

/// Runs the full case and the selection on `ranks` (`args` for both), and checks the selection's files at step 6
/// against the full snapshot of the run on one rank, and the series the .pvd files list. `metres`: the case is in
/// SI (dx = `dx`), the selection's lengths given in m.
void check_selection(const std::string& case_text, const std::string& selection, int ranks, const std::string& args,
                     const std::string& what) {
  TempDir full_dir("eddy_test_full_"), dir;
  write_text(full_dir.file("case.toml"), case_text);
  write_text(dir.file("case.toml"), case_text + selection);
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(full_dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 0) << log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", ranks, args, log, EDDY_TEST_MPIEXEC), 0) << what << "\n" << log;
  const Image full = read_image(full_dir.path() / "out" / "case_00000006.vti");
  const fs::path out = dir.path() / "out";
  const std::string ext = ranks > 1 ? ".pvti" : ".vti";

  // Region: x in [1.4, 12.6] holds nodes 1..12 (centres 1.5 .. 12.5), every 2nd: 1, 3, ..., 11 (6); y all 11
  // nodes every 3rd: 0, 3, 6, 9 (4); z in [2, 8.5]: nodes 2..8 (7).
  expect_nodes_of(read_image(out / ("case_00000006" + ext)), full, {1, 0, 2}, {2, 3, 1}, {6, 4, 7}, what + ", region");
  // Slices: z = 4.5 is in cell 4; x = 13 (the upper face) is in the last cell, 12.
  expect_nodes_of(read_image(out / ("case_slice_mid_00000006" + ext)), full, {0, 0, 4}, {1, 1, 1}, {13, 11, 1},
                  what + ", slice mid");
  expect_nodes_of(read_image(out / ("case_slice_x12_00000006" + ext)), full, {12, 0, 0}, {1, 1, 1}, {1, 11, 9},
                  what + ", slice x12");

  // The series: the volume at 0, 3, 6; mid every 2 steps and at the end; x12 with output.every.
  auto steps_of = [&](const std::string& pvd) {
    std::vector<std::string> files;
    for (const auto& [time, file] : pvd_entries(out / pvd)) files.push_back(file);
    return files;
  };
  auto listed = [&](const std::string& stem, std::vector<int> steps) {
    std::vector<std::string> files;
    for (int s : steps) {
      char step[16];
      std::snprintf(step, sizeof step, "_%08d", s);
      files.push_back(stem + step + ext);
    }
    return files;
  };
  EXPECT_EQ(steps_of("case.pvd"), listed("case", {0, 3, 6})) << what;
  EXPECT_EQ(steps_of("case_slice_mid.pvd"), listed("case_slice_mid", {0, 2, 4, 6})) << what;
  EXPECT_EQ(steps_of("case_slice_x12.pvd"), listed("case_slice_x12", {0, 3, 6})) << what;
  for (const std::string& pvd : {"case.pvd", "case_slice_mid.pvd", "case_slice_x12.pvd"}) {
    for (const auto& [time, file] : pvd_entries(out / pvd)) EXPECT_TRUE(fs::exists(out / file)) << what << ": " << file;
  }
  // The start-up lines say what the files hold.
  EXPECT_NE(log.find("region      volume snapshots hold"), std::string::npos) << log;
  EXPECT_NE(log.find("slice       mid: normal z"), std::string::npos) << log;
}

TEST(OutputSelectionThroughEddy, OneRank) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_selection(kCase, kSelection, 1, "", "1 rank");
}

TEST(OutputSelectionThroughEddy, TwoAndFourRanksJoinPiecesInAPvti) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_selection(kCase, kSelection, 2, "--set 'parallel.ranks=[2,1,1]'", "2 ranks along x");
  check_selection(kCase, kSelection, 4, "--set 'parallel.ranks=[1,2,2]'", "4 ranks in y and z");
}

TEST(OutputSelectionThroughEddy, RanksWithoutNodesOfASliceWriteNoPiece) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  TempDir dir;
  write_text(dir.file("case.toml"), kCase + kSelection);
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", 4, "--set 'parallel.ranks=[1,1,4]'", log, EDDY_TEST_MPIEXEC), 0) << log;
  // z blocks of 3, 2, 2, 2 cells: layer 4 lies in the second only (cells 3..4); the pieces of the region
  // (z nodes 2..8) are on all four.
  const fs::path out = dir.path() / "out";
  for (int r = 0; r < 4; ++r) {
    const std::string piece = "_00000006_r" + std::to_string(r) + ".vti";
    EXPECT_EQ(fs::exists(out / ("case_slice_mid" + piece)), r == 1) << "rank " << r;
    EXPECT_TRUE(fs::exists(out / ("case" + piece))) << "rank " << r;
  }
  const std::string pvti = read_text((out / "case_slice_mid_00000006.pvti").string());
  EXPECT_NE(pvti.find("Source=\"case_slice_mid_00000006_r1.vti\""), std::string::npos) << pvti;
  EXPECT_EQ(pvti.find("_r0.vti"), std::string::npos) << pvti;
}

TEST(OutputSelectionThroughEddy, ASliceNameTooLongForAFileNameIsNamedBeforeTheFirstStep) {
  TempDir dir;
  write_text(dir.file("case.toml"), kCase + "[[output.slice]]\nnormal = \"x\"\nposition = 1\nname = \"" +
                                        std::string(240, 'a') + "\"\n");
  std::string log;
  EXPECT_EQ(test::run_eddy_ranks(dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 5) << log;
  EXPECT_NE(log.find("shorten that output.slice name"), std::string::npos) << log;
  EXPECT_EQ(log.find("step  "), std::string::npos) << log;
}

TEST(OutputSelectionThroughEddy, OutOfCore) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  check_selection(kCase, kSelection, 1, "--set numerics.out_of_core=true --set numerics.slabs=3", "out of core");
}

TEST(OutputSelectionThroughEddy, MetresUnderUnits) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  // dx = 0.002 m: the same nodes as in cells, lengths times dx.
  const std::string si_case =
      "[domain]\nsize = [13, 11, 9]\n[units]\ndx = 0.002\nvelocity = 0.5\nviscosity = 1e-4\n"
      "lattice_velocity = 0.08\n[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.3]\n"
      "[run]\nsteps = 6\n[output]\nevery = 3\nfields = [\"density\", \"velocity\", \"vorticity\"]\n";
  const std::string si_selection =
      "region = { min = [0.0028, 0, 0.004], max = [0.0252, 0.022, 0.017] }\nstride = [2, 3, 1]\n"
      "[[output.slice]]\nname = \"mid\"\nnormal = \"z\"\nposition = 0.009\nevery = 2\n"
      "[[output.slice]]\nnormal = \"x\"\nposition = 0.026\n";
  check_selection(si_case, si_selection, 2, "--set 'parallel.ranks=[2,1,1]'", "SI, 2 ranks");
}

/// A lid-driven box of uneven sides in SI units ([units]: water-like density), `steps` steps.
std::string si_lid_case(int steps) {
  return "[domain]\nsize = [13, 11, 9]\n[units]\ndx = 0.002\nvelocity = 0.5\nviscosity = 1e-4\n"
         "lattice_velocity = 0.08\ndensity = 998.2\n[boundary.y_max]\ntype = \"moving_wall\"\n"
         "velocity = [1, 0, 0.3]\n[run]\nsteps = " +
         std::to_string(steps) + "\n";
}

/// A cavity that blows up: U = 0.1, nu = 0.001 on 128^2 (tau = 0.503, accepted explicitly), NaN by about step 500
/// in float; out of core, where only the checks at report and output steps see it. `numerics` adds keys to
/// [numerics].
std::string blow_up_case(const std::string& numerics, int report_every, int output_every) {
  return "[domain]\nsize = [128, 128, 1]\n[physics]\nvelocity = 0.1\nviscosity = 0.001\n"
         "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0]\n[numerics]\nmin_tau = 0.502\n" +
         numerics +
         "out_of_core = true\nslabs = 1\n[run]\nsteps = 5000\nreport_every = " + std::to_string(report_every) +
         "\n[output]\nevery = " + std::to_string(output_every) + "\n";
}

/// The step of "became unstable by step N" in `log`; -1 when there is none.
long unstable_step(const std::string& log) {
  std::smatch m;
  return std::regex_search(log, m, std::regex(R"(became unstable by step (\d+))")) ? std::stol(m[1]) : -1;
}

/// The volume snapshot's file name of `step` for a case named "case" on one rank.
std::string snapshot_name(long step) {
  char name[32];
  std::snprintf(name, sizeof name, "case_%08ld.vti", step);
  return name;
}

// The values themselves: a snapshot in SI holds rho times units.density and u divided by dx / dt at every node,
// as the read-out's fields give them in lattice units (a scaling applied to the wrong field, or not at all, wrote
// files that every comparison with eddy's own full snapshot above accepts). Staged and written through the
// Simulation, read back with VTK's reader; float output, so to float rounding.
TEST(OutputSelectionThroughEddy, SnapshotValuesAreTheFieldsInOutputUnits) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  write_text(dir.file("case.toml"), si_lid_case(6));
  const CaseConfig c = load_case(dir.file("case.toml"));
  auto sim = Simulation::create(c);
  sim->advance(6);
  const OutputScaling scaling = OutputScaling::of(c);
  const std::string path = dir.file("state.vti");
  for (const StagedPiece& piece : sim->stage_vti({VtiTarget{path, volume_box(c)}}, scaling)) piece.write();
  const Arrays arrays = read_arrays(path);
  const std::vector<double>& rho = arrays.at("point/density").numbers;
  const std::vector<double>& u = arrays.at("point/velocity").numbers;
  const MacroscopicFields f = sim->fields();
  ASSERT_EQ(rho.size(), f.rho.size());
  ASSERT_EQ(u.size(), 3 * f.rho.size());
  const double u_si = 1.0 / scaling.velocity;  // m/s per lattice velocity: dx / dt
  double largest = 0.0;
  for (std::size_t k = 0; k < rho.size(); ++k) {
    ASSERT_NEAR(rho[k], f.rho[k] * 998.2, 1e-6 * 998.2) << "node " << k;
    for (int a = 0; a < 3; ++a) {
      ASSERT_NEAR(u[3 * k + a], f.u[a][k] * u_si, 1e-6 * 0.5) << "node " << k << ", component " << a;
      largest = std::max(largest, std::abs(u[3 * k + a]));
    }
  }
  EXPECT_GT(largest, 0.05) << "the lid (0.5 m/s) should have set the fluid in motion";
}

// A step that writes a snapshot and checks the state reads the populations once: the snapshot's read-out gives the
// diagnostics, which must be diagnose()'s bitwise (in lattice units, though the files are in SI here), in each
// storage and out of core, where the slabs arrive differently.
TEST(SnapshotStaging, GivesTheDiagnosticsOfDiagnoseBitwise) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  EDDY_REQUIRE_DEVICE();
  TempDir dir;
  write_text(dir.file("case.toml"), si_lid_case(7));
  const std::vector<std::vector<std::string>> variants = {{},
                                                          {"numerics.storage=\"fp16\""},
                                                          {"numerics.storage=\"double\""},
                                                          {"numerics.out_of_core=true", "numerics.slabs=3"}};
  for (const std::vector<std::string>& overrides : variants) {
    const std::string what = overrides.empty() ? "float" : overrides.front();
    const CaseConfig c = load_case(dir.file("case.toml"), overrides);
    auto sim = Simulation::create(c);
    sim->advance(7);
    const Diagnostics expected = sim->diagnose();
    Diagnostics staged;
    staged.mass = -1.0;  // so a stage that leaves it alone fails
    sim->stage_vti({VtiTarget{dir.file("state.vti"), volume_box(c)}}, OutputScaling::of(c), &staged);
    EXPECT_EQ(staged.mass, expected.mass) << what;
    EXPECT_EQ(staged.kinetic_energy, expected.kinetic_energy) << what;
    EXPECT_EQ(staged.fluid_cells, expected.fluid_cells) << what;
    EXPECT_EQ(staged.max_speed, expected.max_speed) << what;
    EXPECT_EQ(staged.fastest_cell, expected.fastest_cell) << what;
    EXPECT_EQ(staged.finite, expected.finite) << what;
    EXPECT_GT(expected.max_speed, 0.01) << what << ": the lid should have set the fluid in motion";
    EXPECT_EQ(expected.fluid_cells, 13 * 11 * 9) << what;
  }
}

/// The "max|u| ... mass drift ..." part of each progress line of `log`, in order.
std::vector<std::string> reported_states(const std::string& log) {
  std::vector<std::string> states;
  const std::regex pattern(R"(max\|u\| \S+  mass drift \S+)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), pattern); it != std::sregex_iterator(); ++it)
    states.push_back(it->str());
  return states;
}

// The progress lines at steps that write a snapshot (whose read-out now gives the diagnostics) read as those of the
// same run without output, on one rank and on two, in core and out of core.
TEST(OutputSelectionThroughEddy, ProgressLinesAtSnapshotStepsMatchARunWithoutOutput) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  TempDir dir;
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [13, 11, 9]\n[physics]\nvelocity = 0.08\nreynolds = 20\n"
             "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.3]\n"
             "[run]\nsteps = 12\nreport_every = 3\n[output]\nevery = 3\n");
  const std::vector<std::pair<int, std::string>> runs = {
      {1, ""}, {2, "--set 'parallel.ranks=[1,1,2]'"}, {1, "--set numerics.out_of_core=true --set numerics.slabs=3"}};
  for (const auto& [ranks, args] : runs) {
    std::string with, without;
    ASSERT_EQ(test::run_eddy_ranks(dir, "with", ranks, args, with, EDDY_TEST_MPIEXEC), 0) << with;
    ASSERT_EQ(test::run_eddy_ranks(dir, "without", ranks, args + " --set output.vtk=false", without, EDDY_TEST_MPIEXEC),
              0)
        << without;
    const std::vector<std::string> a = reported_states(with), b = reported_states(without);
    EXPECT_EQ(a.size(), 4u) << with;
    EXPECT_EQ(a, b) << ranks << " rank(s) " << args;
    EXPECT_TRUE(fs::exists(dir.path() / "with" / "case_00000012.vti") ||
                fs::exists(dir.path() / "with" / "case_00000012.pvti"))
        << with;
  }
}

// An instability that only the checks at output steps see (out of core has no watch in the fused kernel) stops the
// run at a snapshot step; the snapshot staged there, before the check, is written and listed all the same.
TEST(OutputSelectionThroughEddy, AnInstabilityFoundAtASnapshotStepStillWritesItsSnapshot) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  TempDir dir;
  write_text(dir.file("case.toml"), blow_up_case("", 5000, 50));
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 3) << log;
  const long step = unstable_step(log);
  ASSERT_GE(step, 0) << log;
  ASSERT_EQ(step % 50, 0) << log;
  const std::string name = snapshot_name(step);
  EXPECT_TRUE(fs::exists(dir.path() / "out" / name)) << log;
  EXPECT_NE(read_text((dir.path() / "out" / "case.pvd").string()).find(name), std::string::npos);
  EXPECT_NE(log.find("instability detected; writing the current fields"), std::string::npos) << log;
}

// The previous snapshot's background write failed (a directory stands where its file goes) and the state is
// unstable by the next snapshot step, which is no report step: the instability is what the run reports (exit 3),
// the failure after it, and the unstable step's snapshot is written, as when the state was checked before staging.
// What stood in the way is left alone.
TEST(OutputSelectionThroughEddy, AnInstabilityIsReportedBeforeAnEarlierWriteFailure) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  TempDir dir;
  // With BGK: |u| passes the lattice limit between steps 66 and 132.
  write_text(dir.file("case.toml"), blow_up_case("collision = \"bgk\"\n", 1000, 66));
  fs::create_directories(dir.path() / "out" / "case_00000066.vti");
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 3) << log;
  const long step = unstable_step(log);
  ASSERT_GE(step, 0) << log;
  EXPECT_GT(step, 66) << log;
  EXPECT_NE(log.find("an earlier snapshot's write had failed"), std::string::npos) << log;
  EXPECT_NE(log.find("case_00000066.vti"), std::string::npos) << log;
  const std::string name = snapshot_name(step);
  EXPECT_TRUE(fs::exists(dir.path() / "out" / name)) << log;
  EXPECT_TRUE(fs::is_directory(dir.path() / "out" / "case_00000066.vti"));
}

}  // namespace
}  // namespace eddy
