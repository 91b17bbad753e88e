// Snapshots written while the run goes on ([output] asynchronous, solver/snapshot_writer.hpp), through the eddy
// command line: the background writer makes byte for byte the files of the synchronous one (volume snapshots, slices,
// their .pvti and .pvd) on 1 and 2 ranks; a background write that fails (the file-size limit of `ulimit -f`, as a
// full disk) ends the run with exit status 5 and eddy's message, leaves no temporary file and every earlier file as
// it was, readable and listed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"
#include "tests/vtk_read.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;
using test::write_text;

/// A lid-driven box with snapshots every 2 steps and two slices, 6 steps.
const std::string kCase =
    "[domain]\nsize = [13, 11, 9]\n[physics]\nvelocity = 0.08\nreynolds = 20\n"
    "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.3]\n"
    "[run]\nsteps = 6\nreport_every = 1\n[output]\nevery = 2\nfields = [\"density\", \"velocity\", \"vorticity\"]\n"
    "[[output.slice]]\nnormal = \"z\"\nposition = 4.5\nevery = 3\n";

/// The files of an output directory, name to contents.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files[entry.path().filename().string()] = read_text(entry.path().string());
  }
  return files;
}

void expect_same_files(int ranks, const std::string& args) {
  TempDir dir;
  write_text(dir.file("case.toml"), kCase);
  std::string async_log, sync_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "async", ranks, args, async_log, EDDY_TEST_MPIEXEC), 0) << async_log;
  ASSERT_EQ(
      test::run_eddy_ranks(dir, "sync", ranks, args + " --set output.asynchronous=false", sync_log, EDDY_TEST_MPIEXEC),
      0)
      << sync_log;
  EXPECT_TRUE(std::regex_search(async_log, std::regex(R"(in the background; the run paused [0-9.e+-]+ s to stage it\))")))
      << async_log;
  EXPECT_EQ(sync_log.find("in the background"), std::string::npos) << sync_log;
  const auto written = files_of(dir.path() / "async"), expected = files_of(dir.path() / "sync");
  std::size_t vtk = 0;
  for (const auto& [name, bytes] : expected) {
    if (name == ".eddy.lock") continue;
    vtk += name.find(".vti") != std::string::npos || name.find(".pvti") != std::string::npos;
    ASSERT_EQ(written.count(name), 1u) << name << " is missing from the asynchronous run";
    EXPECT_TRUE(written.at(name) == bytes) << name << " differs between the asynchronous and the synchronous run";
  }
  EXPECT_EQ(written.size(), expected.size());
  // 4 volume snapshots (0, 2, 4, 6) and 3 slices (0, 3, 6): one file each, or a .pvti and its pieces.
  EXPECT_GE(vtk, 7u * (ranks > 1 ? 2 : 1));
}

TEST(AsynchronousOutput, WritesTheBytesOfTheSynchronousWriterOnOneRank) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  expect_same_files(1, "");
}

TEST(AsynchronousOutput, WritesTheBytesOfTheSynchronousWriterOnTwoRanks) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  expect_same_files(2, "--set 'parallel.ranks=[1,2,1]'");
}

TEST(AsynchronousOutput, AFailedBackgroundWriteExitsFiveAndKeepsTheEarlierFiles) {
  if (!EDDY_TEST_WITH_VTK) GTEST_SKIP() << "SKIPPED: eddy was built without VTK (EDDY_WITH_VTK=OFF)";
  // A 1024 x 1024 slice of density and velocity is 16.8 MB, above the 8000 KiB limit (eddy's start-up needs a few
  // MB); the volume snapshots hold a region of 64 x 1024 x 3 nodes (3.1 MB), written first. The first run (no
  // limit) writes the files of steps 0 and 5 and a checkpoint at 5; the restart under the limit writes the volume of
  // step 10 in the background, then fails on its slice.
  TempDir dir;
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [1024, 1024, 3]\n[physics]\nvelocity = 0.05\nreynolds = 100\n"
             "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0]\n"
             "[run]\nsteps = 5\n[output]\nevery = 5\nregion = { min = [0, 0, 0], max = [64, 1024, 3] }\n"
             "[[output.slice]]\nname = \"wide\"\nnormal = \"z\"\nposition = 1.5\n[checkpoint]\nevery = 5\n");
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 0) << log;
  const fs::path out = dir.path() / "out";
  const auto before = files_of(out);
  const std::vector<std::string> earlier = {"case_00000000.vti", "case_00000005.vti", "case_slice_wide_00000000.vti",
                                            "case_slice_wide_00000005.vti"};
  for (const std::string& name : earlier) ASSERT_EQ(before.count(name), 1u) << name << "\n" << log;
  std::string manifest;
  for (const auto& entry : fs::directory_iterator(out / "checkpoints")) {
    if (entry.path().extension() == ".toml") manifest = entry.path().string();
  }
  ASSERT_FALSE(manifest.empty()) << "no checkpoint in " << (out / "checkpoints");

  const int status = test::run_eddy_with_file_limit(
      dir, "--set run.steps=20 --set checkpoint.every=0 --restart '" + manifest + "'", log);
  ASSERT_TRUE(status != -1 && WIFEXITED(status)) << "killed by a signal:\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 5) << log;
  EXPECT_NE(log.find("eddy: error: cannot write VTK file '"), std::string::npos) << log;
  EXPECT_NE(log.find("case_slice_wide_00000010.vti"), std::string::npos) << log;
  EXPECT_EQ(log.find("wrote out/case_00000010.vti"), std::string::npos) << log;
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
  }
  // The step's volume was written before its slice failed: removed with it, so no file lies outside a .pvd.
  EXPECT_FALSE(fs::exists(out / "case_00000010.vti"));
  EXPECT_FALSE(fs::exists(out / "case_slice_wide_00000010.vti"));
  const auto after = files_of(out);
  for (const std::string& name : earlier) {
    ASSERT_EQ(after.count(name), 1u) << name;
    EXPECT_TRUE(after.at(name) == before.at(name)) << name << " changed";
    EXPECT_EQ(test::read_arrays((out / name).string()).count("point/velocity"), 1u) << name;
  }
  const std::string pvd = read_text((out / "case.pvd").string());
  EXPECT_NE(pvd.find("case_00000005.vti"), std::string::npos) << pvd;
  EXPECT_EQ(pvd.find("case_00000010.vti"), std::string::npos) << pvd;
  const std::string slices = read_text((out / "case_slice_wide.pvd").string());
  EXPECT_NE(slices.find("case_slice_wide_00000005.vti"), std::string::npos) << slices;
  EXPECT_EQ(slices.find("case_slice_wide_00000010.vti"), std::string::npos) << slices;
}

}  // namespace
}  // namespace eddy
