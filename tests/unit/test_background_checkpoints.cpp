// Checkpoints written while the run goes on ([output] asynchronous, solver/checkpointing.hpp CheckpointSeries::start),
// through the eddy command line: the background writer makes byte for byte the data files and manifests of the
// in-line writer on 1 and 2 ranks; a background write that fails (the file-size limit of `ulimit -f`, as a full disk)
// ends the run with exit status 5 and eddy's message and leaves the earlier checkpoint as it was; SIGTERM while
// checkpoints are being written in the background stops with complete files and a checkpoint that restarts bitwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>

#include "solver/checkpointing.hpp"
#include "tests/cli_run.hpp"
#include "tests/file_helpers.hpp"

namespace eddy {
namespace {

namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;
using test::write_text;

/// A lid-driven box (12 x 10 x 8), report every step, a checkpoint every 2 steps of 7.
const std::string kCase =
    "[domain]\nsize = [12, 10, 8]\n[physics]\nvelocity = 0.08\nreynolds = 20\n"
    "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.3]\n"
    "[run]\nsteps = 7\nreport_every = 1\n[output]\nvtk = false\n[checkpoint]\nevery = 2\n";

/// The files of `dir`, name to contents; a manifest's first line (a comment naming its own path) left out.
std::map<std::string, std::string> checkpoint_files(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string bytes = read_text(entry.path().string());
    if (entry.path().extension() == ".toml") bytes = bytes.substr(bytes.find('\n') + 1);
    files[entry.path().filename().string()] = bytes;
  }
  return files;
}

void expect_same_checkpoints(int ranks, const std::string& args) {
  TempDir dir("bgckpt");
  write_text(dir.file("case.toml"), kCase);
  std::string background_log, inline_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "background", ranks, args, background_log, EDDY_TEST_MPIEXEC), 0)
      << background_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "inline", ranks, args + " --set output.asynchronous=false", inline_log,
                                 EDDY_TEST_MPIEXEC),
            0)
      << inline_log;
  // Steps 2 and 4 in the background (6 too, completed at the end of the run), 7 (the last) in line.
  const std::regex background_line(
      "wrote checkpoint [^ ]*_0000000[246]\\.toml \\([^)]*in the background; the run "
      "paused [0-9.e+-]+ s to stage it\\)");
  EXPECT_EQ(std::distance(std::sregex_iterator(background_log.begin(), background_log.end(), background_line),
                          std::sregex_iterator()),
            3)
      << background_log;
  EXPECT_NE(background_log.find("_00000007.toml ("), std::string::npos) << background_log;
  EXPECT_EQ(inline_log.find("in the background"), std::string::npos) << inline_log;
  const auto written = checkpoint_files(dir.path() / "background" / "checkpoints");
  const auto expected = checkpoint_files(dir.path() / "inline" / "checkpoints");
  // The newest two of each run: steps 6 and 7, data file and manifest.
  ASSERT_EQ(expected.size(), 4u);
  ASSERT_EQ(written.size(), expected.size());
  for (const auto& [name, bytes] : expected) {
    ASSERT_EQ(written.count(name), 1u) << name << " is missing from the background run";
    EXPECT_TRUE(written.at(name) == bytes) << name << " differs between the background and the in-line writer";
  }
}

TEST(CheckpointStaging, HostBytesAreTheInteriorCellsTimesTheStoredValues) {
  CaseConfig config;
  Decomposition block;
  block.local_size = {10, 12, 14};  // 1680 cells
  config.checkpoint_every = 5;
  config.precision = Precision::float32;
  EXPECT_DOUBLE_EQ(checkpoint_staging_bytes(config, block), 1680.0 * 19 * 4);
  config.thermal.enabled = true;  // + T (4 B)
  EXPECT_DOUBLE_EQ(checkpoint_staging_bytes(config, block), 1680.0 * (19 * 4 + 4));
  config.thermal.enabled = false;
  config.precision = Precision::float16;  // 2-byte slots
  EXPECT_DOUBLE_EQ(checkpoint_staging_bytes(config, block), 1680.0 * 19 * 2);
  config.precision = Precision::float64;
  config.particles.enabled = config.particles.two_way = true;  // + the particles' force, 3 doubles
  EXPECT_DOUBLE_EQ(checkpoint_staging_bytes(config, block), 1680.0 * (19 * 8 + 3 * 8));
  config.checkpoint_every = 0;  // no checkpoints: nothing staged
  EXPECT_DOUBLE_EQ(checkpoint_staging_bytes(config, block), 0.0);
}

TEST(BackgroundCheckpoints, WriteTheBytesOfTheInLineWriterOnOneRank) { expect_same_checkpoints(1, ""); }

TEST(BackgroundCheckpoints, WriteTheBytesOfTheInLineWriterOnTwoRanks) {
  expect_same_checkpoints(2, "--set 'parallel.ranks=[2,1,1]'");
}

TEST(BackgroundCheckpoints, AFailedBackgroundWriteExitsFiveAndKeepsTheEarlierCheckpoint) {
  // 64^3 float populations are 19.9 MB, above the 8000 KiB limit (eddy's start-up needs a few MB). The first run (no
  // limit) writes a checkpoint at step 4; the restart under the limit stages the one of step 8 and writes it in the
  // background, which fails.
  TempDir dir("bgckptfail");
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [64, 64, 64]\n[physics]\nvelocity = 0.05\nreynolds = 100\n"
             "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0]\n"
             "[run]\nsteps = 4\nreport_every = 1\n[output]\nvtk = false\n[checkpoint]\nevery = 4\n");
  std::string log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "out", 1, "", log, EDDY_TEST_MPIEXEC), 0) << log;
  const fs::path checkpoints = dir.path() / "out" / "checkpoints";
  const auto before = checkpoint_files(checkpoints);
  const std::string manifest = (checkpoints / "case_checkpoint_00000004.toml").string();
  ASSERT_EQ(before.size(), 2u) << log;
  ASSERT_TRUE(fs::exists(manifest)) << log;

  const int status = test::run_eddy_with_file_limit(dir, "--set run.steps=12 --restart '" + manifest + "'", log);
  ASSERT_TRUE(status != -1 && WIFEXITED(status)) << "killed by a signal:\n" << log;
  EXPECT_EQ(WEXITSTATUS(status), 5) << log;
  // The error follows the progress lines, on a line of its own (stdout is flushed before it).
  EXPECT_NE(log.find("\neddy: error: "), std::string::npos) << log;
  EXPECT_GT(log.find("eddy: error: "), log.rfind("\nstep ")) << log;
  EXPECT_NE(log.find("case_checkpoint_00000008.data"), std::string::npos) << log;
  EXPECT_EQ(log.find("wrote checkpoint"), std::string::npos) << log;
  const auto after = checkpoint_files(checkpoints);
  EXPECT_EQ(after.size(), before.size()) << "the failed checkpoint left files behind";
  for (const auto& [name, bytes] : before) {
    ASSERT_EQ(after.count(name), 1u) << name;
    EXPECT_TRUE(after.at(name) == bytes) << name << " changed";
  }
}

TEST(BackgroundCheckpoints, AnInstabilityCompletesTheBackgroundWriteAsTheInLineWriterWould) {
  // A lid-driven box at Re 1e6 that blows up after about 90 steps, with a checkpoint every 2 steps: the run stops
  // with exit 3 while a checkpoint is being written in the background. The checkpoints left, and their "wrote" lines,
  // are those of the in-line writer: the newest two, each logged.
  TempDir dir("bgckptunstable");
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [32, 32, 32]\n[physics]\nvelocity = 0.17\nreynolds = 1000000\n"
             "[numerics]\ncollision = \"bgk\"\nmin_tau = 0.500001\n"
             "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0]\n"
             "[run]\nsteps = 2000\nreport_every = 500\n[output]\nvtk = false\n[checkpoint]\nevery = 2\n");
  std::string background_log, inline_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "background", 1, "", background_log, EDDY_TEST_MPIEXEC), 3) << background_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "inline", 1, "--set output.asynchronous=false", inline_log, EDDY_TEST_MPIEXEC), 3)
      << inline_log;
  // The error line follows the checkpoint lines, whole (stdout is flushed before it is written to stderr).
  for (const std::string* log : {&background_log, &inline_log}) {
    EXPECT_NE(log->find("\neddy: error: "), std::string::npos) << *log;
    EXPECT_GT(log->find("eddy: error: "), log->rfind("wrote checkpoint")) << *log;
  }
  const auto written = checkpoint_files(dir.path() / "background" / "checkpoints");
  const auto expected = checkpoint_files(dir.path() / "inline" / "checkpoints");
  ASSERT_EQ(expected.size(), 4u) << inline_log;
  ASSERT_EQ(written.size(), expected.size()) << background_log;
  for (const auto& [name, bytes] : expected) {
    ASSERT_EQ(written.count(name), 1u) << name << " is missing from the background run\n" << background_log;
    EXPECT_TRUE(written.at(name) == bytes) << name << " differs between the background and the in-line writer";
    if (name.size() > 5 && name.substr(name.size() - 5) == ".toml") {
      EXPECT_NE(background_log.find(name + " ("), std::string::npos) << name << " is not logged\n" << background_log;
    }
  }
}

/// The step count of the last line "stopped by SIGTERM at step N" in `log`, -1 without one.
long stopped_step(const std::string& log) {
  std::smatch match;
  return std::regex_search(log, match, std::regex("stopped by SIGTERM at step ([0-9]+)")) ? std::stol(match[1]) : -1;
}

TEST(BackgroundCheckpoints, SigtermDuringBackgroundWritesLeavesACheckpointThatRestartsBitwise) {
  // A checkpoint after every step, each staged and written in the background while the next step runs (each start
  // completes the previous one), so the signal meets a write in flight almost surely. The stop keeps or writes the
  // checkpoint of its step; restarted to step `end`, its final checkpoint equals an uninterrupted run's to the bit.
  TempDir dir("bgckptterm");
  write_text(dir.file("case.toml"),
             "[domain]\nsize = [48, 40, 32]\n[physics]\nvelocity = 0.05\nreynolds = 100\n"
             "[boundary.y_max]\ntype = \"moving_wall\"\nvelocity = [1, 0, 0.2]\n"
             "[run]\nsteps = 100000000\nreport_every = 100000000\n[output]\nvtk = false\n[checkpoint]\nevery = 1\n");
  const std::string eddy = EDDY_EXECUTABLE;
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string command = "cd '" + dir.path().string() + "' && OMP_NUM_THREADS=1 exec '" + eddy +
                                "' run case.toml --output out </dev/null >term.log 2>&1";
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Until two checkpoints are complete (past MPI's start-up, writes under way), then SIGTERM.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::string log;
  while (std::chrono::steady_clock::now() < deadline) {
    log = read_text(dir.file("term.log"));
    std::size_t lines = 0;
    for (std::size_t at = log.find("in the background;"); at != std::string::npos;
         at = log.find("in the background;", at + 1))
      ++lines;
    if (lines >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  log = read_text(dir.file("term.log"));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << log;
  const long stopped = stopped_step(log);
  ASSERT_GT(stopped, 0) << log;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(log, match, std::regex("--restart ([^ \\n]+)"))) << log;
  const std::string manifest = match[1];
  for (const auto& entry : fs::recursive_directory_iterator(dir.path() / "out")) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
  }

  const long end = stopped + 3;
  const std::string final_step = "--set run.steps=" + std::to_string(end) +
                                 " --set checkpoint.every=" + std::to_string(end) + " --set run.report_every=1";
  std::string restarted_log, reference_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "restarted", 1, final_step + " --restart '" + manifest + "'", restarted_log,
                                 EDDY_TEST_MPIEXEC),
            0)
      << restarted_log;
  ASSERT_EQ(test::run_eddy_ranks(dir, "reference", 1, final_step, reference_log, EDDY_TEST_MPIEXEC), 0)
      << reference_log;
  char name[64];
  std::snprintf(name, sizeof name, "case_checkpoint_%08ld.data", end);
  const std::string restarted = read_text((dir.path() / "restarted" / "checkpoints" / name).string());
  const std::string reference = read_text((dir.path() / "reference" / "checkpoints" / name).string());
  ASSERT_FALSE(reference.empty()) << reference_log;
  EXPECT_TRUE(restarted == reference) << "the restart from " << manifest << " differs from the uninterrupted run";
}

}  // namespace
}  // namespace eddy
